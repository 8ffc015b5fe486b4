"""The rules of running a tournament, free of Telegram and storage: draws, places, advancing.

Everything here is a pure function of its arguments (randomness comes from a seed), so
a draw or a ranking can be recomputed and tested exactly.

Decisions where the organiser has no say:

- Tables. ``n`` players at tables of ``size``: equal tables when ``size`` divides ``n``.
  Otherwise, without computer fill, the leftovers are absorbed by tables one larger
  (``n // size`` tables) or one smaller (``ceil(n / size)`` tables), whichever needs fewer
  odd-sized tables (one smaller on a tie: shorter games), provided the rules allow that
  many players (3 to 6; Complex Hearts only 4). With computer fill, or when neither is
  possible, there are ``ceil(n / size)`` tables of ``size`` whose humans differ by at most
  one and computer players take the empty seats.
- The draw is a seeded shuffle of the players (sorted by id first), dealt out to the
  tables in order, the larger tables first; the shuffle's order is also the seating order.
- Places at a table: the lowest total first (by magnitude |z| in Complex Hearts); equal
  totals are split by countback (fewer points in the last hand, then the one before, ...),
  then by a seeded draw.
- Advancing: computer players and no-shows never advance; the next eligible players
  take their places. ``advance_per_table``: the best k eligible of each table. Overall:
  the best N eligible of the round by place at their table, then total, then the draw.
  A round always shrinks the field: if the choice would let everyone through, one fewer
  per table goes on (overall: as many as fit at one table, making the next round the final).
- A round with a single table is the final. Its places are the top of the final ranking;
  everyone else is ranked by the round they reached (later is better), then no-show last,
  then place at their table, then total, then the draw.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from engine import Game, Rules
from engine.scoring import Score, rank_key

MIN_TABLE: Final = 3
MAX_TABLE: Final = 6
DUPLICATE_HANDS: Final = 40
"""Fixed deals per duplicate table: more hands than any game to 150 lasts in practice; past
them the tables share a seed, so they still deal alike."""


# ------------------------------------------------------------------ tables


def rules_for(rules: Rules, players: int) -> Rules | None:
    """The tournament's rules for a table of ``players``, or None if they cannot allow it."""
    if players == rules.players:
        return rules
    data = rules.to_dict()
    data["players"] = players
    if data.get("pass_cycle") is not None and players % 2 and "across" in data["pass_cycle"]:
        data["pass_cycle"] = None
    try:
        return Rules.from_dict(data)
    except ValueError:
        return None


@dataclass(frozen=True)
class TablePlan:
    """One table of a draw: ``humans`` people and ``computers`` computer players."""

    humans: int
    computers: int = 0

    @property
    def size(self) -> int:
        return self.humans + self.computers


def plan_tables(
    players: int, size: int, allowed: Callable[[int], bool], computer_fill: bool
) -> list[TablePlan]:
    """How many tables, and who sits at each (see the module's notes); larger first."""
    if players <= 0:
        return []
    if players <= size:
        if players == size or (allowed(players) and not computer_fill):
            return [TablePlan(players)]
        return [TablePlan(players, size - players)]
    if players % size == 0:
        return [TablePlan(size)] * (players // size)
    if not computer_fill:
        options: list[list[TablePlan]] = []
        fewer = players // size
        extra = players % size
        if extra <= fewer and allowed(size + 1):
            options.append([TablePlan(size + 1)] * extra + [TablePlan(size)] * (fewer - extra))
        more = math.ceil(players / size)
        short = more * size - players
        if short <= more and allowed(size - 1):
            options.append([TablePlan(size)] * (more - short) + [TablePlan(size - 1)] * short)
        if options:
            return min(options, key=lambda o: (sum(t.size != size for t in o), -len(o)))
    tables = math.ceil(players / size)
    base, extra = divmod(players, tables)
    humans = [base + 1] * extra + [base] * (tables - extra)
    return [TablePlan(h, size - h) for h in humans]


def draw(
    user_ids: Sequence[int],
    plans: Sequence[TablePlan],
    seed: int | str,
    strength: Mapping[int, float] | None = None,
) -> list[list[int | None]]:
    """Seat ``user_ids`` at ``plans`` by a seeded shuffle: a list of seats per table, None
    for a computer player's seat.

    With ``strength`` (a rating per person), the strongest go to different tables: people
    are dealt out best first in snake order (tables 1, 2, … n, n, … 2, 1, …), each table
    taking as many as its plan seats; then each table's seats are shuffled."""
    if sum(p.humans for p in plans) != len(user_ids):
        raise ValueError(f"{len(user_ids)} players do not fit the plan {plans}.")
    rng = random.Random(f"draw:{seed}")
    order = sorted(user_ids)
    rng.shuffle(order)
    if strength is None:
        groups: list[list[int]] = []
        start = 0
        for plan in plans:
            groups.append(order[start : start + plan.humans])
            start += plan.humans
    else:
        order.sort(key=lambda u: -strength.get(u, 0.0))  # stable: ties stay shuffled
        groups = [[] for _ in plans]
        snake = [*range(len(plans)), *reversed(range(len(plans)))]
        turn = 0
        for user in order:
            while len(groups[snake[turn % len(snake)]]) >= plans[snake[turn % len(snake)]].humans:
                turn += 1
            groups[snake[turn % len(snake)]].append(user)
            turn += 1
        for group in groups:
            rng.shuffle(group)
    out: list[list[int | None]] = []
    for plan, group in zip(plans, groups, strict=True):
        seats: list[int | None] = list(group)
        seats.extend([None] * plan.computers)
        out.append(seats)
    return out


def table_seed(event_seed: int | str, round_no: int, table_no: int, duplicate: bool) -> int:
    """The seed of a table's game; with duplicate deals every table of a round shares it."""
    key = f"seed:{event_seed}:{round_no}" + ("" if duplicate else f":{table_no}")
    return random.Random(key).getrandbits(62)


def duplicate_deals(rules: Rules, seed: int, hands: int = DUPLICATE_HANDS) -> list[list[list[str]]]:
    """``hands`` deals for a table of ``rules.players``: the same for every table given the
    same seed."""
    deals = []
    rng = random.Random(f"deals:{seed}")
    for _ in range(hands):
        game = Game(rules, seed=rng.getrandbits(62))
        deals.append([[c.code for c in game.hand(s)] for s in range(rules.players)])
    return deals


# ------------------------------------------------------------------ places and advancing


@dataclass(frozen=True)
class SeatResult:
    """One seat's outcome at a finished table of a round."""

    table_no: int
    seat: int
    user_id: int | None
    total: Score
    place: int
    eligible: bool
    """A person who may advance: not a computer, not a no-show, not removed."""


def places(
    rules: Rules, totals: Sequence[Score], hand_points: Sequence[Sequence[Score]], seed: int | str
) -> list[int]:
    """Each seat's place (1 = best) from the final totals, countback, then a seeded draw.

    ``hand_points`` is the points of each hand, in order, per seat.
    """
    draw_order = list(range(len(totals)))
    random.Random(f"places:{seed}").shuffle(draw_order)

    def key(seat: int) -> tuple[Any, ...]:
        countback = tuple(rank_key(rules, hand[seat]) for hand in reversed(hand_points))
        return (rank_key(rules, totals[seat]), countback, draw_order.index(seat))

    ranked = sorted(range(len(totals)), key=key)
    out = [0] * len(totals)
    for place, seat in enumerate(ranked, start=1):
        out[seat] = place
    return out


def _order_key(rules: Rules, r: SeatResult, seed: int | str) -> tuple[Any, ...]:
    tiebreak = random.Random(f"order:{seed}:{r.table_no}:{r.seat}").random()
    return (not r.eligible, r.place, rank_key(rules, r.total), tiebreak)


def advancing(
    rules: Rules,
    results: Sequence[SeatResult],
    *,
    per_table: int,
    overall: int | None,
    table_size: int,
    seed: int | str,
) -> list[int]:
    """The user ids that go on to the next round, best first (see the module's notes)."""
    eligible = [r for r in results if r.eligible and r.user_id is not None]
    field = len([r for r in results if r.user_id is not None])
    ordered = sorted(eligible, key=lambda r: _order_key(rules, r, seed))
    if overall is not None:
        count = overall if overall < field else table_size
        chosen = ordered[: min(count, max(field - 1, 0))]
        return [r.user_id for r in chosen if r.user_id is not None]
    k = per_table
    while k > 0:
        chosen = []
        for table_no in sorted({r.table_no for r in results}):
            at_table = [r for r in ordered if r.table_no == table_no]
            chosen.extend(at_table[:k])
        if len(chosen) < field or field <= 1:
            chosen.sort(key=lambda r: _order_key(rules, r, seed))
            return [r.user_id for r in chosen if r.user_id is not None]
        k -= 1
    return []


def final_ranking(
    rules: Rules, rounds: Sequence[Sequence[SeatResult]], seed: int | str
) -> list[int]:
    """Every person who played, best first: the last round's places, then earlier rounds."""
    ranked: list[int] = []
    for results in reversed(rounds):
        for r in sorted(results, key=lambda r: _order_key(rules, r, seed)):
            if r.user_id is not None and r.user_id not in ranked:
                ranked.append(r.user_id)
    return ranked


# ------------------------------------------------------------------ time


REMINDERS: Final = (("day", timedelta(days=1)), ("hour", timedelta(hours=1)))
"""Reminders before the start: their kind and how long before it they are posted."""


def due_reminders(
    starts_at: datetime | None, created_at: datetime, now: datetime, sent: set[str]
) -> list[str]:
    """The reminders to post now: due, not sent, still before the start, and not already
    due when the tournament was created (a tournament made 3 hours ahead gets no 'tomorrow')."""
    if starts_at is None or now >= starts_at:
        return []
    out = []
    for kind, before in REMINDERS:
        due = starts_at - before
        if kind not in sent and created_at < due <= now:
            out.append(kind)
    return out


def next_due(
    starts_at: datetime | None,
    deadline: datetime | None,
    created_at: datetime,
    now: datetime,
    sent: set[str],
) -> datetime | None:
    """The next moment something of a tournament in registration happens, if any."""
    moments = []
    if starts_at is not None:
        for kind, before in REMINDERS:
            due = starts_at - before
            if kind not in sent and due > created_at:
                moments.append(due)
        moments.append(starts_at)
    if deadline is not None and "deadline" not in sent:
        moments.append(deadline)
    upcoming = [m for m in moments if m > now]
    return min(upcoming, default=None)
