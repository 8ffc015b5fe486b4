"""The daily deal's storage: the bot's secret, who played which day (one game per person
per day), the day's results as they come in, and each closed day's scores.

A day's live results are read from the hands its games have scored (`hand_points` of the
person's seat, written with each hand's last move); once the day is closed
(`engine.daily`), `settle` stores each person's points as they stood and their day's
matchpoints, which the overall board and the streaks read.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, and_, bindparam, case, func, select, update

from engine import daily

from .database import Database
from .schema import daily_games, daily_secret, game_results, hand_points, users


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


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

    def __init__(self, database: Database) -> None:
        self._db = database

    # ------------------------------------------------------------ the secret

    async def secret(self) -> bytes:
        """The bot's daily secret: made once (``secrets.token_bytes(32)``), then read."""
        rows = await self._db.read(select(daily_secret.c.secret))
        if rows:
            return bytes.fromhex(rows[0][0])
        made = secrets.token_bytes(32).hex()
        statement = (
            self._db.insert(daily_secret)
            .values(id=1, secret=made, created_at=_now_ms())
            .on_conflict_do_nothing(index_elements=[daily_secret.c.id])
        )
        async with self._db.write() as db:
            await db.execute(statement)
            kept = (await db.execute(select(daily_secret.c.secret))).scalar_one()
        return bytes.fromhex(kept)

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
            .values(day=day, user_id=user_id, game_id=game_id, started_at=_now_ms())
            .on_conflict_do_nothing(index_elements=[daily_games.c.day, daily_games.c.user_id])
        )
        async with self._db.write() as db:
            done = await db.execute(statement)
        return bool(done.rowcount)

    async def reclaim(self, day: int, user_id: int, old_game: int, new_game: int) -> bool:
        """The person's game of the day changed from ``old_game`` (claimed but never dealt)
        to ``new_game``; False if it was not ``old_game`` any more."""
        d = daily_games.c
        statement = (
            update(daily_games)
            .where(d.day == day, d.user_id == user_id, d.game_id == old_game)
            .values(game_id=new_game, started_at=_now_ms())
        )
        async with self._db.write() as db:
            done = await db.execute(statement)
        return bool(done.rowcount)

    # ------------------------------------------------------------ the day's results

    async def results(self, day: int) -> dict[int, list[int]]:
        """Everyone's points on the day's hands so far, person by person (hands in order):
        the stored points once the day is settled, else the hands their games scored."""
        d, h = daily_games.c, hand_points.c
        settled = await self._db.read(
            select(d.user_id, d.points).where(d.day == day, d.points.is_not(None))
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
            .where(d.day == day, d.points.is_(None))
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
        """The people the bot has seen play in a group (a finished game there)."""
        r = game_results.c
        rows = await self._db.read(
            select(r.user_id)
            .where(
                r.score_kind.in_(("points", "complex")),
                r.chat_id == chat_id,
                r.user_id.is_not(None),
            )
            .distinct()
        )
        return {user for (user,) in rows}

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
