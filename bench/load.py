"""Load: many tables of four people playing at once against one bot, through the double.

    python -m bench load [--tables 100] [--hands 1] [--think 2 6] [--seed 1]
    python -m bench load --computers 3 [--sweep 5 10 20] [--workers 2]

One bot (in this process, production pacing: `Tuning()` with the `AIORateLimiter` on) runs
against the Bot API double with Telegram's flood limits on (`RateLimits()`). Every table has
four simulated people; each one presses a legal card in their DM after a think time, as a
person would, until every table has played `--hands` hands (the passes included), and the
host then cancels the game. Printed: time from a press to the bot's answer
(answerCallbackQuery) and to the edit of the DM that shows the card gone, time from the
start of a turn to the edit of that person's DM, updates handled per second, peak memory,
errors and 429s. Everything listens on 127.0.0.1 only, and the run stops by itself
(`--deadline` seconds at most).

The simulated people read whose turn it is and which cards are legal from the bot's memory
(in process); they press only buttons their DM shows.

With ``--computers K``, K seats of every table are `expert` computer players (the people
hold the rest) and the bot thinks with ``--workers`` processes (default: one per core).
Measured besides: a person's wait for the computers' moves, from their card's press to
their next turn (the last computer's move before it stored: three moves on average,
none when they won the trick and lead at once, which is not counted), and the same beyond
the computers' natural pace (each waits ``computer_delay``, 1 s, before it moves: a pause
the bot makes on purpose); what the worker pool's line did (the moves' wait in it, how
many were given only their level's floor); and how long storing a move took. ``--sweep``
runs one table count after another and says how many tables the machine carried with that
wait's p95, beyond the pace, under `CARRIED_P95` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import dataclasses
import functools
import itertools
import json
import logging
import os
import random
import re
import resource
import statistics
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from telegram.ext import Application

from bot.app import build_application, polling, rooms_of
from bot.computers.thinker import LineFigures
from bot.config import Settings, Tuning
from bot.rooms import Rooms
from bot.sandbox_runner import free_port
from bot.tables.model import Table
from domain.people import ChatSettings
from sandbox.double import BotApiDouble
from sandbox.limits import RateLimits
from sandbox.people import Group, NotAnswered, SandboxUser
from sandbox.postgres_server import PostgresServer
from sandbox.testing import running_double
from sandbox.views import CallbackRecord, Event
from sandbox.webapp import init_data
from storage import is_postgres

CARRIED_P95 = 2.0
"""Seconds: a table count is carried while a person's wait for the computers' moves, beyond
their natural pace, stays under this at the 95th percentile."""
DEFAULT_SWEEP = (4, 8)
"""Table counts of ``--computers`` without ``--tables`` or ``--sweep``: a quick look."""


@dataclass(frozen=True)
class LoadConfig:
    tables: int = 100
    hands: int = 1
    think: tuple[float, float] = (2.0, 6.0)
    """Seconds a person takes per press: a person's pace. (0.3, 1.0) is a stress run that
    asks for more updates than Telegram's 30 a second allow; it degrades, it must not fail."""
    seed: int = 1
    ramp: float = 30.0
    """Seconds over which the tables open, one after the other (people do not all start
    in the same second)."""
    deadline: float = 600.0
    """Seconds the whole run may take; past it the people stop pressing."""
    answer_timeout: float = 30.0
    pages: int = 0
    """People at each table who play on the table page (the Mini App) instead of their
    DM's buttons."""
    lean: bool = True
    """The bot's lean edits (False: every card edits every DM, as before issue 17)."""
    computers: int = 0
    """Seats of each table that are `expert` computer players (0 to 3); people hold the rest."""
    workers: int = 1
    """The bot's worker processes for the computers and the coach (`Tuning.thinker_workers`)."""
    computer_delay: float = 1.0
    """Seconds a computer waits before it moves (`Tuning.computer_delay`: production's)."""
    bots: int = 1
    """Bot accounts sharing the tables (each its own double, its own limits; several
    share one PostgreSQL database)."""


def page_command(data: str) -> dict[str, object]:
    """A DM button's data (``c:<game>:<hand>:<card>``) as the page's typed command
    (`bot.live.commands`): the bench presses the same moves on either."""
    action, game, hand, arg = data.split(":", 3)
    command: dict[str, object] = {"game": int(game), "hand": int(hand)}
    if action == "c":
        return {"type": "card", "card": arg, **command}
    if action == "m":
        return {"type": "moon", "choice": "subtract" if arg == "s" else "add", **command}
    return {"type": {"p": "pass", "h": "hint"}[action], **command}


@dataclass
class Press:
    record: CallbackRecord
    answered: float | None = None
    """When the double got the answer (its clock, like ``record.created``)."""

    @property
    def toast(self) -> str | None:
        return self.record.answer.text if self.record.answer is not None else None


class LogCounter(logging.Handler):
    """Counts the bot's log records by level, and keeps the first few errors."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.levels: Counter[str] = Counter()
        self.rate_limit_retries = 0
        self.samples: list[str] = []
        self.error_samples: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.levels[record.levelname] += 1
        if record.getMessage().startswith("Rate limit hit"):
            self.rate_limit_retries += 1
        if record.levelno >= logging.WARNING and len(self.samples) < 10:
            self.samples.append(f"{record.levelname} {record.name}: {record.getMessage()[:200]}")
        if record.levelno >= logging.ERROR and len(self.error_samples) < 5:
            # An error is kept whole, with its traceback: one error in a run of thousands of
            # moves must be understood from the report alone.
            said = f"{record.levelname} {record.name}: {record.getMessage()}"
            if record.exc_info:
                said += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
            self.error_samples.append(said)


@dataclass
class LoadResult:
    config: LoadConfig
    tables_done: int
    presses: list[Press]
    play_seconds: float
    setup_seconds: float
    updates: int
    answer_latencies: list[float]
    edit_latencies: list[float]
    turn_latencies: list[float]
    unanswered: int
    unexpected_toasts: list[str]
    bot_errors: int
    bot_warnings: int
    bot_samples: list[str]
    rate_limit_retries: int
    double_errors: Counter[str]
    too_many_requests: Counter[str]
    calls: Counter[str]
    peak_rss_mb: float
    start_rss_mb: float
    hit_deadline: bool
    page_answer: list[float] = field(default_factory=list)
    page_own: list[float] = field(default_factory=list)
    page_others: list[float] = field(default_factory=list)
    extra: dict[str, float] = field(default_factory=dict)
    computer_waits: list[tuple[float, int]] = field(default_factory=list)
    """Each measured play: its press → the person's next turn (the last computer's move
    stored), in seconds, and how many computers' moves came between."""
    line: LineFigures = field(default_factory=LineFigures)
    """The worker pool's line over the run."""
    storing: list[float] = field(default_factory=list)
    """Each move's transaction (seconds)."""

    @property
    def waits(self) -> list[float]:
        """A person's waits for the computers' moves between their turns (seconds)."""
        return [wait for wait, _ in self.computer_waits]

    @property
    def beyond_pace(self) -> list[float]:
        """`waits` less the computers' natural pace (a `computer_delay` a move)."""
        delay = self.config.computer_delay
        return [wait - moves * delay for wait, moves in self.computer_waits]

    writes: Counter[str] = field(default_factory=Counter)
    """The Bot API writes (sends, edits, deletes) by kind (`WriteTally`)."""
    turns: int = 0
    """Turns to play a card measured for `turn_latencies` (a turn whose DM never showed
    "Your turn." has no latency: it is counted here)."""
    writes_playing: int = 0
    """Messages sent and edited from the first deal until every table ended (the writes
    left to send then, coalesced, come after)."""
    error_samples: list[str] = field(default_factory=list)
    """The bot's first errors, each with its traceback."""
    turns_by_priority: Counter[str] = field(default_factory=Counter)
    """The requests that waited for a turn in the bot's overall pace, by priority (its
    metrics' ``hearts_outbox_wait_seconds``): what the budget was spent on."""

    @property
    def plays(self) -> int:
        """Cards played by the people (the presses the bot took as a play)."""
        return sum(
            p.record.data.startswith("c:") and (p.toast or "").startswith("Played")
            for p in self.presses
        )

    @property
    def writes_per_card(self) -> float:
        """Messages sent and edited per card played (issue 35.4: the deletes are shown
        apart, as the issue's figure leaves them out)."""
        written = self.calls["editMessageText"] + self.calls["sendMessage"]
        written += self.calls["sendPhoto"]
        return written / max(self.plays, 1)

    @property
    def writes_in_hands(self) -> int:
        """The writes a hand itself costs, between its deal and its last card: the DMs'
        edits while the game goes on, the "your turn" notices and the groups' edits. The
        rest are the tables' setting up and ending (the people's /start, the lobby, the
        first DMs, the results and the /cancel the bench ends each table with): a real
        game of several hands pays those once."""
        w = self.writes
        dm = sum(w[f"dm edited: {k}"] for k in ("their turn", "mid-trick", "trick done"))
        dm += w["dm edited: pass"] + w["dm edited: moon"]
        return dm + w["dm sent: your turn"] + w["group edited: in a hand"]

    @property
    def errors(self) -> int:
        return (
            self.bot_errors
            + sum(self.double_errors.values())
            + self.unanswered
            + len(self.unexpected_toasts)
            + (self.config.tables - self.tables_done)
        )

    @property
    def count_429(self) -> int:
        return sum(self.too_many_requests.values())

    def computer_lines(self, ms: Callable[[list[float], float], str]) -> list[str]:
        line = self.line
        moves = max(line.moves, 1)
        between = [n for _, n in self.computer_waits]
        return [
            f"  a person's wait for the computers' moves (press → their next turn, "
            f"{statistics.mean(between or [0]):.1f} moves between on average, "
            f"{self.config.workers} worker(s)): median {ms(self.waits, 0.5)}, "
            f"p95 {ms(self.waits, 0.95)}, max {max(self.waits, default=0) * 1000:.0f} ms "
            f"({len(self.waits)} plays)",
            f"    beyond their natural pace ({self.config.computer_delay:.1f} s a move): median "
            f"{ms(self.beyond_pace, 0.5)}, p95 {ms(self.beyond_pace, 0.95)}, "
            f"max {max(self.beyond_pace, default=0) * 1000:.0f} ms",
            f"  the thinker's line: {line.moves} computer moves, "
            f"{100 * line.at_floor / moves:.0f}% given only their level's floor, "
            f"budget {line.budget_ms / moves:.0f} ms on average; "
            f"wait in line {1000 * line.waited_s / moves:.0f} ms on average, "
            f"longest {1000 * line.longest_wait_s:.0f} ms; longest line {line.longest_line}; "
            f"thinking {1000 * line.thought_s / moves:.0f} ms on average",
            f"  storing a move (every move, the journal's transaction): median "
            f"{ms(self.storing, 0.5)}, p95 {ms(self.storing, 0.95)}, "
            f"max {max(self.storing, default=0) * 1000:.0f} ms",
        ]

    def report(self) -> str:
        def ms(values: list[float], q: float) -> str:
            if not values:
                return "-"
            if q == 0.5:
                return f"{statistics.median(values) * 1000:.0f} ms"
            cut = statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]
            return f"{cut * 1000:.0f} ms"

        people = 4 - self.config.computers
        lines = [
            f"load: {self.config.tables} tables × {people} people"
            + (f" and {self.config.computers} expert computers" if self.config.computers else "")
            + f" ({self.config.pages} on the table page), {self.config.hands} hand(s) each, "
            f"{'lean' if self.config.lean else 'every card edits every DM'}, "
            f"think {self.config.think[0]}–{self.config.think[1]} s, "
            f"tables opened over {self.config.ramp:.0f} s",
            f"  until the last table was dealt: {self.setup_seconds:.1f} s; "
            f"from the first deal to the end: {self.play_seconds:.1f} s; "
            f"tables finished: {self.tables_done}"
            + (" (DEADLINE HIT)" if self.hit_deadline else ""),
            f"  presses: {len(self.presses)}; updates: {self.updates} "
            f"({self.updates / max(self.play_seconds, 1e-9):.1f}/s handled while playing)",
            f"  press → answer:   median {ms(self.answer_latencies, 0.5)}, "
            f"p99 {ms(self.answer_latencies, 0.99)}, "
            f"max {max(self.answer_latencies, default=0) * 1000:.0f} ms",
            f"  press → DM edit:  median {ms(self.edit_latencies, 0.5)}, "
            f"p99 {ms(self.edit_latencies, 0.99)}, "
            f"max {max(self.edit_latencies, default=0) * 1000:.0f} ms "
            f"({len(self.edit_latencies)} plays)",
            f"  turn → that person's DM edit: median {ms(self.turn_latencies, 0.5)}, "
            f"p99 {ms(self.turn_latencies, 0.99)}, "
            f"max {max(self.turn_latencies, default=0) * 1000:.0f} ms "
            f"({len(self.turn_latencies)} of {self.turns} turns ever shown)",
            *(
                [
                    f"  page press → answer: median {ms(self.page_answer, 0.5)}, "
                    f"p99 {ms(self.page_answer, 0.99)}",
                    f"  page press → own page updated: median {ms(self.page_own, 0.5)}, "
                    f"p99 {ms(self.page_own, 0.99)} ({len(self.page_own)} plays)",
                    f"  page press → the table's other open page: median "
                    f"{ms(self.page_others, 0.5)}, p99 {ms(self.page_others, 0.99)}",
                ]
                if self.config.pages
                else []
            ),
            *(self.computer_lines(ms) if self.config.computers else []),
            f"  peak memory (RSS, bot + double + people in one process): "
            f"{self.peak_rss_mb:.0f} MB (before the bot started: {self.start_rss_mb:.0f} MB)",
            f"  errors: {self.errors} (bot logged {self.bot_errors} errors; double answered "
            f"{sum(self.double_errors.values())} errors other than 429; "
            f"{self.unanswered} presses unanswered; "
            f"{len(self.unexpected_toasts)} unexpected toasts)",
            f"  429s: {self.count_429} {dict(self.too_many_requests)}; "
            f"rate limiter retries: {self.rate_limit_retries}; bot warnings: {self.bot_warnings}",
            f"  Bot API calls: {dict(self.calls.most_common())}",
            f"  writes per card: {self.writes_per_card:.2f} (edits and sends, "
            f"{self.plays} cards played; deletes besides: "
            f"{self.calls['deleteMessage'] / max(self.plays, 1):.2f} a card)",
            f"  writes per card while playing (from the first deal until every table ended): "
            f"{self.writes_playing / max(self.plays, 1):.2f}",
            f"  writes per card in the hands (the DMs' edits and notices and the groups' "
            f"edits from a deal to its last card): {self.writes_in_hands / max(self.plays, 1):.2f}",
            f"  writes by kind: {dict(sorted(self.writes.items()))}",
            f"  paced requests by priority: {dict(self.turns_by_priority.most_common())}",
        ]
        if self.double_errors:
            lines.append(f"  double errors: {dict(self.double_errors)}")
        if self.unexpected_toasts:
            # "c:12:1:QS: 'It is not your turn.'" → "c: 'It is not your turn.'"
            kinds = Counter(
                re.sub(r"^(\w+):[\w:]*?: ", r"\1: ", re.sub(r"\d+", "N", u))[:90]
                for u in self.unexpected_toasts
            )
            lines.append(f"  unexpected toasts by kind: {dict(kinds.most_common(8))}")
            lines.append(f"  first unexpected toasts: {self.unexpected_toasts[:3]}")
        if self.bot_samples:
            lines.append("  first bot warnings/errors:")
            lines.extend(f"    {s}" for s in self.bot_samples)
        if self.error_samples:
            lines.append("  the bot's errors, whole:")
            lines.extend("    " + s.replace("\n", "\n    ") for s in self.error_samples)
        return "\n".join(lines)


class WriteTally:
    """Counts the Bot API writes as the double records them, by kind: the group's messages;
    in a DM, the edits that show the reader's turn, the others (in the passing, in the
    middle of a trick, once it is complete: the table's state when the edit arrives), the
    "your turn" notices and the reminders. Read from the bot's memory (in process)."""

    def __init__(self, rooms: Callable[[], Rooms]) -> None:
        self.rooms = rooms
        self.kinds: Counter[str] = Counter()

    def __call__(self, event: Event) -> None:
        if event.kind not in ("sent", "edited", "deleted"):
            return
        if event.chat_id < 0:
            self.kinds[f"group {event.kind}"] += 1
            if event.kind == "edited" and self.in_a_hand(event.chat_id):
                self.kinds["group edited: in a hand"] += 1
            return
        if event.kind == "deleted":
            self.kinds["dm deleted"] += 1
            return
        text = event.message.text or "" if event.message is not None else ""
        if event.kind == "sent":
            if text.startswith(("👉", "🌕")):
                self.kinds["dm sent: your turn"] += 1
            elif text.startswith("⏰"):
                self.kinds["dm sent: reminder"] += 1
            else:
                self.kinds["dm sent: other"] += 1
            return
        if "Your turn." in text:
            self.kinds["dm edited: their turn"] += 1
            return
        self.kinds[f"dm edited: {self.dm_kind(event.chat_id)}"] += 1

    def in_a_hand(self, chat_id: int) -> bool:
        """Whether a game in the group is between its deal and its end."""
        for table in self.rooms().registry.of_chat(chat_id):
            if table.game is not None and table.game.phase != "over":
                return True
        return False

    def dm_kind(self, user_id: int) -> str:
        table = self.rooms().registry.of_user(user_id)
        game = table.game if table is not None else None
        if game is None:
            return "no game"
        if game.phase != "play":
            return game.phase
        return "mid-trick" if game.trick else "trick done"


def paced_by_priority(app: Application) -> Counter[str]:  # type: ignore[type-arg]
    """How many requests waited for a turn in the bot's overall pace, by priority."""
    counts: Counter[str] = Counter()
    metrics = getattr(app, "metrics", None)
    if metrics is None:
        return counts
    for family in metrics.registry.collect():
        if family.name != "hearts_outbox_wait_seconds":
            continue
        for sample in family.samples:
            if sample.name.endswith("_count"):
                counts[sample.labels["priority"]] += int(sample.value)
    return counts


def _rss_mb() -> float:
    # ru_maxrss is in kilobytes on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class BenchPage:
    """One person's open table page: a WebSocket, and when each state arrived."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse, seat: int) -> None:
        self.socket = socket
        self.seat = seat
        self.states: list[tuple[float, set[str], set[str]]] = []
        """(arrival, the seat's cards, the cards on the table: the trick and the last)."""
        self.answers: dict[int, tuple[float, str]] = {}
        self.answered = asyncio.Event()

    async def read(self) -> None:
        async for message in self.socket:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue
            now = time.monotonic()
            said = json.loads(message.data)
            if said["t"] == "state":
                last = (said["last_trick"] or {}).get("plays", [])
                shown = {c["code"] for c in said["trick"]} | {c["code"] for c in last}
                self.states.append((now, {c["code"] for c in said["cards"]}, shown))
            elif said["t"] == "answer":
                self.answers[said["id"]] = (now, said["text"])
                self.answered.set()

    def first(self, since: float, seen: Callable[[set[str], set[str]], bool]) -> float | None:
        for at, cards, shown in self.states:
            if at >= since and seen(cards, shown):
                return at
        return None


class LoadRun:
    def __init__(self, config: LoadConfig, double: BotApiDouble, app: Application) -> None:  # type: ignore[type-arg]
        self.config = config
        self.double = double
        self.app = app
        self.rng = random.Random(config.seed)
        self.presses: list[Press] = []
        self.unexpected: list[str] = []
        self.stop_at = time.monotonic() + config.deadline
        self.hit_deadline = False
        self.turns: list[tuple[int, float]] = []
        """(a person's DM, when their turn to play began): for `turn_latencies`."""
        self.taken: dict[int, float] = {}
        """When each table's latest press was made (the double's clock): the press that
        made it someone's turn, for `turns`."""
        self.seated_at: list[float] = []
        self.page_presses: list[tuple[float, str, BenchPage, list[BenchPage]]] = []
        """(sent, card, the presser's page, the table's other pages) of each page play."""
        self._ids = itertools.count(1)
        self.page_answers: list[float] = []
        self.readers: set[asyncio.Task[None]] = set()
        self.page_url = ""
        self.pages_of: dict[int, dict[int, BenchPage]] = {}
        self.session: aiohttp.ClientSession | None = None
        self.move_times: dict[int, list[float]] = {}
        """When each table's moves were stored, in order."""
        self.moved: dict[int, asyncio.Event] = {}
        self.awaiting: dict[int, tuple[int, Press]] = {}
        """Each table's last play measured: its moves stored before the press, the press."""
        self.computer_waits: list[tuple[float, int]] = []
        self.storing: list[float] = []
        """How long storing each move took (the journal's transaction)."""

    @property
    def rooms(self) -> Rooms:
        rooms = rooms_of(self.app)
        assert rooms is not None
        return rooms

    def watch_moves(self) -> None:
        """Note when each move is stored (the registry hears of every one)."""
        registry = self.rooms.registry
        moved = registry.moved

        def noted(game_id: int, version: int) -> None:
            moved(game_id, version)
            self.move_times.setdefault(game_id, []).append(time.monotonic())
            self.moved.setdefault(game_id, asyncio.Event()).set()

        registry.moved = noted  # type: ignore[method-assign]
        journal = self.rooms.storage.games
        record_move = journal.record_move

        async def timed(*args: Any, **kwargs: Any) -> int:
            began = time.monotonic()
            try:
                return await record_move(*args, **kwargs)
            finally:
                self.storing.append(time.monotonic() - began)

        journal.record_move = timed  # type: ignore[method-assign]

    async def next_move(self, table: Table, version: int) -> None:
        """Wait until the table stores a move after `version` (a computer's)."""
        event = self.moved.setdefault(table.id, asyncio.Event())
        while self.rooms.registry.version(table.id) == version:
            if time.monotonic() > self.stop_at:
                return
            event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), 1.0)

    def turn_came(self, table: Table) -> None:
        """The person's turn to play came: their wait since their last play, if the
        computers moved between (not when they won the trick and lead at once)."""
        measured = self.awaiting.pop(table.id, None)
        if measured is None:
            return
        before, press = measured
        times = self.move_times.get(table.id, [])
        between = len(times) - before - 1
        if between > 0 and (press.toast or "").startswith("Played"):
            self.computer_waits.append((times[-1] - press.record.created, between))

    def _think(self) -> float:
        low, high = self.config.think
        return self.rng.uniform(low, high)

    async def press(self, table: Table, person: SandboxUser, data: str, expect: str) -> str | None:
        """Press the DM button with this data once the DM shows it; count odd answers."""
        try:
            message_id = await self.double.wait_for(
                lambda: _shows(self.double, table, person, data), self.config.answer_timeout
            )
        except TimeoutError:
            self.unexpected.append(f"{data}: the DM never showed the button")
            return None
        before = set(self.double.callbacks)
        moves = len(self.move_times.get(table.id, []))
        game, seat = table.game, table.seat_of(person.id)
        # A play with computers' moves to follow before their next turn (not the last card).
        measured = bool(self.config.computers) and expect.startswith("Played")
        measured = measured and game is not None and seat is not None and len(game.hand(seat)) > 1
        await person.press(person.dm, message_id, data=data, wait=False)
        (record,) = (c for i, c in self.double.callbacks.items() if i not in before)
        self.presses.append(press := Press(record))
        self.taken[table.id] = max(self.taken.get(table.id, 0.0), record.created)
        if measured:
            self.awaiting[table.id] = (moves, press)
        try:
            await self.double.wait_for(
                lambda: record.answer is not None, self.config.answer_timeout
            )
        except TimeoutError:
            return None
        assert record.answer is not None
        toast = record.answer.text
        if not (toast or "").startswith(expect):
            self.unexpected.append(f"{data}: {toast!r}")
        return toast

    async def press_page(
        self, page: BenchPage, others: list[BenchPage], data: str, expect: str
    ) -> None:
        """Press on the table page; the answer comes on the same connection."""
        press_id = next(self._ids)
        sent = time.monotonic()
        said = {"t": "press", "id": press_id, "command": page_command(data)}
        await page.socket.send_str(json.dumps(said))
        deadline = sent + self.config.answer_timeout
        while press_id not in page.answers and time.monotonic() < deadline:
            page.answered.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(page.answered.wait(), 1.0)
        answer = page.answers.get(press_id)
        if answer is None:
            self.unexpected.append(f"{data}: the page never answered")
            return
        self.page_answers.append(answer[0] - sent)
        if not answer[1].startswith(expect):
            self.unexpected.append(f"{data}: {answer[1]!r} (page)")
        elif data.startswith("c:") and expect.startswith("Played"):
            self.page_presses.append((sent, data.rsplit(":", 1)[1], page, others))

    async def open_pages(self, table: Table, people: list[SandboxUser]) -> dict[int, BenchPage]:
        """The first `pages` people of the table open its page."""
        assert self.session is not None
        pages: dict[int, BenchPage] = {}
        for person in people[: self.config.pages]:
            seat = table.seat_of(person.id)
            assert seat is not None
            socket = await self.session.ws_connect(self.page_url)
            data = init_data(self.double.token, {"id": person.id, "first_name": person.name})
            await socket.send_str(json.dumps({"t": "hello", "init": data, "game": table.id}))
            page = pages[person.id] = BenchPage(socket, seat)
            self.readers.add(asyncio.create_task(page.read()))
        await self.double.wait_for(lambda: all(p.states for p in pages.values()), 10)
        return pages

    async def monitor(self, every: float) -> None:
        """Print a line of progress to stderr every `every` seconds."""
        began = time.monotonic()
        seen = 0
        while True:
            await asyncio.sleep(every)
            fresh = self.presses[seen:]
            seen = len(self.presses)
            waits = sorted(
                time.monotonic() - p.record.created for p in fresh if p.record.answer is None
            )
            outbox = self.rooms.outbox
            print(
                f"[{time.monotonic() - began:5.0f} s] presses {seen} (+{len(fresh)}), "
                f"still unanswered of those {len(waits)}, "
                f"429s {self.double.error_count(429)}, other errors "
                f"{len(self.double.errors) - self.double.error_count(429)}, "
                f"edits pending {outbox.state_sizes()['pending']}, "
                f"requests in flight {self.double._in_flight}",
                file=sys.stderr,
                flush=True,
            )

    async def setup_table(self, n: int) -> tuple[Table, list[SandboxUser], Group] | None:
        """Four people open their DMs, one opens a table, three join, it starts.

        None (and counted) if the bot did not answer a step in time.
        """
        double = self.double
        await asyncio.sleep(self.config.ramp * n / max(self.config.tables, 1))
        humans = 4 - self.config.computers
        people = [double.create_user(f"P{n}-{i}", username=f"p{n}_{i}") for i in range(humans)]
        group = double.create_group(f"Table {n}", members=people, admins=people[:1])
        timeout = self.config.answer_timeout
        if self.config.computers:
            settings = ChatSettings(group.id, computer_level="expert")
            await self.rooms.storage.people.save_chat_settings(settings)
        try:
            for person in people:
                await person.start_bot()
            await double.wait_for(lambda: all(p.dm_view().last() for p in people), timeout)
            await people[0].send(group, "/newgame")
            lobby = await double.wait_for(lambda: _lobby(double, group), timeout)
            for person in people[1:]:
                await asyncio.sleep(self._think())
                await person.press(group, lobby, "✋ Join", timeout=timeout)
            table = next(t for t in self.rooms.registry.tables.values() if t.chat_id == group.id)
            for _ in range(self.config.computers):
                await people[0].press(group, lobby, "🤖 Add computer", timeout=timeout)
            await double.wait_for(lambda: None not in table.seats, timeout)
            toast = await people[0].press(group, lobby, "▶ Start", timeout=timeout)
        except (TimeoutError, NotAnswered) as error:
            self.unexpected.append(f"table {n} setup: {error}")
            return None
        if toast != "Dealing the cards…":
            self.unexpected.append(f"table {n} start: {toast!r}")
        return table, people, group

    async def play_table(self, table: Table, people: list[SandboxUser]) -> bool:
        """Play `hands` hands; True if the table got there before the deadline."""
        by_user = {p.id: p for p in people}
        self.pages_of[table.id] = await self.open_pages(table, people) if self.config.pages else {}
        g = table.id
        while True:
            game = table.game
            if game is None or game.phase == "over" or game.hand_number > self.config.hands:
                return True
            if time.monotonic() > self.stop_at:
                self.hit_deadline = True
                return False
            hand = game.hand_number
            version = self.rooms.registry.version(g)
            people_waited = [s for s in game.waiting_for() if not _computer(table, s)]
            if not people_waited:  # computers to move
                await self.next_move(table, version)
                continue
            if game.phase == "pass":
                await asyncio.gather(
                    *(
                        self._pass(table, seat, by_user[_user(table, seat)])
                        for seat in people_waited
                    )
                )
                continue
            (seat,) = people_waited
            person = by_user[_user(table, seat)]
            if game.phase == "play":
                self.turn_came(table)
            if game.phase == "play" and person.id not in self.pages_of.get(table.id, {}):
                # (On the page it is the page that shows the turn, not the DM.)
                # The turn began when the bot was given the card before it (its screen
                # may be edited before this loop sees the turn in memory).
                self.turns.append((person.dm, self.taken.get(table.id, time.monotonic())))
            await asyncio.sleep(self._think())
            if game.phase == "moon":
                await self.act(table, person, f"m:{g}:{hand}:a", "Done")
                continue
            card = self.rng.choice(game.legal_plays())
            await self.act(table, person, f"c:{g}:{hand}:{card.code}", f"Played {card.symbol}")

    async def run_table(self, n: int) -> bool:
        """Open table ``n`` and play it at once, as people do once the cards are dealt."""
        seated = await self.setup_table(n)
        if seated is None:
            return False
        table, people, group = seated
        self.seated_at.append(time.monotonic())
        done = await self.play_table(table, people)
        if done and table.status == "active":
            # The hands to measure are played: the host ends the game, so that no turn
            # timer plays on for the people who stopped.
            await people[0].send(group, "/cancel")
            try:
                await self.double.wait_for(
                    lambda: table.status == "cancelled", self.config.answer_timeout
                )
            except TimeoutError:
                self.unexpected.append(f"table {n}: /cancel was not obeyed")
        return done

    async def _pass(self, table: Table, seat: int, person: SandboxUser) -> None:
        game = table.game
        assert game is not None
        g, hand = table.id, game.hand_number
        for count, card in enumerate(self.rng.sample(game.hand(seat), 3), start=1):
            await asyncio.sleep(self._think())
            await self.act(table, person, f"c:{g}:{hand}:{card.code}", f"{count}/3 selected")
        await asyncio.sleep(self._think())
        await self.act(table, person, f"p:{g}:{hand}:", "Passed")

    async def act(self, table: Table, person: SandboxUser, data: str, expect: str) -> None:
        """A press on the person's table page if they have it open, else in their DM."""
        pages = self.pages_of.get(table.id, {})
        page = pages.get(person.id)
        if page is None:
            await self.press(table, person, data, expect)
            return
        others = [p for p in pages.values() if p is not page]
        await self.press_page(page, others, data, expect)


def _computer(table: Table, seat: int) -> bool:
    s = table.seats[seat]
    return s is not None and s.kind == "computer"


def _user(table: Table, seat: int) -> int:
    s = table.seats[seat]
    assert s is not None and s.user_id is not None
    return s.user_id


def _shows(double: BotApiDouble, table: Table, person: SandboxUser, data: str) -> int | None:
    """The id of the person's living DM message if it has the button with this data.

    Cheap on purpose: hundreds of people wait on it, and it runs after every change.
    """
    seat = table.seat_of(person.id)
    message_id = table.ui.dm_message_ids.get(seat) if seat is not None else None
    if message_id is None:
        return None
    message = double.stored_message(person.dm, message_id)
    if message is None or message.deleted or not message.reply_markup:
        return None
    for row in message.reply_markup.get("inline_keyboard", []):
        for button in row:
            if button.get("callback_data") == data:
                return message_id
    return None


def _lobby(double: BotApiDouble, group: Group) -> int | None:
    for message in double.chat_view(group.id).bot_messages:
        if any(b.label == "✋ Join" for b in message.all_buttons()):
            return message.message_id
    return None


def time_answers(double: BotApiDouble, presses: list[Press]) -> None:
    """Set each answered press's `answered` from the double's toast events.

    A person has at most one press waiting at a time, so their toasts come in the order of
    their answered presses.
    """
    toasts: dict[int, list[float]] = {}
    for event in double.events:
        # Presses in DMs only: the lobby's Join and Start presses are not measured.
        if event.kind == "toast" and event.user_id is not None and event.chat_id == event.user_id:
            toasts.setdefault(event.user_id, []).append(event.at)
    by_user: dict[int, list[Press]] = {}
    for press in presses:
        if press.record.answer is not None:
            by_user.setdefault(press.record.user_id, []).append(press)
    for user, answered in by_user.items():
        for press, at in zip(answered, toasts.get(user, []), strict=False):
            press.answered = at


def edit_latencies(double: BotApiDouble, presses: list[Press]) -> list[float]:
    """For each accepted play: press → the first edit of the DM whose buttons lack the card."""
    edits: dict[int, list[tuple[float, frozenset[str]]]] = {}
    for event in double.events:
        if event.kind == "edited" and event.message is not None and event.chat_id > 0:
            data = frozenset(b.callback_data or "" for b in event.message.all_buttons())
            edits.setdefault(event.chat_id, []).append((event.at, data))
    found = []
    for press in presses:
        record = press.record
        if not record.data.startswith("c:") or not (press.toast or "").startswith("Played"):
            continue
        for at, data in edits.get(record.chat_id, []):
            if at >= record.created and record.data not in data:
                found.append(at - record.created)
                break
    return found


def turn_latencies(double: BotApiDouble, turns: list[tuple[int, float]]) -> list[float]:
    """For each turn to play a card: its start (the press of the card before it) → the
    first edit of that person's DM that shows their turn.

    Screens are rendered when their edit is sent, so that edit shows the turn: how long a
    person waits before their phone shows that it is their move.
    """
    edits: dict[int, list[float]] = {}
    for event in double.events:
        shown = event.message.text or "" if event.message is not None else ""
        if event.kind == "edited" and event.chat_id > 0 and "Your turn." in shown:
            edits.setdefault(event.chat_id, []).append(event.at)
    found = []
    for chat_id, began in turns:
        times = edits.get(chat_id, [])
        i = bisect.bisect_left(times, began)
        if i < len(times):
            found.append(times[i] - began)
    return found


def _on_table(card: str, _: set[str], shown: set[str]) -> bool:
    """The page shows `card` on the table."""
    return card in shown


def _left(card: str, cards: set[str], _: set[str]) -> bool:
    """The page's hand no longer holds `card`."""
    return card not in cards


def page_latencies(
    presses: list[tuple[float, str, BenchPage, list[BenchPage]]], *, others: bool
) -> list[float]:
    """For each card played on a page: press → the presser's page without the card, or
    → each other open page of the table showing it on the table."""
    found = []
    for sent, card, page, rest in presses:
        if others:
            for other in rest:
                at = other.first(sent, functools.partial(_on_table, card))
                if at is not None:
                    found.append(at - sent)
        else:
            at = page.first(sent, functools.partial(_left, card))
            if at is not None:
                found.append(at - sent)
    return found


BOT_TOKENS = tuple(f"70000000{n:02d}:AAload-test-token-of-bot-{n:02d}" for n in range(1, 10))
"""The test tokens of the bot accounts a run uses (`LoadConfig.bots`)."""


@dataclass
class _Account:
    """One bot account of a run: its double, its bot, and the tables it carries."""

    double: BotApiDouble
    run: LoadRun
    first_event: int = 0
    tally: WriteTally | None = None


async def run_load(config: LoadConfig, database: Path | str, *, quiet: bool = True) -> LoadResult:
    """Run the load and measure it; nothing is asserted here. `database` is a SQLite file
    or a ``postgresql://`` URL (needed for several bot accounts: `LoadConfig.bots`)."""
    if config.bots > 1 and not is_postgres(database):
        raise ValueError("several bot accounts share a PostgreSQL database, not SQLite")
    counter = LogCounter()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(counter)
    root.setLevel(logging.INFO)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    start_rss = _rss_mb()
    try:
        async with AsyncExitStack() as stack:
            pages = aiohttp.TCPConnector(limit=0)  # 200 pages at once, not aiohttp's 100
            session = await stack.enter_async_context(aiohttp.ClientSession(connector=pages))
            accounts: list[_Account] = []
            for number in range(config.bots):
                double = await stack.enter_async_context(
                    running_double(
                        RateLimits(),
                        callback_timeout=15.0,
                        token=BOT_TOKENS[number],
                        bot_username=f"hearts_load{number + 1}_bot",
                        ids_from=number * 1_000_000,
                    )
                )
                port = free_port()
                postgres = is_postgres(database)
                settings = Settings(
                    bot_token=double.token,
                    telegram_api_base_url=double.base_url,
                    telegram_api_file_url=double.base_file_url,
                    database_url=str(database) if postgres else None,
                    database_path=Path("data/hearts.sqlite3") if postgres else Path(database),
                    webapp_url=f"http://127.0.0.1:{port}/app/" if config.pages else None,
                    webapp_port=port,
                )
                app = build_application(
                    settings,
                    Tuning(
                        lean_edits=config.lean,
                        thinker_workers=config.workers,
                        computer_delay=config.computer_delay,
                    ),
                )
                await stack.enter_async_context(polling(app))
                run = LoadRun(config, double, app)
                run.session = session
                run.page_url = f"ws://127.0.0.1:{port}/app/ws"
                run.watch_moves()
                tally = WriteTally(lambda run=run: run.rooms)  # type: ignore[misc]
                double.watchers.append(tally)
                accounts.append(_Account(double, run, len(double.events), tally))
            runs = [a.run for a in accounts]
            monitor = asyncio.create_task(runs[0].monitor(10.0)) if not quiet else None
            began = time.monotonic()
            # The tables are dealt to the accounts in turn (each its own groups).
            done = await asyncio.gather(
                *(runs[n % len(runs)].run_table(n) for n in range(config.tables))
            )
            ended = time.monotonic()
            seated = [t for r in runs for t in r.seated_at]
            setup_seconds = max(seated, default=ended) - began
            play_began = min(seated, default=ended)
            play_seconds = ended - play_began
            # Every press and message of a person is one update for the bot.
            updates = sum(
                e.kind in ("callback", "user_message") and e.at >= play_began
                for a in accounts
                for e in a.double.events[a.first_event :]
            )
            writes_playing = sum(
                e.kind in ("sent", "edited") and play_began <= e.at <= ended
                for a in accounts
                for e in a.double.events[a.first_event :]
            )
            for account in accounts:
                try:
                    # Quiet for longer than a group's pace (3 s): its last messages (a
                    # hand's result, the /cancel's line) may wait that long for their turn,
                    # and the writes counted must be all of them.
                    await account.double.idle(quiet=4.0, timeout=120)
                except TimeoutError as busy:
                    # Report what kept the bot busy rather than losing the run's figures.
                    recent = [
                        f"{e.kind} {e.method} {e.chat_id}" for e in account.double.events[-8:]
                    ]
                    print(f"  (never idle after play: {busy}; last: {recent})", file=sys.stderr)
            if monitor is not None:
                monitor.cancel()
            for run in runs:
                for reader in run.readers:
                    reader.cancel()
                line = dataclasses.replace(run.rooms.coach.thinker.figures)
            errors: Counter[str] = Counter()
            too_many: Counter[str] = Counter()
            calls: Counter[str] = Counter()
            for account in accounts:
                for error in account.double.errors:
                    kind = "group" if (error.chat_id or 0) < 0 else "dm"
                    if error.error_code == 429:
                        too_many[f"{error.method} {kind}"] += 1
                    else:
                        errors[f"{error.method} {error.error_code} {error.description[:60]}"] += 1
                for (method, _), n in account.double.calls.items():
                    calls[method] += n
                time_answers(account.double, account.run.presses)
            presses = [p for r in runs for p in r.presses]
            answered = [p for p in presses if p.answered is not None]
            return LoadResult(
                config=config,
                tables_done=sum(done),
                presses=presses,
                play_seconds=play_seconds,
                setup_seconds=setup_seconds,
                updates=updates,
                answer_latencies=[
                    p.answered - p.record.created for p in answered if p.answered is not None
                ],
                edit_latencies=[
                    x for a in accounts for x in edit_latencies(a.double, a.run.presses)
                ],
                turn_latencies=[x for a in accounts for x in turn_latencies(a.double, a.run.turns)],
                unanswered=len(presses) - len(answered),
                unexpected_toasts=[u for r in runs for u in r.unexpected],
                bot_errors=counter.levels["ERROR"] + counter.levels["CRITICAL"],
                bot_warnings=counter.levels["WARNING"],
                bot_samples=counter.samples,
                error_samples=counter.error_samples,
                turns_by_priority=sum(
                    (paced_by_priority(a.run.app) for a in accounts), Counter[str]()
                ),
                rate_limit_retries=counter.rate_limit_retries,
                double_errors=errors,
                too_many_requests=too_many,
                calls=calls,
                peak_rss_mb=_rss_mb(),
                start_rss_mb=start_rss,
                hit_deadline=any(r.hit_deadline for r in runs),
                page_answer=[x for r in runs for x in r.page_answers],
                page_own=[x for r in runs for x in page_latencies(r.page_presses, others=False)],
                page_others=[x for r in runs for x in page_latencies(r.page_presses, others=True)],
                computer_waits=[w for r in runs for w in r.computer_waits],
                storing=[x for r in runs for x in r.storing],
                line=line,
                writes=sum((a.tally.kinds for a in accounts if a.tally), Counter()),
                writes_playing=writes_playing,
                turns=sum(len(r.turns) for r in runs),
            )
    finally:
        root.removeHandler(counter)
        root.setLevel(old_level)


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench load",
        description="Many tables of four people playing at once against one bot.",
    )
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--think", type=float, nargs=2, default=(2.0, 6.0), metavar=("MIN", "MAX"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ramp", type=float, default=30.0)
    parser.add_argument("--deadline", type=float, default=600.0)
    parser.add_argument("--progress", action="store_true", help="a line every 10 s on stderr")
    parser.add_argument(
        "--pages", type=int, default=0, help="people per table on the table page (0 to 4)"
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="three runs side by side: every card edits every DM (before issue 17), lean "
        "edits, and lean edits with two people per table on the table page",
    )
    parser.add_argument(
        "--computers",
        type=int,
        default=0,
        choices=range(4),
        help="seats of each table that are expert computers (the people hold the rest)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="the bot's worker processes for the computers (default: 1, or with --computers "
        "one per core)",
    )
    parser.add_argument(
        "--computer-delay",
        type=float,
        default=1.0,
        help="seconds a computer waits before it moves (production's: 1)",
    )
    parser.add_argument(
        "--sweep",
        type=int,
        nargs="+",
        metavar="TABLES",
        help="one run per table count, then how many tables were carried (with --computers, "
        f"default {' '.join(map(str, DEFAULT_SWEEP))} unless --tables is given)",
    )
    parser.add_argument(
        "--bots",
        type=int,
        default=1,
        help="bot accounts on one PostgreSQL database (a server started here), --tables "
        "tables each: shown beside --tables tables on one account (the same server)",
    )
    parser.add_argument(
        "--database",
        default="sqlite",
        help="sqlite (the default), postgresql (a server started here) or a postgresql:// URL",
    )
    args = parser.parse_args()
    explicit_tables = any(a == "--tables" or a.startswith("--tables=") for a in sys.argv[1:])
    workers = args.workers or ((os.cpu_count() or 1) if args.computers else 1)
    sweep: list[int] | None = args.sweep
    if sweep is None and args.computers and not explicit_tables:
        sweep = list(DEFAULT_SWEEP)
    config = LoadConfig(
        tables=args.tables,
        hands=args.hands,
        think=(args.think[0], args.think[1]),
        seed=args.seed,
        ramp=args.ramp,
        deadline=args.deadline,
        pages=args.pages,
        computers=args.computers,
        workers=workers,
        computer_delay=args.computer_delay,
    )
    names = None
    if args.bots > 1:
        runs = [
            config,
            dataclasses.replace(config, tables=config.tables * args.bots, bots=args.bots),
        ]
        names = [f"{config.tables} on 1 account", f"{config.tables * args.bots} on {args.bots}"]
    elif args.compare:
        runs = [
            dataclasses.replace(config, lean=False, pages=0),
            dataclasses.replace(config, pages=0),
            dataclasses.replace(config, pages=2),
        ]
    elif sweep:
        runs = [dataclasses.replace(config, tables=n) for n in sweep]
    else:
        runs = [config]
    server = None
    if args.bots > 1 or args.database == "postgresql":
        server = PostgresServer()
    results = []
    try:
        for run in runs:
            with tempfile.TemporaryDirectory() as folder:
                where: str | Path = Path(folder) / "load.sqlite3"
                if server is not None:
                    where = asyncio.run(server.database())
                elif args.database.startswith("postgresql://"):
                    where = args.database
                result = asyncio.run(run_load(run, where, quiet=not args.progress))
            print(result.report(), flush=True)
            results.append(result)
    finally:
        if server is not None:
            server.stop()
    if sweep and not args.compare and args.bots == 1:
        print(carried(results), flush=True)
    elif len(results) > 1:
        print(side_by_side(results, names), flush=True)
    if any(r.errors for r in results):
        sys.exit(1)


def carried(results: list[LoadResult]) -> str:
    """The sweep in one table: per table count, the person's wait for the computers' moves
    and what the line did; then the most tables carried (p95 beyond the pace under
    `CARRIED_P95`), per core."""
    cores = os.cpu_count() or 1

    def p(values: list[float], q: float) -> float:
        if len(values) < 2:
            return values[0] if values else float("nan")
        return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]

    lines = [
        "",
        f"sweep: {results[0].config.computers} expert computers a table, "
        f"{results[0].config.workers} worker(s), {cores} core(s); the person's wait for the "
        "computers' moves beyond their natural pace",
        f"{'tables':>7} {'per core':>9} {'median':>8} {'p95':>8} {'max':>8} "
        f"{'at floor':>9} {'budget':>8} {'line wait':>10} {'store p95':>10} {'errors':>7}",
    ]
    best: LoadResult | None = None
    for r in results:
        beyond = r.beyond_pace
        moves = max(r.line.moves, 1)
        ok = bool(beyond) and p(beyond, 0.95) < CARRIED_P95 and not r.errors
        if ok and (best is None or r.config.tables > best.config.tables):
            best = r
        lines.append(
            f"{r.config.tables:>7} {r.config.tables / cores:>9.1f} "
            f"{p(beyond, 0.5):>7.2f}s {p(beyond, 0.95):>7.2f}s "
            f"{max(beyond, default=float('nan')):>7.2f}s "
            f"{100 * r.line.at_floor / moves:>8.0f}% {r.line.budget_ms / moves:>6.0f}ms "
            f"{1000 * r.line.waited_s / moves:>8.0f}ms {1000 * p(r.storing, 0.95):>8.0f}ms "
            f"{r.errors:>7}" + ("" if ok else "  ✗")
        )
    if best is None:
        lines.append(f"carried: none of these with p95 under {CARRIED_P95:.0f} s")
    else:
        lines.append(
            f"carried: {best.config.tables} tables ({best.config.tables / cores:.1f} per core) "
            f"with p95 under {CARRIED_P95:.0f} s beyond the computers' pace"
        )
    return "\n".join(lines)


def side_by_side(results: list[LoadResult], names: list[str] | None = None) -> str:
    """The figures of issue 17's point 6 (and of issue 35's accounts), one column per run."""

    def cut(values: list[float], q: float) -> str:
        if not values:
            return "-"
        if q == 0.5:
            value = statistics.median(values)
        else:
            value = statistics.quantiles(values, n=100, method="inclusive")[98]
        return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"

    names = names or ["before (every DM)", "lean edits", "lean + 2 on page"][: len(results)]
    rows = [
        ("tables done", [f"{r.tables_done}/{r.config.tables}" for r in results]),
        ("press → toast, median", [cut(r.answer_latencies, 0.5) for r in results]),
        ("press → toast, p99", [cut(r.answer_latencies, 0.99) for r in results]),
        ("press → own DM, median", [cut(r.edit_latencies, 0.5) for r in results]),
        ("press → own DM, p99", [cut(r.edit_latencies, 0.99) for r in results]),
        ("turn → DM, median", [cut(r.turn_latencies, 0.5) for r in results]),
        ("turn → DM, p99", [cut(r.turn_latencies, 0.99) for r in results]),
        ("page press → own page, median", [cut(r.page_own, 0.5) for r in results]),
        ("page press → own page, p99", [cut(r.page_own, 0.99) for r in results]),
        ("page press → other page, median", [cut(r.page_others, 0.5) for r in results]),
        ("editMessageText calls", [str(r.calls["editMessageText"]) for r in results]),
        ("writes per card", [f"{r.writes_per_card:.2f}" for r in results]),
        (
            "writes per card in the hands",
            [f"{r.writes_in_hands / max(r.plays, 1):.2f}" for r in results],
        ),
        ("play time", [f"{r.play_seconds:.0f} s" for r in results]),
    ]
    lines = ["", f"{'':34}" + "".join(f"{n:>20}" for n in names)]
    lines += [f"{label:34}" + "".join(f"{v:>20}" for v in values) for label, values in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
