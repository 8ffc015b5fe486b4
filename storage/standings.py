"""Standings and ratings: a game's score table, the leaderboards, a player's record and
history, the rating boards and a player's rating changes, and rebuilding every rating."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import (
    BigInteger,
    BindParameter,
    ColumnElement,
    Connection,
    Float,
    Select,
    bindparam,
    cast,
    func,
    literal_column,
    select,
)

from domain.games import StoredSeat
from domain.standings import (
    GameTable,
    HandLine,
    PlayerGame,
    PlayerStanding,
    RatingChange,
    RatingEntry,
    RebuildReport,
    Score,
    ScoreKind,
    score_kind_of,
)
from engine import Rules
from ratings import ANCHORS, COMPUTER_PLAYERS, Pool, Skill

from .database import Database, Query, in_places, placed, width_of
from .errors import GameNotFound
from .rating import OVERALL, rate_backlog, rate_games
from .replay import join_score
from .schema import (
    game_results,
    game_seats,
    games,
    hand_points,
    rated_games,
    rating_changes,
    ratings,
    users,
)

_ONE: Final = literal_column("1.0", Float)
"""A real 1, so that a product or quotient of integers is real in both databases."""


def _name_of(player: ColumnElement[Any]) -> ColumnElement[Any]:
    """A person's name: as last seen, else as seated last."""
    return func.coalesce(
        select(users.c.display_name).where(users.c.user_id == player).scalar_subquery(),
        select(game_seats.c.display_name)
        .where(game_seats.c.user_id == player)
        .order_by(game_seats.c.game_id.desc())
        .limit(1)
        .scalar_subquery(),
    )


def _sum(column: ColumnElement[Any]) -> ColumnElement[Any]:
    # An integer in both databases (PostgreSQL's SUM of integers is a numeric).
    return cast(func.sum(column), BigInteger)


_CHANGE: Final = (
    rating_changes.c.game_id,
    rating_changes.c.chat_id,
    rating_changes.c.pool,
    rating_changes.c.player,
    rating_changes.c.seat,
    rating_changes.c.weight,
    rating_changes.c.mu_before,
    rating_changes.c.sigma_before,
    rating_changes.c.mu_after,
    rating_changes.c.sigma_after,
    games.c.finished_at,
)


def _change(row: Sequence[Any]) -> RatingChange:
    game_id, chat_id, pool, player, seat, weight, mu0, s0, mu1, s1, at = row
    return RatingChange(
        game_id,
        chat_id,
        pool,
        player,
        seat,
        weight,
        Skill(mu0, s0),
        Skill(mu1, s1),
        datetime.fromtimestamp((at or 0) / 1000, tz=UTC),
    )


_R = ratings.c
_IN_SCOPE = (_R.pool == bindparam("pool"), _R.chat_id == bindparam("scope"))
_BOARD = Query(
    select(_R.player, _R.mu, _R.sigma, _R.games, func.coalesce(_name_of(_R.player), ""))
    .where(*_IN_SCOPE, _R.player > 0)
    .order_by((_R.mu - 3 * _R.sigma).desc(), _R.player)
    .limit(bindparam("limit"))
)
"""The best-rated people of a scope (statements built once and compiled once, `Query`s,
as `_standings_query`'s)."""
_OTHER = ratings.alias("o")
_RATING = Query(
    select(
        _R.mu,
        _R.sigma,
        _R.games,
        func.coalesce(_name_of(_R.player), ""),
        select(func.count())
        .where(
            _OTHER.c.pool == _R.pool,
            _OTHER.c.chat_id == _R.chat_id,
            _OTHER.c.player > 0,
            _OTHER.c.mu - 3 * _OTHER.c.sigma > _R.mu - 3 * _R.sigma,
        )
        .scalar_subquery(),
        select(func.count())
        .where(_OTHER.c.pool == _R.pool, _OTHER.c.chat_id == _R.chat_id, _OTHER.c.player > 0)
        .scalar_subquery(),
    ).where(*_IN_SCOPE, _R.player == bindparam("player"))
)
"""One person's rating in a scope, how many rate above them and how many are rated: one
query (a person not rated there costs no second one)."""
_RATED_PEOPLE = Query(select(func.count()).where(*_IN_SCOPE, _R.player > 0))


@functools.cache
def _standings_query(score_kind: ScoreKind, by_chat: bool, by_user: bool) -> Query:
    """The standings query of one shape, built once and compiled once (a `Query`): its
    chat, person, least games and limit are bound."""
    r = game_results.c
    where = [r.score_kind == score_kind, r.user_id.is_not(None)]
    if by_chat:
        where.append(r.chat_id == bindparam("chat_id"))
    if by_user:
        where.append(r.user_id == bindparam("user_id"))
    agg = (
        select(
            r.user_id,
            func.count().label("games"),
            _sum(r.won).label("wins"),
            _sum(r.hands).label("hands"),
            _sum(r.total_re).label("re"),
            _sum(r.total_im).label("im"),
            _sum(r.moons).label("moons"),
            func.min(r.rank_key).label("best"),
            func.max(r.rank_key).label("worst"),
        )
        .where(*where)
        .group_by(r.user_id)
        .having(func.count() >= bindparam("min_games"))
        .cte("agg")
    )

    def order(t: Any) -> list[ColumnElement[Any]]:
        # Ranking: wins, then win rate, then the smallest average per hand (its magnitude
        # in Complex Hearts, where |z| is what the game minimises).
        if score_kind == "complex":
            average = (_ONE * t.re * t.re + _ONE * t.im * t.im) / (_ONE * t.hands * t.hands)
        else:
            average = _ONE * t.re / t.hands
        return [t.wins.desc(), (_ONE * t.wins / t.games).desc(), average.asc(), t.user_id]

    top = select(agg).order_by(*order(agg.c)).limit(bindparam("limit")).cte("top")
    return Query(select(top, _name_of(top.c.user_id)).order_by(*order(top.c)))


# A game's score table, a player's history and rating changes: built once, as the rest.
_GAME_ID: BindParameter[Any] = bindparam("game_id")
_TABLE_HEAD = Query(
    select(games.c.status, games.c.rules, games.c.winners).where(games.c.id == _GAME_ID)
)
_TABLE_SEATS = Query(
    select(
        game_seats.c.seat,
        game_seats.c.kind,
        game_seats.c.display_name,
        game_seats.c.user_id,
        game_seats.c.computer_level,
    )
    .where(game_seats.c.game_id == _GAME_ID)
    .order_by(game_seats.c.seat)
)
_H = hand_points.c
_TABLE_HANDS = Query(
    select(
        _H.hand_number, _H.seat, _H.points_re, _H.points_im, _H.total_re, _H.total_im, _H.shot_moon
    )
    .where(_H.game_id == _GAME_ID)
    .order_by(_H.hand_number, _H.seat)
)
_G = game_results.c
_HISTORY = (
    select(
        _G.game_id,
        _G.chat_id,
        _G.finished_at,
        _G.score_kind,
        _G.players,
        _G.seat,
        _G.total_re,
        _G.total_im,
        _G.place,
        _G.won,
        _G.hands,
        _G.moons,
    )
    .where(_G.user_id == bindparam("user_id"))
    .order_by(_G.finished_at.desc(), _G.game_id.desc())
    .limit(bindparam("limit"))
)
_HISTORY_IN_CHAT = Query(_HISTORY.where(_G.chat_id == bindparam("chat_id")))
_HISTORY_ANYWHERE = Query(_HISTORY)
_C = rating_changes.c
_GAME_CHANGES = Query(
    select(*_CHANGE)
    .join_from(rating_changes, games, games.c.id == _C.game_id)
    .where(_C.game_id == _GAME_ID, _C.chat_id == bindparam("scope"))
    .order_by(_C.seat)
)
_NEWEST = (
    select(*_CHANGE, rated_games.c.seq)
    .join_from(rating_changes, rated_games, rated_games.c.game_id == _C.game_id)
    .join(games, games.c.id == _C.game_id)
    .where(
        _C.player == bindparam("player"),
        _C.pool == bindparam("pool"),
        _C.chat_id == bindparam("scope"),
    )
    .order_by(rated_games.c.seq.desc())
    .limit(bindparam("limit"))
    .subquery("newest")
)
_RATING_HISTORY = Query(select(_NEWEST).order_by(_NEWEST.c.seq))


@functools.cache
def _complex_games_query(by_chat: bool, by_user: bool, width: int) -> Query:
    """The Complex games of the people of a standings query (its shape), by rank key: the
    people in `width` places (`in_places`), so that it is built and compiled once."""
    r = game_results.c
    where = [r.score_kind == "complex", r.user_id.is_not(None)]
    if by_chat:
        where.append(r.chat_id == bindparam("chat_id"))
    if by_user:
        where.append(r.user_id == bindparam("user_id"))
    return Query(
        select(r.user_id, r.rank_key, r.total_re, r.total_im)
        .where(*where, in_places(r.user_id, "person", width))
        .order_by(r.user_id, r.rank_key)
    )


class Standings:
    """What players and games scored, and their ratings."""

    def __init__(self, database: Database) -> None:
        self._db = database

    # ------------------------------------------------------------ games and players

    async def game_table(self, game_id: int) -> GameTable:
        """The score table of a game, hand by hand, in play or finished."""
        key = {"game_id": game_id}
        header, seat_rows, points = await self._db.read_together(
            (_TABLE_HEAD, key), (_TABLE_SEATS, key), (_TABLE_HANDS, key)
        )
        if not header:
            raise GameNotFound(game_id)
        status, rules_json, winners_json = header[0]
        rules = Rules.from_dict(json.loads(rules_json))
        is_complex = rules.variant == "complex"
        seats = tuple(
            StoredSeat(seat, kind, name, user_id, level)
            for seat, kind, name, user_id, level in seat_rows
        )
        n = rules.players
        lines: list[HandLine] = []
        for start in range(0, len(points), n):
            block = points[start : start + n]
            shooter = next((r[1] for r in block if r[6]), None)
            lines.append(
                HandLine(
                    block[0][0],
                    tuple(join_score(r[2], r[3], is_complex) for r in block),
                    tuple(join_score(r[4], r[5], is_complex) for r in block),
                    shooter,
                )
            )
        zero: Score = 0j if is_complex else 0
        totals = lines[-1].totals if lines else tuple(zero for _ in range(n))
        winners = tuple(json.loads(winners_json)) if winners_json else ()
        return GameTable(
            game_id, status, score_kind_of(rules), seats, tuple(lines), totals, winners
        )

    async def chat_games(
        self, chat_id: int, thread_id: int | None, limit: int = 5
    ) -> list[GameTable]:
        """The score tables of the chat's (or forum topic's) latest games that were dealt
        (finished, being played, or cancelled), newest first: the games `/replay` lists."""
        rows = await self._db.read(
            select(games.c.id)
            .where(
                games.c.chat_id == chat_id,
                games.c.thread_id.is_not_distinct_from(thread_id),
                games.c.status.in_(("active", "finished", "cancelled")),
                games.c.seed.is_not(None),
            )
            .order_by(games.c.id.desc())
            .limit(limit)
        )
        return [await self.game_table(game_id) for (game_id,) in rows]

    async def tournament_playing(self, tournament_id: int) -> bool:
        """Whether a table of the tournament is still open (a lobby, or a game being
        played): its deals may be another table's, so none of its hands is shown yet."""
        rows = await self._db.read(
            select(games.c.id)
            .where(
                games.c.tournament_id == tournament_id,
                games.c.status.in_(("lobby", "active")),
            )
            .limit(1)
        )
        return bool(rows)

    async def standings(
        self,
        chat_id: int | None = None,
        score_kind: ScoreKind = "points",
        *,
        limit: int = 20,
        min_games: int = 1,
    ) -> list[PlayerStanding]:
        """Players by games won, then win rate, then fewest points per hand.

        ``chat_id`` None means every chat.
        """
        return await self._standings(chat_id, score_kind, None, limit, min_games)

    async def player_standing(
        self, user_id: int, chat_id: int | None = None, score_kind: ScoreKind = "points"
    ) -> PlayerStanding | None:
        """One player's record, or None if they finished no such game."""
        found = await self._standings(chat_id, score_kind, user_id, 1, 1)
        return found[0] if found else None

    async def _standings(
        self,
        chat_id: int | None,
        score_kind: ScoreKind,
        user_id: int | None,
        limit: int,
        min_games: int,
    ) -> list[PlayerStanding]:
        rows = await self._db.read(
            _standings_query(score_kind, chat_id is not None, user_id is not None),
            {"chat_id": chat_id, "user_id": user_id, "min_games": min_games, "limit": limit},
        )
        if not rows:
            return []
        best: dict[int, Score] = {}
        worst: dict[int, Score] = {}
        if score_kind == "complex":
            # The totals of the games with the smallest and largest |z|, per player.
            people = [row[0] for row in rows]
            width = width_of(len(people))
            games_of = await self._db.read(
                _complex_games_query(chat_id is not None, user_id is not None, width),
                {"chat_id": chat_id, "user_id": user_id} | placed("person", people, width),
            )
            for uid, _, re, im in games_of:
                best.setdefault(uid, complex(re, im))
                worst[uid] = complex(re, im)
        standings = []
        for uid, played, wins, hands, re, im, moons, low, high, name in rows:
            average_per_hand: float | complex = (
                (complex(re / hands, im / hands) if score_kind == "complex" else re / hands)
                if hands
                else 0.0
            )
            standings.append(
                PlayerStanding(
                    user_id=uid,
                    display_name=name or str(uid),
                    score_kind=score_kind,
                    games_played=played,
                    games_won=wins,
                    hands_played=hands,
                    average_per_hand=average_per_hand,
                    moons_shot=moons,
                    best_game=best.get(uid, low),
                    worst_game=worst.get(uid, high),
                )
            )
        return standings

    async def player_history(
        self, user_id: int, *, limit: int = 10, chat_id: int | None = None
    ) -> list[PlayerGame]:
        """The player's most recent finished games, newest first."""
        rows = await self._db.read(
            _HISTORY_IN_CHAT if chat_id is not None else _HISTORY_ANYWHERE,
            {"user_id": user_id, "chat_id": chat_id, "limit": limit},
        )
        return [
            PlayerGame(
                game_id=game_id,
                chat_id=chat,
                finished_at=datetime.fromtimestamp(at / 1000, tz=UTC),
                score_kind=kind,
                players=players,
                seat=seat,
                total=join_score(re, im, kind == "complex"),
                place=place,
                won=bool(won),
                hands=hands,
                moons=moons,
            )
            for game_id, chat, at, kind, players, seat, re, im, place, won, hands, moons in rows
        ]

    # ------------------------------------------------------------ ratings

    async def rating_changes(self, game_id: int, chat_id: int | None = None) -> list[RatingChange]:
        """What a game did to each player's rating in its chat (``chat_id``) or overall."""
        scope = OVERALL if chat_id is None else chat_id
        rows = await self._db.read(_GAME_CHANGES, {"game_id": game_id, "scope": scope})
        return [_change(row) for row in rows]

    async def rating_history(
        self, player: int, chat_id: int | None = None, pool: Pool = "main", *, limit: int = 200
    ) -> list[RatingChange]:
        """A player's rating changes in a chat (or overall), oldest first (the last
        ``limit``)."""
        scope = OVERALL if chat_id is None else chat_id
        rows = await self._db.read(
            _RATING_HISTORY, {"player": player, "pool": pool, "scope": scope, "limit": limit}
        )
        return [_change(row[:-1]) for row in rows]

    def _board(self, pool: Pool, scope: int) -> Select[Any]:
        r = ratings.c
        return select(r.player).where(r.pool == pool, r.chat_id == scope, r.player > 0)

    async def rating_board(
        self, chat_id: int | None = None, pool: Pool = "main", *, limit: int = 10
    ) -> list[RatingEntry]:
        """The best-rated people of a chat (or overall) by μ − 3σ, then the computer
        levels' fixed ratings; empty when nobody is rated in the scope."""
        scope = OVERALL if chat_id is None else chat_id
        counted, people = await self._db.read_together(
            (_RATED_PEOPLE, {"pool": pool, "scope": scope}),
            (_BOARD, {"pool": pool, "scope": scope, "limit": limit}),
        )
        rated = int(counted[0][0])
        board = [
            RatingEntry(p, name, Skill(mu, sigma), played, place, rated)
            for place, (p, mu, sigma, played, name) in enumerate(people, start=1)
        ]
        if not board:
            return []
        # The computer levels' fixed ratings, strongest first (rows a database kept from
        # before they were fixed are left out, and go with the next rebuild).
        return board + sorted(
            (
                RatingEntry(COMPUTER_PLAYERS[level], "", skill, 0, 0, rated)
                for level, skill in ANCHORS.items()
            ),
            key=lambda e: -e.skill.conservative,
        )

    async def player_rating(
        self, player: int, chat_id: int | None = None, pool: Pool = "main"
    ) -> RatingEntry | None:
        scope = OVERALL if chat_id is None else chat_id
        rows = await self._db.read(_RATING, {"pool": pool, "scope": scope, "player": player})
        if not rows:
            return None
        mu, sigma, played, name, higher, rated = rows[0]
        return RatingEntry(player, name, Skill(mu, sigma), played, higher + 1, rated)

    async def rate_backlog(self) -> int:
        """Rate the finished games not rated yet (those finished before ratings existed, or
        by a bot that stopped between finishing a game and rating it), in the order they
        finished; returns how many. The bot calls it once at start-up."""
        async with self._db.serial:
            return await self._db.transact(rate_backlog, self._db)

    async def rebuild_ratings(self) -> RebuildReport:
        """Recompute every rating from the stored games, in the order they were rated
        (games never rated after, in the order they finished); all in one transaction."""
        async with self._db.serial:
            stored, order, rebuilt = await self._db.transact(_rebuild, self._db)
        differing = sum(
            1 for game, scope, player, *rest in rebuilt if stored.get((game, scope, player)) != rest
        )
        differing += len(stored.keys() - {(r[0], r[1], r[2]) for r in rebuilt})
        return RebuildReport(len(order), len(rebuilt), differing)


def _rebuild(
    db: Connection, database: Database
) -> tuple[dict[Any, list[Any]], list[int], list[Any]]:
    """`Standings.rebuild_ratings`'s transaction: the stored changes, the games in the
    order they are rated again, and the changes after."""
    c = rating_changes.c
    values = select(
        c.game_id, c.chat_id, c.player, c.mu_before, c.sigma_before, c.mu_after, c.sigma_after
    )
    stored = {
        (game, scope, player): list(rest) for game, scope, player, *rest in db.execute(values)
    }
    # Cancelled games count when they were rated as they were cancelled (after their first
    # hand); those cancelled before cancelling cost a rating stay free.
    order = list(
        db.execute(
            select(games.c.id)
            .outerjoin(rated_games, rated_games.c.game_id == games.c.id)
            .where(
                (games.c.status == "finished")
                | ((games.c.status == "cancelled") & rated_games.c.seq.is_not(None))
            )
            .order_by(
                rated_games.c.seq.is_(None), rated_games.c.seq, games.c.finished_at, games.c.id
            )
        ).scalars()
    )
    for table in (rating_changes, ratings, rated_games):
        db.execute(table.delete())
    rate_games(db, database, order)
    return stored, order, list(db.execute(values))
