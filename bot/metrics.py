"""What an operator watches: one bot's numbers in Prometheus's text format, on ``/metrics``
beside ``/healthz`` (`bot.telegram.health`).

Each bot has a `CollectorRegistry` of its own (never the process's default one), so tests
and the sandbox, which run several bots in one process, keep their numbers apart; and every
series carries the bot's account (its numeric id, the part of the token before the colon,
which is public), so the series of several processes stay apart in Prometheus.

Counted as it happens: updates by kind and handlers' exceptions, Bot API requests by
method and outcome (`AiohttpRequest` sees each one and its status: ``429`` is Telegram's
flood control), moves stored (by kind and by
whom), the phases tables enter (`bot.core.runner.Runner`'s `entered`), and the times: a
move's commit, a press until its toast is answered, a screen until its edit went through
(press → own DM, turn → DM), a request's wait for its turn in the
outbox's overall pace (by priority), a job's wait for the computers' worker pool (by its
place in the line), the coach's hints and reviews. Read when scraped (`Watched`): the live
tables by phase, the outbox's line by priority and the edits and messages it holds, the
worker pool's line, and whether this process leads.

Nothing here is imported by `storage/` or `engine/`; the tables are measured from the
wiring (`bot.rooms`), the adapters through plain callbacks.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from bot.computers.thinker import COMPUTER, HINT, REVIEW, Thinker
from bot.core.effects import StoreMove
from bot.core.phases import Phase
from bot.tables.model import Table
from bot.telegram import pace

disable_created_metrics()  # type: ignore[no-untyped-call]
"""No ``…_created`` series beside each counter and histogram: Prometheus's text format
does not use them, and they doubled what each scrape carried."""

ROLES = ("single", "standby", "leader", "lost")
"""What a process is (`bot.telegram.health.ROLE`): each is a series, 1 for the one it is."""

PRIORITIES: dict[int, str] = {
    pace.ACTING: "acting",
    pace.PLAYED: "played",
    pace.URGENT: "urgent",
    pace.POST: "post",
    pace.MOVED: "moved",
    pace.DELETE: "delete",
    pace.EDIT: "edit",
    pace.GROUP_EDIT: "group_edit",
    pace.IDLE: "idle",
}
"""The outbox's priorities (`bot.telegram.pace`) by name, most urgent first."""

LINES: dict[int, str] = {COMPUTER: "computer", HINT: "hint", REVIEW: "review"}
"""The worker pool's line (`bot.computers.thinker`): computers' moves, hints, reviews."""

PHASE_LABELS = ("lobby", "passing", "playing", "moon", "hand_over", "finished", "cancelled")
"""The phases the dashboards are given (deploy/GUIDE.md): a dealt table's is its game's."""

GAME_LABELS = {"pass": "passing", "play": "playing", "moon": "moon"}


def phase_label(table: Table, phase: Phase) -> str:
    """What the dashboards call a table at `phase`: a dealt one by what its game waits for
    (the engine's phase), so their series stay as they were."""
    if phase is Phase.DEALT and table.game is not None:
        return GAME_LABELS.get(table.game.phase, "hand_over")
    return phase.value


UPDATE_KINDS = ("callback_query", "message", "my_chat_member", "edited_message")
"""The kinds of update counted by name (an update has one of its fields set); any other
is ``other``."""

QUICK = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Buckets (seconds) for what a person waits on: a commit, a toast, a request's turn."""
SLOW = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0)
"""Buckets (seconds) for thinking: the computers' line, hints, reviews."""


def account_of(token: str | None) -> str:
    """The bot's account as its series name it: its numeric id, the token's public half."""
    if not token:
        return "none"
    return token.partition(":")[0] or "none"


def method_of(url: str) -> str:
    """The Bot API method a request's URL names (``…/bot<token>/sendMessage``); ``file``
    for a file's download, ``other`` for anything else (never a part of the token)."""
    if "/file/bot" in url:
        return "file"
    name = url.rsplit("/", 1)[-1].partition("?")[0]
    return name if name.isascii() and name.isalpha() and len(name) <= 40 else "other"


def outcome_of(status: int) -> str:
    """A response's outcome: ``ok``, ``429`` (flood control), ``4xx``, ``5xx``."""
    if 200 <= status < 300:
        return "ok"
    if status == 429:
        return "429"
    if 400 <= status < 500:
        return "4xx"
    return "5xx" if status >= 500 else "other"


@dataclass(frozen=True)
class Watched:
    """The live parts read at each scrape rather than counted as they change, given to
    `Metrics.watch` once the rooms that hold them are open."""

    tables: Callable[[], Iterable[Table]] | None = None
    """The live tables (`bot.tables.registry.TableRegistry`)."""
    outbox_line: Callable[[], dict[int, int]] | None = None
    """Requests waiting for their turn in the overall pace, by priority."""
    outbox_pending: Callable[[], dict[str, int]] | None = None
    """What the outbox holds besides: screens with an edit waiting (``pending``), new
    messages on their way (``posts``), deletions (`bot.telegram.outbox.Outbox.state_sizes`)."""
    thinker_line: Callable[[], dict[int, int]] | None = None
    """Jobs waiting for a worker, by place in the line."""


class _Role(Collector):
    """The process's role, read at each scrape."""

    def __init__(self, account: str, role: Callable[[], str]) -> None:
        self._account = account
        self._role = role

    def collect(self) -> Iterator[GaugeMetricFamily]:
        role = GaugeMetricFamily(
            "hearts_role",
            "1 for what this process is: single (SQLite), leader, standby, or lost (it led)",
            labels=["account", "role"],
        )
        now = self._role()
        for name in ROLES:
            role.add_metric([self._account, name], 1.0 if name == now else 0.0)
        yield role


class _Scraped(Collector):
    """Gauges read from `Watched` at each scrape."""

    def __init__(self, account: str, watched: Watched) -> None:
        self._account = account
        self._watched = watched

    def collect(self) -> Iterator[GaugeMetricFamily]:
        account, watched = self._account, self._watched
        if watched.tables is not None:
            counts = dict.fromkeys(PHASE_LABELS, 0)
            for table in list(watched.tables()):
                counts[phase_label(table, table.phase)] += 1
            tables = GaugeMetricFamily(
                "hearts_tables", "Tables the bot holds, by phase", labels=["account", "phase"]
            )
            for label, count in counts.items():
                tables.add_metric([account, label], float(count))
            yield tables
        if watched.outbox_line is not None:
            line = watched.outbox_line()
            queue = GaugeMetricFamily(
                "hearts_outbox_queue",
                "Requests waiting for their turn in the bot's overall pace, by priority",
                labels=["account", "priority"],
            )
            for number, name in PRIORITIES.items():
                queue.add_metric([account, name], float(line.get(number, 0)))
            yield queue
        if watched.outbox_pending is not None:
            sizes = watched.outbox_pending()
            pending = GaugeMetricFamily(
                "hearts_outbox_pending",
                "What the outbox holds: screens with an edit waiting (edits), new messages on "
                "their way (posts), deletions",
                labels=["account", "kind"],
            )
            for kind, key in (("edits", "pending"), ("posts", "posts"), ("deletions", "deletions")):
                pending.add_metric([account, kind], float(sizes.get(key, 0)))
            yield pending
        if watched.thinker_line is not None:
            jobs = watched.thinker_line()
            waiting = GaugeMetricFamily(
                "hearts_thinker_queue",
                "Jobs waiting for a worker of the computers' pool, by place in the line",
                labels=["account", "line"],
            )
            for number, name in LINES.items():
                waiting.add_metric([account, name], float(jobs.get(number, 0)))
            yield waiting


class Metrics:
    """One bot's metrics (`account`: `account_of` its token), in a registry of its own."""

    def __init__(self, account: str, role: Callable[[], str] = lambda: "single") -> None:
        """`role`: whether this process leads (`bot.telegram.health.ROLE`), read at each
        scrape."""
        self.account = account
        self.registry = CollectorRegistry()
        r, a = self.registry, ["account"]
        self._info = Gauge(
            "hearts_bot_info", "The bot's account and username", [*a, "username"], registry=r
        )
        self._requests = Counter(
            "hearts_bot_api_requests",
            "Bot API requests by method and outcome (ok, 429, 4xx, 5xx, timeout, network)",
            [*a, "method", "outcome"],
            registry=r,
        )
        self._request_seconds = Histogram(
            "hearts_bot_api_request_seconds",
            "A Bot API request's time, sent to answered, by method",
            [*a, "method"],
            buckets=QUICK,
            registry=r,
        )
        self._updates = Counter(
            "hearts_updates",
            "Updates from Telegram handled, by kind (message, callback_query, my_chat_member…)",
            [*a, "kind"],
            registry=r,
        )
        self._errors = Counter(
            "hearts_handler_errors",
            "Exceptions a handler raised (logged with the update; the person is told to try again)",
            a,
            registry=r,
        )
        self._moves = Counter(
            "hearts_moves",
            "Moves stored, by kind (play, pass, moon) and by whom (person, computer, stand_in)",
            [*a, "kind", "by"],
            registry=r,
        )
        self._entered = Counter(
            "hearts_table_phase_entries",
            "Times a table entered a phase (a finished or cancelled game's last)",
            [*a, "phase"],
            registry=r,
        )
        self._commit = Histogram(
            "hearts_move_commit_seconds",
            "Storing a move (the journal's transaction) until it is durable",
            a,
            buckets=QUICK,
            registry=r,
        )
        self._toast = Histogram(
            "hearts_press_toast_seconds",
            "A button press, from its update's handling until its toast is answered",
            a,
            buckets=QUICK,
            registry=r,
        )
        self._outbox_wait = Histogram(
            "hearts_outbox_wait_seconds",
            "A request's wait for its turn in the bot's overall pace, by priority",
            [*a, "priority"],
            buckets=QUICK,
            registry=r,
        )
        self._screen = Histogram(
            "hearts_screen_seconds",
            "A message's new state, from when it was first asked for until the edit showing "
            "it went through, by chat (dm, group) and priority (played: the presser's own "
            "screen; acting: whoever must act next)",
            [*a, "chat", "priority"],
            buckets=QUICK,
            registry=r,
        )
        self._thinker_wait = Histogram(
            "hearts_thinker_wait_seconds",
            "A job's wait for a worker of the computers' pool, by place in the line",
            [*a, "line"],
            buckets=SLOW,
            registry=r,
        )
        self._hint = Histogram(
            "hearts_hint_seconds",
            "The coach's hint, asked until thought out",
            a,
            buckets=SLOW,
            registry=r,
        )
        self._review = Histogram(
            "hearts_review_seconds",
            "The coach's review of a hand, asked until thought out",
            a,
            buckets=SLOW,
            registry=r,
        )
        for outcome in ("ok", "429"):  # shown at 0 before the first request
            self._requests.labels(account, "sendMessage", outcome)
        for label in PHASE_LABELS:
            self._entered.labels(account, label)
        self._errors_child = self._errors.labels(account)
        self._commit_child = self._commit.labels(account)
        self._toast_child = self._toast.labels(account)
        self._hint_child = self._hint.labels(account)
        self._review_child = self._review.labels(account)
        self._children: dict[tuple[str, ...], Any] = {}
        """Labelled series already looked up (a request's costs a dictionary's lookup)."""
        self.registry.register(_Role(account, role))
        self._watching = False
        """Whether `watch` was given the live parts (a second call would count twice)."""
        self.last_request: str | None = None
        """The last Bot API request's outcome (``ok``, ``429``, ``4xx``, ``5xx``,
        ``timeout``, ``network``; None before the first)."""

    def watch(self, watched: Watched) -> None:
        """Read `watched` at each scrape too: the live tables, the outbox's line and the
        worker pool's, which exist only once the rooms are open (after these metrics, which
        count the Bot API's requests from the start). Once: a second call raises
        `RuntimeError`, as its gauges would be registered, and scraped, twice."""
        if self._watching:
            raise RuntimeError(f"metrics of account {self.account} already watch the rooms")
        self.registry.register(_Scraped(self.account, watched))
        self._watching = True

    # ------------------------------------------------------------------ counted

    def named(self, username: str) -> None:
        """The bot's username, once ``getMe`` said it."""
        self._info.labels(self.account, username).set(1)

    def requested(self, url: str, outcome: str | int, seconds: float) -> None:
        """A Bot API request answered (`outcome`: its HTTP status) or failed (``timeout``,
        ``network``) after `seconds`."""
        said = outcome_of(outcome) if isinstance(outcome, int) else outcome
        self.last_request = said  # what `/healthz` says of the Bot API (`bot.telegram.health`)
        key = ("request", url.rsplit("/", 1)[-1], said)
        children = self._children.get(key)
        if children is None:
            method = method_of(url)
            children = (
                self._requests.labels(self.account, method, said),
                self._request_seconds.labels(self.account, method),
            )
            if len(self._children) < 1000:  # a file's URL is its own (never kept for long)
                self._children[key] = children
        children[0].inc()
        children[1].observe(seconds)

    def came(self, kind: str) -> None:
        """An update of `kind` (`UPDATE_KINDS`, else ``other``) reached the bot."""
        key = ("update", kind)
        child = self._children.get(key)
        if child is None:
            label = kind if kind in UPDATE_KINDS else "other"
            child = self._children[key] = self._updates.labels(self.account, label)
        child.inc()

    def failed(self) -> None:
        """A handler raised (`bot.telegram.handlers.Errors`)."""
        self._errors_child.inc()

    def stored(self, table: Table, effect: StoreMove, seconds: float) -> None:
        """A move stored in `seconds`."""
        seat = table.seats[effect.move.seat] if effect.move.seat < len(table.seats) else None
        if effect.stand_in:
            by = "stand_in"
        elif seat is not None and seat.kind == "computer":
            by = "computer"
        else:
            by = "person"
        self._moves.labels(self.account, effect.move.kind, by).inc()
        self._commit_child.observe(seconds)

    def entered(self, table: Table, phase: Phase) -> None:
        """A table entered `phase` (`bot.core.runner.Runner`'s `entered`)."""
        self._entered.labels(self.account, phase_label(table, phase)).inc()

    def toasted(self, seconds: float) -> None:
        """A press answered with its toast, `seconds` after its handling began."""
        self._toast_child.observe(seconds)

    def waited_turn(self, priority: int, seconds: float) -> None:
        """A request waited `seconds` for its turn in the overall pace."""
        key = ("turn", str(priority))
        child = self._children.get(key)
        if child is None:
            name = PRIORITIES.get(priority, str(priority))
            child = self._children[key] = self._outbox_wait.labels(self.account, name)
        child.observe(seconds)

    def shown(self, chat_id: int, priority: int, seconds: float) -> None:
        """A message's new state shown in chat `chat_id` `seconds` after it was asked for."""
        chat = "dm" if chat_id > 0 else "group"
        key = ("screen", chat, str(priority))
        child = self._children.get(key)
        if child is None:
            name = PRIORITIES.get(priority, str(priority))
            child = self._children[key] = self._screen.labels(self.account, chat, name)
        child.observe(seconds)

    def waited_worker(self, line: int, seconds: float) -> None:
        """A job of the worker pool's `line` waited `seconds` for a worker."""
        self._thinker_wait.labels(self.account, LINES.get(line, str(line))).observe(seconds)

    def hinted(self, seconds: float) -> None:
        self._hint_child.observe(seconds)

    def reviewed(self, seconds: float) -> None:
        self._review_child.observe(seconds)

    # ------------------------------------------------------------------ read

    def kept(self) -> int:
        """How many labelled series are kept for a quick lookup (memory tests)."""
        return len(self._children)

    def text(self) -> bytes:
        """Every metric in Prometheus's text format."""
        return generate_latest(self.registry)


class MeasuredThinker(Thinker):
    """The worker pool, with each job's wait for a worker and each hint's and review's
    time told to `metrics`."""

    def __init__(
        self, metrics: Metrics, workers: int = 1, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(workers, clock, on_start=metrics.waited_worker)
        self._metrics = metrics

    async def hint(self, *args: Any, **kwargs: Any) -> Any:
        began = time.monotonic()
        found = await super().hint(*args, **kwargs)
        self._metrics.hinted(time.monotonic() - began)
        return found

    async def review(self, *args: Any, **kwargs: Any) -> Any:
        began = time.monotonic()
        findings = await super().review(*args, **kwargs)
        self._metrics.reviewed(time.monotonic() - began)
        return findings
