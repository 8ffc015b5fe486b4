"""Rating a game, inside the transaction that finishes (or cancels) it.

A game is rated in the transaction that stores its last move (`rate_finished`), so it is
rated exactly once, whatever crashes when. Everything a rating needs is read back from the
database (the seats, `game_results`' rank keys, the journal's stand-in marks), so a rebuild
(`storage.standings.Standings.rebuild_ratings`) computes from the same inputs as the live
rating.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Sequence
from typing import Any, Final

from sqlalchemy import (
    BindParameter,
    Connection,
    Executable,
    Select,
    bindparam,
    exists,
    func,
    select,
    text,
)

from engine import Game
from engine.scoring import rank_key
from ratings import (
    REAL_OPPONENTS,
    START,
    Change,
    SeatResult,
    Skill,
    computer_player,
    pool_of,
    rate_game,
    rate_record,
)

from .database import Database, Dialect, Upsert, now_ms
from .schema import game_results, game_seats, games, moves, rated_games, rating_changes, ratings

OVERALL: Final = 0
"""The scope of the overall rating (a chat id is never 0)."""
RECORDS: Final = -(2**62)
"""The scope of each person's record against computers (`ratings.rate_record`), kept in
`ratings` beside their ratings and never shown: no chat has this id (Telegram's fit in 52
bits). It changes only with games played to their end against computers only, whose deal
nobody knew and with no hint asked (`_proves`), and has no `rating_changes` of its own (a
rebuild recomputes it from the games, as every rating)."""


# Statements built once: SQLAlchemy finds their compiled form without walking them again.
# Each reads the inputs of many games at once (`CHUNK`), in the order they are rated.
_IDS: BindParameter[Any] = bindparam("ids", expanding=True)
CHUNK: Final = 500
"""Games read at once when many are rated (a rebuild): well under both databases' limits
on a statement's parameters."""
_GAMES = select(
    games.c.id,
    games.c.chat_id,
    games.c.status,
    games.c.meta,
    games.c.snapshot,
    games.c.tournament_id,
).where(games.c.id.in_(_IDS))
_RANK_KEYS = select(game_results.c.game_id, game_results.c.seat, game_results.c.rank_key).where(
    game_results.c.game_id.in_(_IDS)
)
_SEATS = (
    select(
        game_seats.c.game_id,
        game_seats.c.seat,
        game_seats.c.kind,
        game_seats.c.user_id,
        game_seats.c.computer_level,
    )
    .where(game_seats.c.game_id.in_(_IDS))
    .order_by(game_seats.c.game_id, game_seats.c.seat)
)
_RATINGS = select(
    ratings.c.pool,
    ratings.c.chat_id,
    ratings.c.player,
    ratings.c.mu,
    ratings.c.sigma,
    ratings.c.games,
).where(ratings.c.player.in_(bindparam("players", expanding=True)))
_MINE, _THEIRS = rating_changes.alias("mine"), rating_changes.alias("theirs")
_MET = (
    select(_THEIRS.c.player)
    .distinct()
    .join_from(
        _MINE,
        _THEIRS,
        (_THEIRS.c.game_id == _MINE.c.game_id)
        & (_THEIRS.c.chat_id == OVERALL)
        & (_THEIRS.c.player != _MINE.c.player),
    )
    .where(
        _MINE.c.player == bindparam("player"),
        _MINE.c.pool == bindparam("pool"),
        _MINE.c.chat_id == OVERALL,
    )
    .limit(REAL_OPPONENTS)
)
"""Up to `REAL_OPPONENTS` different people a person met in the pool's rated games (their
overall changes: only people have changes), enough to say whether they count as a real
opponent (`ratings.REAL_OPPONENTS`)."""
_MY_SEAT, _ANOTHER = game_seats.alias("my_seat"), game_seats.alias("another")
_ALONE_TO_THE_END = (
    select(rated_games.c.game_id)
    .join_from(_MY_SEAT, rated_games, rated_games.c.game_id == _MY_SEAT.c.game_id)
    .join(games, games.c.id == rated_games.c.game_id)
    .where(
        _MY_SEAT.c.user_id == bindparam("player"),
        rated_games.c.pool == bindparam("pool"),
        games.c.status == "finished",
        ~exists().where(
            _ANOTHER.c.game_id == _MY_SEAT.c.game_id,
            _ANOTHER.c.user_id.is_not(None),
            _ANOTHER.c.user_id != _MY_SEAT.c.user_id,
        ),
    )
    .order_by(rated_games.c.seq)
)
"""The rated games a person played to the end with no other person at the table (their
record's games: `RECORDS`), in the order they were rated."""
_LAST_SEQ = select(func.coalesce(func.max(rated_games.c.seq), 0))
_ONE_RATER = text("SELECT pg_advisory_xact_lock(5207640365946983493)")  # "HEARRATE"
"""PostgreSQL: one transaction at a time rates games, whichever process (bot account) and
connection it runs on, until it commits (one 64-bit key: the leaders' locks are other keys,
`storage.postgres.LEADER_LOCK`). Rating reads the players' ratings and the last
place in the rating order and writes them back; two at once read the same ones (a place
taken twice, a rating change lost). SQLite writes one transaction at a time anyway."""
_CHANGES = rating_changes.insert()
_RATED = rated_games.insert()


@functools.cache
def _journal_counts(dialect: Dialect) -> Select[Any]:
    """Each seat's moves in each game's journal, and how many a stand-in made."""
    database = Database(dialect, "", ())
    journal = (
        select(
            moves.c.game_id,
            database.json_int(moves.c.move, "seat").label("seat"),
            database.json_int(moves.c.move, "stand_in").label("stand_in"),
        )
        .where(moves.c.game_id.in_(_IDS))
        .subquery()
    )
    return select(
        journal.c.game_id,
        journal.c.seat,
        func.count(),
        func.sum(func.coalesce(journal.c.stand_in, 0)),
    ).group_by(journal.c.game_id, journal.c.seat)


def _build_set_rating(dialect: Dialect) -> Executable:
    """A person's rating after the games rated: inserted, or the stored one replaced."""
    upsert = Database(dialect, "", ()).insert(ratings)
    return upsert.on_conflict_do_update(
        index_elements=[ratings.c.pool, ratings.c.chat_id, ratings.c.player],
        set_={
            "mu": upsert.excluded.mu,
            "sigma": upsert.excluded.sigma,
            "games": upsert.excluded.games,
            "updated_at": upsert.excluded.updated_at,
        },
    )


_SET_RATING: Final = Upsert(_build_set_rating)


def _away(meta: dict[str, Any]) -> set[int]:
    """The seats whose person was away when the game ended (left, removed, blocked the
    bot, or out of time and never back), from the bot's ``seat_state`` in ``meta``."""
    state = meta.get("seat_state", {})
    return {int(seat) for seat, extra in state.items() if extra.get("away")}


def _proves(meta: dict[str, Any], tournament_id: int | None) -> bool:
    """Whether a game can count in a record against computers (`RECORDS`): its deal
    known to nobody beforehand (not the daily deal, the same for everyone; not a
    tournament's table, whose deals other tables may have played first) and played
    without the coach's hints (the bot's own search), as the bot's ``meta`` says."""
    used = meta.get("hints_used", {})
    hinted = any(count for seats in used.values() for count in seats.values())
    return meta.get("daily") is None and tournament_id is None and not hinted


def _rank_keys(
    status: str, snapshot: str | None, results: Sequence[tuple[int, int]]
) -> dict[int, int]:
    """Each seat's rank key: a finished game's results, a cancelled one's standing totals
    (the hands complete when it stopped)."""
    if status == "finished":
        return dict(results)
    assert snapshot is not None
    game = Game.from_json(snapshot)
    return {seat: rank_key(game.rules, total) for seat, total in enumerate(game.scores)}


def _seat_results(
    keys: dict[int, int],
    seats: Sequence[tuple[int, str, int | None, str | None]],
    away: set[int],
    made: dict[int, tuple[int, int]],
) -> list[SeatResult]:
    """Who played each seat of a rated game and its rank: a person who was away at the
    end (a leaver) ranks last, below everyone present (leavers tie), with full weight. A
    person present at the end (back with /rejoin) has the share of their seat's moves they
    made themselves (the journal marks a stand-in's), which scales a gain only: none of
    them (back after the seat's last move), no gain at all."""
    last = max(keys.values()) + 1
    results = []
    for number, kind, user_id, level in seats:
        if kind == "computer" or user_id is None:
            results.append(SeatResult(number, computer_player(level or "standard"), keys[number]))
        elif number in away:
            results.append(SeatResult(number, user_id, last))
        else:
            # (No journal, as in games written by hand: played whole.)
            total, stand_ins = made.get(number, (0, 0))
            share = max(total - stand_ins, 0) / total if total else 1.0
            results.append(SeatResult(number, user_id, keys[number], min(share, 1.0)))
    return results


_Key = tuple[str, int, int]
"""A rating's key: its pool, its scope (a chat, or `OVERALL`) and its player."""


class _Rating:
    __slots__ = ("games", "mu", "sigma", "updated_at")

    def __init__(self, mu: float, sigma: float, games: int, updated_at: int) -> None:
        self.mu, self.sigma, self.games, self.updated_at = mu, sigma, games, updated_at


def _inputs(
    db: Connection, database: Database, chunk: Sequence[int]
) -> dict[int, tuple[int, str, list[SeatResult], bool]]:
    """Each game's chat, status, seats as the ratings see them (`_seat_results`) and
    whether it can count in a record (`_proves`), read in a handful of statements."""
    ids = {"ids": list(chunk)}
    heads = {row[0]: row[1:] for row in db.execute(_GAMES, ids)}
    results: dict[int, list[tuple[int, int]]] = {}
    for game_id, seat, key in db.execute(_RANK_KEYS, ids):
        results.setdefault(game_id, []).append((seat, key))
    seats: dict[int, list[tuple[int, str, int | None, str | None]]] = {}
    for game_id, *seat_row in db.execute(_SEATS, ids):
        seats.setdefault(game_id, []).append(tuple(seat_row))
    made: dict[int, dict[int, tuple[int, int]]] = {}
    for game_id, seat, total, stand_ins in db.execute(_journal_counts(database.dialect), ids):
        if seat is not None:
            made.setdefault(game_id, {})[int(seat)] = (int(total), int(stand_ins))
    inputs = {}
    for game_id in chunk:
        chat_id, status, meta_json, snapshot, tournament_id = heads[game_id]
        meta = json.loads(meta_json or "{}")
        keys = _rank_keys(status, snapshot, results.get(game_id, []))
        seated = _seat_results(keys, seats.get(game_id, []), _away(meta), made.get(game_id, {}))
        inputs[game_id] = (chat_id, status, seated, _proves(meta, tournament_id))
    return inputs


def _record_from_games(db: Connection, database: Database, pool: str, person: int) -> _Rating:
    """A person's record against computers (`ratings.rate_record`) from the games they
    played alone against computers to the end, rated before records were kept (a rebuild
    gives the same: a record depends on those games only)."""
    ids = list(db.execute(_ALONE_TO_THE_END, {"player": person, "pool": pool}).scalars())
    record, counted = START, 0
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        inputs = _inputs(db, database, chunk)
        for game_id in chunk:
            _, _, seated, proves = inputs[game_id]
            if proves:
                record = rate_record(seated, {person: record}).after
                counted += 1
    return _Rating(record.mu, record.sigma, counted, now_ms())


def rate_games(db: Connection, database: Database, game_ids: Sequence[int]) -> None:
    """Rate finished games (or ones cancelled after their first hand), in this order, each
    in its chat and overall, as if one after another; in the caller's transaction, after a
    finished game's `game_results` are written. Only people's ratings are written: the
    computer levels are fixed anchors.

    Their inputs (and the ratings of their players) are read a chunk of games at a time,
    the ratings kept here as they change, and what changed written at the end of each
    chunk: a handful of statements for a rebuild of thousands of games, not a dozen a
    game."""
    if database.dialect == "postgresql":
        db.execute(_ONE_RATER)  # before anything is read (READ COMMITTED: reads after it
        # see what the rater before committed)
    seq = int(db.execute(_LAST_SEQ).scalar_one())
    known: dict[_Key, _Rating] = {}
    met: dict[tuple[str, int], set[int]] = {}  # (pool, person): people met, up to enough

    def people_met(pool: str, person: int) -> set[int]:
        key = (pool, person)
        if key not in met:
            rows = db.execute(_MET, {"player": person, "pool": pool}).scalars()
            met[key] = set(rows)
        return met[key]

    loaded: set[int] = set()
    for start in range(0, len(game_ids), CHUNK):
        chunk = list(game_ids[start : start + CHUNK])
        inputs = _inputs(db, database, chunk)
        new_players = {
            s.player for _, _, seated, _ in inputs.values() for s in seated if s.player > 0
        } - loaded
        touched: dict[_Key, _Rating] = {}
        if new_players:
            for pool, scope, player, mu, sigma, played in db.execute(
                _RATINGS, {"players": sorted(new_players)}
            ):
                known[(pool, scope, player)] = _Rating(mu, sigma, played, 0)
            loaded |= new_players
            # People rated before records were kept: theirs from the games they played.
            for player, pool in itertools.product(sorted(new_players), ("main", "two")):
                if (pool, OVERALL, player) in known and (pool, RECORDS, player) not in known:
                    record = _record_from_games(db, database, pool, player)
                    known[(pool, RECORDS, player)] = touched[(pool, RECORDS, player)] = record
        changes_rows: list[dict[str, Any]] = []
        rated_rows: list[dict[str, Any]] = []
        for game_id in chunk:
            chat_id, status, seated, proves = inputs[game_id]
            pool = pool_of(len(seated))
            now = now_ms()
            players = [s.player for s in seated]
            games_before = {
                p: known[(pool, OVERALL, p)].games for p in players if (pool, OVERALL, p) in known
            }
            people = sorted({p for p in players if p > 0})
            met_before = {p: len(people_met(pool, p)) for p in people} if len(people) > 1 else {}
            for p in people:
                if (pool, RECORDS, p) not in known:  # a newcomer's, kept from their first game
                    new = _Rating(START.mu, START.sigma, 0, now)
                    known[(pool, RECORDS, p)] = touched[(pool, RECORDS, p)] = new
            records = {
                p: Skill(known[(pool, RECORDS, p)].mu, known[(pool, RECORDS, p)].sigma)
                for p in people
            }
            rated: list[tuple[int, list[Change]]] = []
            for scope in dict.fromkeys((chat_id, OVERALL)):  # (a chat 0 exists only in tests)
                before = {
                    p: Skill(known[(pool, scope, p)].mu, known[(pool, scope, p)].sigma)
                    for p in players
                    if (pool, scope, p) in known
                }
                rated.append(
                    (
                        scope,
                        rate_game(
                            seated, before, games=games_before, met=met_before, records=records
                        ),
                    )
                )
            if status == "finished" and proves and len(people) == 1:
                # Played to its end against computers only, fairly: it counts in their record.
                rated.append((RECORDS, [rate_record(seated, records)]))
            for scope, changes in rated:
                for c in changes:
                    key = (pool, scope, c.player)
                    rating = known.get(key)
                    if rating is None:
                        rating = known[key] = _Rating(c.after.mu, c.after.sigma, 1, now)
                    else:
                        rating.mu, rating.sigma = c.after.mu, c.after.sigma
                        rating.games += 1
                        rating.updated_at = now
                    touched[key] = rating
                    if scope == RECORDS:
                        continue  # (a record has no history)
                    changes_rows.append(
                        {
                            "game_id": game_id,
                            "chat_id": scope,
                            "player": c.player,
                            "pool": pool,
                            "seat": c.seat,
                            "weight": c.weight,
                            "mu_before": c.before.mu,
                            "sigma_before": c.before.sigma,
                            "mu_after": c.after.mu,
                            "sigma_after": c.after.sigma,
                        }
                    )
            for p in met_before:
                if len(mine := met[(pool, p)]) < REAL_OPPONENTS:
                    mine.update(q for q in people if q != p)
            seq += 1
            rated_rows.append({"game_id": game_id, "seq": seq, "pool": pool, "rated_at": now})
        if touched:
            _SET_RATING.execute(
                db,
                [
                    {
                        "pool": pool,
                        "chat_id": scope,
                        "player": player,
                        "mu": r.mu,
                        "sigma": r.sigma,
                        "games": r.games,
                        "updated_at": r.updated_at,
                    }
                    for (pool, scope, player), r in touched.items()
                ],
            )
        if changes_rows:
            db.execute(_CHANGES, changes_rows)
        if rated_rows:
            db.execute(_RATED, rated_rows)


def rate_finished(db: Connection, database: Database, game_id: int) -> None:
    """Rate a finished game, or one cancelled after its first hand (`rate_games`)."""
    rate_games(db, database, [game_id])


def rate_cancelled(db: Connection, database: Database, game_id: int) -> bool:
    """Rate a game as it is cancelled (by its host, or as its group removed the bot) from
    its standing totals, if it had started for the ratings: its first hand complete.
    In the caller's transaction, with the game's status already 'cancelled'. Returns
    whether it was rated."""
    hands = (
        db.execute(select(games.c.hands_recorded).where(games.c.id == game_id))
    ).scalar_one_or_none()
    if not hands:
        return False
    rate_finished(db, database, game_id)
    return True


def rate_backlog(db: Connection, database: Database) -> int:
    """Rate the finished games not rated yet (those finished before ratings existed), in
    the order they finished; returns how many."""
    pending = (
        db.execute(
            select(games.c.id)
            .where(games.c.status == "finished", games.c.id.not_in(select(rated_games.c.game_id)))
            .order_by(games.c.finished_at, games.c.id)
        )
    ).scalars()
    order = list(pending)
    rate_games(db, database, order)
    return len(order)
