"""The daily deal's storage: the bot's secret, who played which day (one game per person
per day), the day's results as they come in, and each closed day's scores.

A day's live results are read from the hands its games have scored (`hand_points` of the
person's seat, written with each hand's last move); once the day is closed
(`engine.daily`), `settle` stores each person's points as they stood and their day's
matchpoints, which the overall board and the streaks read.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import secrets
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import Connection, and_, bindparam, case, func, or_, select, union, update

from engine import daily

from .database import Database, now_ms, rows_changed
from .schema import (
    daily_games,
    daily_posts,
    daily_secret,
    game_results,
    game_seats,
    games,
    hand_points,
    served_chats,
    tournament_registrations,
    tournaments,
    users,
)


def _known_in() -> Any:
    """(user_id, chat) for each way the bot knows a person is in a chat: a finished game's
    result there, a seat at one of its tables, a table opened there, an event entered."""
    r, g, s, t, e = game_results.c, games.c, game_seats.c, tournaments.c, tournament_registrations.c
    played = select(r.user_id.label("user_id"), r.chat_id.label("chat")).where(
        r.score_kind.in_(("points", "complex")), r.user_id.is_not(None)
    )
    seated = (
        select(s.user_id.label("user_id"), g.chat_id.label("chat"))
        .join_from(game_seats, games, g.id == s.game_id)
        .where(s.user_id.is_not(None))
    )
    opened = select(g.creator_id.label("user_id"), g.chat_id.label("chat"))
    entered = select(e.user_id.label("user_id"), t.chat_id.label("chat")).join_from(
        tournament_registrations, tournaments, t.id == e.tournament_id
    )
    known = union(played, seated, opened, entered).subquery("known_in")
    return select(known.c.user_id, known.c.chat).distinct()


_KNOWN_IN: Final = _known_in()


@dataclass(frozen=True)
class DailyGame:
    """A person's game of a day: its id, and once the day is closed its points and score."""

    day: int
    user_id: int
    game_id: int
    points: tuple[int, ...] | None = None
    score: float | None = None


@dataclass(frozen=True)
class Standing:
    """A line of a board: who, their name, their score (a percentage), and how many days
    (the overall board) or hands (a day's board) it is over."""

    user_id: int
    name: str
    score: float
    count: int


class Daily:
    """The daily deal's repository."""

    def __init__(self, database: Database, account: int = 0) -> None:
        self._db = database
        self.account = account
        """The bot account whose groups `groups_of` names (`storage.accounts`)."""

    # ------------------------------------------------------------ the secret

    async def secret(self) -> bytes:
        """The bot's daily secret: made once (``secrets.token_bytes(32)``), then read."""
        rows = await self._db.read(select(daily_secret.c.secret))
        if rows:
            return bytes.fromhex(rows[0][0])
        made = secrets.token_bytes(32).hex()
        statement = (
            self._db.insert(daily_secret)
            .values(id=1, secret=made, created_at=now_ms())
            .on_conflict_do_nothing(index_elements=[daily_secret.c.id])
        )

        def keep(db: Connection) -> str:
            db.execute(statement)
            kept: str = db.execute(select(daily_secret.c.secret)).scalar_one()
            return kept

        return bytes.fromhex(await self._db.transact(keep))

    # ------------------------------------------------------------ who played

    async def game_of(self, day: int, user_id: int) -> DailyGame | None:
        """The person's game of the day, if they started one."""
        d = daily_games.c
        rows = await self._db.read(
            select(d.game_id, d.points, d.score).where(d.day == day, d.user_id == user_id)
        )
        if not rows:
            return None
        game_id, points, score = rows[0]
        return DailyGame(day, user_id, game_id, _points(points), score)

    async def claim(self, day: int, user_id: int, game_id: int) -> bool:
        """Record the person's game of the day; False (nothing written) if they have one."""
        statement = (
            self._db.insert(daily_games)
            .values(day=day, user_id=user_id, game_id=game_id, started_at=now_ms())
            .on_conflict_do_nothing(index_elements=[daily_games.c.day, daily_games.c.user_id])
        )
        return bool(await self._db.transact(rows_changed, statement))

    async def reclaim(self, day: int, user_id: int, old_game: int, new_game: int) -> bool:
        """The person's game of the day changed from ``old_game`` (claimed but never dealt)
        to ``new_game``; False if it was not ``old_game`` any more."""
        d = daily_games.c
        statement = (
            update(daily_games)
            .where(d.day == day, d.user_id == user_id, d.game_id == old_game)
            .values(game_id=new_game, started_at=now_ms())
        )
        return bool(await self._db.transact(rows_changed, statement))

    # ------------------------------------------------------------ the day's results

    async def results(self, day: int, among: Sequence[int] | None = None) -> dict[int, list[int]]:
        """Everyone's points on the day's hands so far, person by person (hands in order):
        the stored points once the day is settled, else the hands their games scored
        (``among``: these people's only)."""
        d, h = daily_games.c, hand_points.c
        who = [d.day == day]
        if among is not None:
            who.append(d.user_id.in_(list(among)))
        settled = await self._db.read(
            select(d.user_id, d.points).where(*who, d.points.is_not(None))
        )
        out: dict[int, list[int]] = {user: list(_points(p) or ()) for user, p in settled}
        # One row per person, their hands side by side (a pivot both databases run):
        # reading 10,000 rows instead of 40,000 is most of the board's time.
        hands = [
            func.max(case((h.hand_number == n, h.points_re))) for n in range(1, daily.HANDS + 1)
        ]
        rows = await self._db.read(
            select(d.user_id, *hands)
            .select_from(
                daily_games.outerjoin(
                    hand_points,
                    and_(
                        h.game_id == d.game_id,
                        h.seat == daily.PERSON_SEAT,
                        h.hand_number <= daily.HANDS,
                    ),
                )
            )
            .where(*who, d.points.is_(None))
            .group_by(d.user_id)
        )
        for user, *points in rows:
            played = []
            for p in points:  # hands are scored in order: the first missing ends them
                if p is None:
                    break
                played.append(p)
            out[user] = played
        return out

    async def names(self, user_ids: Sequence[int]) -> dict[int, str]:
        """People's names as last seen."""
        if not user_ids:
            return {}
        u = users.c
        rows = await self._db.read(
            select(u.user_id, u.display_name).where(u.user_id.in_(list(user_ids)))
        )
        return {user: name for user, name in rows}

    async def members(self, chat_id: int) -> set[int]:
        """The people the bot knows are in a group: who finished a game there, sat at or
        opened one of its tables (a lobby, a game cancelled, one being played), or entered
        one of its events. The daily board counted only finished games: a member who had
        only joined a table there was "nobody" (issue 51)."""
        rows = await self._db.read(_KNOWN_IN.where(_KNOWN_IN.selected_columns.chat == chat_id))
        return {user for (user, _) in rows}

    async def groups_of(self, user_id: int) -> list[int]:
        """The groups this account serves that the bot knows the person is in (as
        `members` knows them): a group another account serves is that account's to post
        to. A group no account has claimed yet counts when one of its games or events was
        this account's."""
        known = _KNOWN_IN.subquery("known")
        served = served_chats.c
        ours = or_(
            select(games.c.id)
            .where(games.c.chat_id == known.c.chat, games.c.account == self.account)
            .exists(),
            select(tournaments.c.id)
            .where(tournaments.c.chat_id == known.c.chat, tournaments.c.account == self.account)
            .exists(),
        )
        rows = await self._db.read(
            select(known.c.chat)
            .select_from(known.outerjoin(served_chats, served.chat_id == known.c.chat))
            .where(
                known.c.user_id == user_id,
                known.c.chat < 0,  # a group's (a daily game's is the person's DM)
                or_(served.account == self.account, and_(served.account.is_(None), ours)),
            )
            .distinct()
        )
        return sorted(chat for (chat,) in rows)

    async def claim_post(self, day: int, user_id: int, chat_id: int) -> bool:
        """Record that the person's card of ``day`` is posted to the group; False (nothing
        written) if it was already."""
        statement = (
            self._db.insert(daily_posts)
            .values(day=day, user_id=user_id, chat_id=chat_id, posted_at=now_ms())
            .on_conflict_do_nothing(
                index_elements=[daily_posts.c.day, daily_posts.c.user_id, daily_posts.c.chat_id]
            )
        )
        return bool(await self._db.transact(rows_changed, statement))

    # ------------------------------------------------------------ closed days

    async def settle(self, through_day: int) -> list[int]:
        """Close every day up to ``through_day`` not closed yet: each person's points as
        they stand, and their day's matchpoints. The days closed now."""
        d = daily_games.c
        days = [
            day
            for (day,) in await self._db.read(
                select(d.day).where(d.day <= through_day, d.points.is_(None)).distinct()
            )
        ]
        for day in sorted(days):
            results = await self.results(day)
            marks = daily.scores(results)

            await self._db.transact(_settle_day, day, results, marks)
        return sorted(days)

    async def overall(
        self, minimum_days: int, limit: int = 10, among: set[int] | None = None
    ) -> list[Standing]:
        """The best mean day scores of the closed days, of those who played at least
        ``minimum_days`` (``among``: of these people only, a group's members)."""
        d = daily_games.c
        mean = func.avg(d.score)
        where = [d.score.is_not(None)]
        if among is not None:
            where.append(d.user_id.in_(sorted(among)))
        rows = await self._db.read(
            select(d.user_id, mean, func.count())
            .where(*where)
            .group_by(d.user_id)
            .having(func.count() >= minimum_days)
            .order_by(mean.desc(), d.user_id)
            .limit(limit)
        )
        names = await self.names([user for user, *_ in rows])
        return [Standing(user, names.get(user, str(user)), float(m), n) for user, m, n in rows]

    async def overall_of(self, user_id: int) -> tuple[float, int] | None:
        """The person's mean day score over their closed days, and how many (None: none)."""
        d = daily_games.c
        rows = await self._db.read(
            select(func.avg(d.score), func.count()).where(
                d.user_id == user_id, d.score.is_not(None)
            )
        )
        mean, days = rows[0] if rows else (None, 0)
        return None if mean is None or not days else (float(mean), int(days))

    async def days_played(self, user_id: int, limit: int = 400) -> list[int]:
        """The days the person played, latest first."""
        d = daily_games.c
        rows = await self._db.read(
            select(d.day).where(d.user_id == user_id).order_by(d.day.desc()).limit(limit)
        )
        return [day for (day,) in rows]


@dataclass(frozen=True)
class ScoredDay:
    """A day's results scored: everyone's points per hand, their day scores (matchpoints),
    each hand's field to score a hand against, and the scores sorted (to place anyone)."""

    results: dict[int, list[int]]
    scores: dict[int, float]
    fields: list[daily.Field]
    ranked: list[float]

    @staticmethod
    def of(results: dict[int, list[int]]) -> ScoredDay:
        scores = daily.scores(results)
        return ScoredDay(results, scores, daily.fields(results), sorted(scores.values()))

    def mine(self, user_id: int, points: Sequence[int]) -> Mine | None:
        """The person's line with their ``points`` now (`lines`); None: no hand yet."""
        return self.lines({user_id: points}).get(user_id)

    def lines(self, now: Mapping[int, Sequence[int]]) -> dict[int, Mine]:
        """These people's lines with their points ``now`` (a group's members, read from
        storage), against the board with their results put in: their marks and scores
        are what scoring the whole day again would give (everyone else's results as the
        board holds them); their places among the others' scores on the board (which
        their new results move a little, at the next rescoring). Those without a hand
        are left out."""
        columns = [list(f.points) for f in self.fields]
        for user, points in now.items():
            for hand, p in enumerate(self.results.get(user, [])[: daily.HANDS]):
                column = columns[hand]
                del column[bisect.bisect_left(column, p)]
            for hand, p in enumerate(points[: daily.HANDS]):
                bisect.insort(columns[hand], p)
        fields = [daily.Field(tuple(c)) for c in columns]
        newcomers = sum(1 for u, p in now.items() if p and u not in self.scores)
        out: dict[int, Mine] = {}
        for user, points in now.items():
            played = list(points[: daily.HANDS])
            if not played:
                continue
            marks = [fields[hand].matchpoints(p) for hand, p in enumerate(played)]
            score = daily.day_score(marks)
            above = len(self.ranked) - bisect.bisect_right(self.ranked, score)
            old = self.scores.get(user)
            if old is not None and old > score:
                above -= 1
            out[user] = Mine(played, marks, score, 1 + above, len(self.scores) + newcomers)
        return out


@dataclass(frozen=True)
class Mine:
    """A person's line of a day: their points and matchpoints per hand, their day score,
    their place and among how many."""

    points: list[int]
    marks: list[float]
    score: float
    place: int
    count: int


@dataclass
class _Board:
    scored: ScoredDay | None = None
    scored_at: float = 0.0  # when the latest full read began (monotonic)
    started: float = -1e9  # when the latest rescoring began
    pending: set[int] = field(default_factory=set)  # people with results since
    running: asyncio.Future[ScoredDay] | None = None
    timer: asyncio.TimerHandle | None = None


class Boards:
    """Each day's results, scored and kept in memory: a board is read at once. The
    results that come in (`changed`: whose) are read, only theirs, and the day scored
    again at most once every `PAUSE` seconds, one rescoring at a time, without anybody
    waiting for it (only the first read of a day waits, for the one rescoring in flight);
    a person's own line and a group's members' (`mine`, `lines`) are their hands read from
    storage and scored against the board, so they are exact as soon as the hand is stored.
    A board is read whole again every `MAX_AGE` seconds (results written by another
    process).

    10,000 results take tens of milliseconds to read and score (`./dev bench daily`),
    on the event loop: rescoring at every result would hold up everything else."""

    PAUSE = 1.0
    MAX_AGE = 30.0
    KEPT_DAYS = 3

    def __init__(self, stored: Daily) -> None:
        self._stored = stored
        self._boards: dict[int, _Board] = {}

    def changed(self, day: int, user_id: int) -> None:
        """The person's result of ``day`` changed (a hand of its deal scored)."""
        board = self._boards.get(day)
        if board is None:
            return  # read whole when first asked for
        board.pending.add(user_id)
        self._arm(day, board)

    async def day(self, day: int) -> ScoredDay:
        """The day's board: at once from memory (the first time: read and scored, waiting
        for the one rescoring in flight if there is one)."""
        board = self._board(day)
        if board.scored is None:
            return await asyncio.shield(board.running or self._rescore(day, board))
        if time.monotonic() - board.scored_at > self.MAX_AGE and board.running is None:
            self._rescore(day, board)
        return board.scored

    async def lines(self, day: int, user_ids: Collection[int]) -> dict[int, Mine]:
        """These people's lines of the day (a group's members), exact: their hands read
        now, scored against the board (those without a hand left out)."""
        scored = await self.day(day)
        if not user_ids:
            return {}
        return scored.lines(await self._stored.results(day, among=sorted(user_ids)))

    async def mine(self, day: int, user_id: int) -> Mine | None:
        """The person's line of the day, exact (their hands read now), against the board."""
        return (await self.lines(day, [user_id])).get(user_id)

    def _board(self, day: int) -> _Board:
        board = self._boards.get(day)
        if board is None:
            board = self._boards[day] = _Board()
            for old in sorted(self._boards)[: -self.KEPT_DAYS]:
                dropped = self._boards.pop(old)
                if dropped.timer is not None:
                    dropped.timer.cancel()
        return board

    def _arm(self, day: int, board: _Board) -> None:
        if board.running is not None or board.timer is not None or not board.pending:
            return
        wait = max(0.0, board.started + self.PAUSE - time.monotonic())
        board.timer = asyncio.get_running_loop().call_later(wait, self._due, day, board)

    def _due(self, day: int, board: _Board) -> None:
        board.timer = None
        if self._boards.get(day) is board and board.running is None:
            self._rescore(day, board)

    def _rescore(self, day: int, board: _Board) -> asyncio.Future[ScoredDay]:
        """Score the day again: the pending people's results read (everyone's, the first
        time and every `MAX_AGE`)."""
        board.started = now = time.monotonic()
        whole = board.scored is None or now - board.scored_at > self.MAX_AGE
        among = None if whole else sorted(board.pending)
        taken, board.pending = board.pending, set()

        async def score() -> ScoredDay:
            try:
                read = await self._stored.results(day, among=among)
                if among is not None and board.scored is not None:
                    read = {**board.scored.results, **read}
                scored = ScoredDay.of(read)
                board.scored = scored
                if whole:
                    board.scored_at = now
                return scored
            except BaseException:
                board.pending.update(taken)
                raise
            finally:
                board.running = None
                if self._boards.get(day) is board:
                    self._arm(day, board)

        running = asyncio.ensure_future(score())
        # Read by whoever waits for it; a failure nobody waited for is tried again later.
        running.add_done_callback(lambda done: done.cancelled() or done.exception())
        board.running = running
        return running


def _settle_day(
    connection: Connection, day: int, results: dict[int, list[int]], marks: dict[int, float]
) -> None:
    """One closed day's points and scores, written in one statement run for every row."""
    d = daily_games.c
    statement = (
        update(daily_games)
        .where(and_(d.day == day, d.user_id == bindparam("who"), d.points.is_(None)))
        .values(points=bindparam("kept"), score=bindparam("mark"))
    )
    rows = [
        {"who": user, "kept": json.dumps(points), "mark": marks.get(user)}
        for user, points in results.items()
    ]
    if rows:
        connection.execute(statement, rows)


def _points(stored: str | None) -> tuple[int, ...] | None:
    return None if stored is None else tuple(int(p) for p in json.loads(stored))


def streak(days: Sequence[int], today: int) -> int:
    """Days played in a row, up to today (or up to yesterday, while today is not played
    yet): ``days`` latest first."""
    if not days or days[0] < today - 1:
        return 0
    count, expected = 0, days[0]
    for day in days:
        if day != expected:
            break
        count += 1
        expected -= 1
    return count
