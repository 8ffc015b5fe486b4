"""``/metrics``: a game played through the real stack, read with Prometheus's own parser.

The numbers must move as the game does: tables by phase from lobby to play to finished,
every move counted once (the journal's moves), the Bot API requests by method as the double
counted them, a 429 counted as one, and the histograms (commit, toast, outbox, computers,
hint, review) holding what happened.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest
from bot_harness import (
    FAST,
    _new_database,
    open_table,
    play_turn,
    rooms_of,
    settings_for,
    table_in,
)
from patience import patient
from prometheus_client.parser import text_string_to_metric_families
from telegram.error import RetryAfter
from telegram.ext import Application, CommandHandler

from bot.app import build_application, polling
from bot.metrics import Metrics, Watched, account_of, method_of
from bot.sandbox_runner import free_port
from bot.telegram.health import attach_health_server
from domain.people import ChatSettings
from engine import Rules
from sandbox.double import BotApiDouble
from sandbox.testing import running_double

ROOT = Path(__file__).resolve().parents[2]
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(port: int) -> Samples:
    """``GET /metrics``, parsed by Prometheus's own parser: every sample by name and labels."""
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}/metrics") as response,
    ):
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = await response.text()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sum of `name`'s samples whose labels include `labels`."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= ls)


def by(samples: Samples, name: str, label: str) -> dict[str, float]:
    """`name`'s samples summed by one label."""
    out: dict[str, float] = {}
    for (n, ls), v in samples.items():
        if n == name:
            key = dict(ls)[label]
            out[key] = out.get(key, 0.0) + v
    return out


def unseen(samples: Samples, double: BotApiDouble) -> dict[str, tuple[float, int]]:
    """The methods whose requests counted differ from the double's (the long poll aside)."""
    requests = by(samples, "hearts_bot_api_requests_total", "method")
    methods = {m for (m, _chat) in double.calls} - {"getUpdates"}
    return {
        m: (requests.get(m, 0), double.call_count(m))
        for m in methods
        if requests.get(m, 0) != double.call_count(m)
    }


async def settled(port: int, double: BotApiDouble, timeout: float = 5.0) -> Samples:
    """A scrape once every request the double answered has been counted (a response is
    counted as the bot reads it, a moment after the double has sent it)."""
    deadline = asyncio.get_running_loop().time() + patient(timeout)
    while True:
        samples = await scrape(port)
        if not unseen(samples, double) or asyncio.get_running_loop().time() > deadline:
            return samples
        await asyncio.sleep(0.05)


@asynccontextmanager
async def measured_bot(
    double: BotApiDouble, database: Path
) -> AsyncIterator[tuple[Application, int]]:  # type: ignore[type-arg]
    """The bot as `bot_harness.running_bot` runs it, with ``/healthz`` and ``/metrics``
    served on a free port, as ``hearts-bot`` serves them."""
    await _new_database(database)
    port = free_port()
    settings = dataclasses.replace(
        settings_for(double, database), health_port=port, webhook_listen="127.0.0.1"
    )
    app = build_application(settings, FAST)
    attach_health_server(app, settings)
    async with polling(app, poll_timeout=1):
        yield app, port


async def test_a_game_moves_the_numbers_as_it_goes(tmp_path: Path) -> None:
    async with running_double() as double:
        alice = double.create_user("Alice", username="alice")
        group = double.create_group("Metrics Hearts", members=[alice])
        async with measured_bot(double, tmp_path / "hearts.sqlite3") as (app, port):
            account = account_of(double.token)
            rooms = rooms_of(app)
            await alice.start_bot()
            await double.wait_for(lambda: alice.dm_view().last() is not None, 5)
            await rooms.storage.people.save_chat_settings(
                ChatSettings(group.id, rules=Rules(target=1, ties="share").to_dict())
            )
            lobby = await open_table(double, alice, group, computers=3)
            before = await scrape(port)
            assert value(before, "hearts_role", role="single") == 1
            assert value(before, "hearts_role", role="leader") == 0
            assert value(before, "hearts_tables", phase="lobby", account=account) == 1
            assert value(before, "hearts_tables", phase="playing") == 0
            assert value(before, "hearts_moves_total") == 0
            me = await app.bot.get_me()
            assert value(before, "hearts_bot_info", username=me.username or "") == 1

            assert await alice.press(group, lobby, "▶ Start") == "Dealing the cards…"
            table = table_in(app, group)
            game = table.game
            assert game is not None
            dealt = await scrape(port)
            assert value(dealt, "hearts_tables", phase="lobby") == 0
            assert (
                value(dealt, "hearts_tables", phase="passing")
                + value(dealt, "hearts_tables", phase="playing")
                == 1
            )
            assert value(dealt, "hearts_table_phase_entries_total", phase="passing") == 1

            # Flood control: Telegram answers 429, the request is counted as such.
            double.flood("getChat", 30, retry_after=1)
            with pytest.raises(RetryAfter):
                await app.bot.get_chat(group.id)
            double.flood("getChat", 0)

            hinted = False
            while game.phase != "over":
                seat = table.seat_of(alice.id)
                if not hinted and game.phase == "play" and game.current_player == seat:
                    await double.wait_for(
                        lambda: any(
                            "💡 Hint" in str(m.labels) for m in alice.dm_view().bot_messages
                        ),
                        5,
                    )
                    await alice.press(alice.dm, None, "💡 Hint")
                    hinted = True
                    continue
                if await play_turn(double, alice, table) is None:
                    await double.wait_for(
                        lambda: (
                            game.phase == "over" or table.seat_of(alice.id) in game.waiting_for()
                        ),
                        10,
                    )
            await double.wait_for(lambda: table.status == "finished", 10)
            await double.wait_for(
                lambda: any(
                    "🔍 Review hand 1" in str(m.labels) for m in alice.dm_view().bot_messages
                ),
                10,
            )
            # A slow Telegram: the review's toast waits 0.4 s for answerCallbackQuery, and
            # press → toast says so.
            double.hold("answerCallbackQuery")
            pressing = asyncio.create_task(alice.press(alice.dm, None, "🔍 Review hand 1"))
            await asyncio.sleep(0.4)
            double.release("answerCallbackQuery")
            assert await pressing == "🔍 Reviewing hand 1…"
            await double.wait_for(lambda: alice.dm_view().find("🔍 Hand 1"), 20)
            await double.idle()
            await rooms.outbox.flush()
            await double.idle()
            after = await settled(port, double)

            # Tables: none left live; the game entered finished once.
            assert sum(by(after, "hearts_tables", "phase").values()) == 0
            assert value(after, "hearts_table_phase_entries_total", phase="finished") == 1
            assert value(after, "hearts_table_phase_entries_total", phase="cancelled") == 0

            # Every stored move counted once, by whom, and each commit timed.
            _, moves = await rooms.storage.games.game_and_moves(table.id)
            assert value(after, "hearts_moves_total") == len(moves) > 13
            people = sum(1 for move, _ in moves if move.seat == table.seat_of(alice.id))
            assert value(after, "hearts_moves_total", by="person") == people
            assert value(after, "hearts_moves_total", by="computer") == len(moves) - people
            assert value(after, "hearts_moves_total", kind="pass") == 4
            assert value(after, "hearts_move_commit_seconds_count") == len(moves)
            assert value(after, "hearts_move_commit_seconds_sum") > 0

            # The Bot API requests by method are the double's own counts (getUpdates but
            # the one still waiting); the 429 is counted as one, the rest answered.
            methods = {m for (m, _chat) in double.calls}
            assert {"sendMessage", "editMessageText", "answerCallbackQuery", "getChat"} <= methods
            assert unseen(after, double) == {}
            assert (
                value(after, "hearts_bot_api_requests_total", method="getChat", outcome="429") == 1
            )
            assert value(after, "hearts_bot_api_requests_total", outcome="429") == 1
            assert double.error_count(429) == 1
            assert value(
                after, "hearts_bot_api_request_seconds_count", method="sendMessage"
            ) == double.call_count("sendMessage")

            # Each press answered is one toast timed; the outbox's turns by priority.
            toasts = double.call_count("answerCallbackQuery")
            assert value(after, "hearts_press_toast_seconds_count") == toasts
            quick = value(after, "hearts_press_toast_seconds_bucket", le="0.25")
            assert quick < toasts, "the held toast waited over 0.25 s"
            assert value(after, "hearts_press_toast_seconds_sum") >= 0.4
            waits = by(after, "hearts_outbox_wait_seconds_count", "priority")
            assert waits.get("played", 0) > 0 and waits.get("edit", 0) > 0, waits
            assert value(after, "hearts_outbox_queue") == 0
            assert value(after, "hearts_outbox_pending", kind="edits") == 0
            assert value(after, "hearts_outbox_pending", kind="posts") == 0

            # Each screen shown, timed from its first waiting state: the presser's own DM
            # (played), the DM of whoever must act (acting), the group's table.
            screens = {
                (dict(ls)["chat"], dict(ls)["priority"]): v
                for (n, ls), v in after.items()
                if n == "hearts_screen_seconds_count"
            }
            assert screens.get(("dm", "played"), 0) > 0, screens
            assert screens.get(("dm", "acting"), 0) > 0, screens
            assert sum(v for (chat, _), v in screens.items() if chat == "group") > 0, screens
            assert sum(screens.values()) <= double.call_count("editMessageText")

            # The computers' line, the hint and the review, timed.
            assert value(after, "hearts_thinker_wait_seconds_count", line="computer") >= (
                len(moves) - people
            )
            assert value(after, "hearts_thinker_wait_seconds_count", line="hint") >= 1
            assert value(after, "hearts_hint_seconds_count") == 1
            assert value(after, "hearts_review_seconds_count") == 1
            assert value(after, "hearts_thinker_queue") == 0

            # Updates by kind: each press one, the commands typed at least one each.
            updates = by(after, "hearts_updates_total", "kind")
            assert updates["callback_query"] == toasts
            assert updates["message"] >= 2  # /start in the DM, /newgame in the group
            assert value(after, "hearts_handler_errors_total") == 0

            # Every metric the Grafana dashboard shows is served.
            board = json.loads((ROOT / "deploy/grafana/dashboards/hearts.json").read_text())
            named = {
                name
                for panel in board["panels"]
                for target in panel.get("targets", [])
                for name in re.findall(r"\bhearts_[a-z_]+\b", target["expr"])
            }
            assert named and named <= {n for n, _ in after}, named - {n for n, _ in after}

            # Every series is this bot's account.
            assert {dict(ls).get("account") for (_n, ls) in after} == {account}


def test_the_method_never_carries_the_token() -> None:
    assert method_of("https://api.telegram.org/bot123:SECRET/sendMessage") == "sendMessage"
    assert method_of("https://api.telegram.org/file/bot123:SECRET/photos/1.jpg") == "file"
    assert method_of("https://api.telegram.org/bot123:SECRET/") == "other"
    assert account_of("123:SECRET") == "123"
    assert b"SECRET" not in Metrics(account_of("123:SECRET")).text()


def test_two_bots_in_one_process_keep_their_numbers_apart() -> None:
    one, two = Metrics("1"), Metrics("2")
    one.requested("http://x/bot1:a/sendMessage", 200, 0.01)
    one.requested("http://x/bot1:a/sendMessage", 429, 0.01)
    first = {
        (s.name, frozenset(s.labels.items())): s.value
        for f in text_string_to_metric_families(one.text().decode())
        for s in f.samples
    }
    second = {
        (s.name, frozenset(s.labels.items())): s.value
        for f in text_string_to_metric_families(two.text().decode())
        for s in f.samples
    }
    assert value(first, "hearts_bot_api_requests_total", outcome="429") == 1
    assert value(first, "hearts_bot_api_requests_total", outcome="ok") == 1
    assert value(second, "hearts_bot_api_requests_total") == 0


def test_the_live_parts_are_watched_once() -> None:
    """A second `watch` would register the scraped gauges again: each table counted twice
    in one scrape. It is refused, and the first stays as it was."""
    metrics = Metrics("1")
    metrics.watch(Watched(tables=lambda: []))
    with pytest.raises(RuntimeError):
        metrics.watch(Watched(tables=lambda: []))
    families = [
        s
        for f in text_string_to_metric_families(metrics.text().decode())
        for s in f.samples
        if s.name == "hearts_tables" and s.labels["phase"] == "lobby"
    ]
    assert [s.value for s in families] == [0]


def test_many_file_urls_keep_memory_bounded() -> None:
    metrics = Metrics("1")
    for n in range(3000):
        metrics.requested(f"http://x/file/bot1:a/photos/{n}.jpg", 200, 0.01)
    families = {
        (s.name, frozenset(s.labels.items())): s.value
        for f in text_string_to_metric_families(metrics.text().decode())
        for s in f.samples
    }
    assert value(families, "hearts_bot_api_requests_total", method="file") == 3000
    assert metrics.kept() <= 1000


async def test_a_handlers_exception_is_counted(tmp_path: Path) -> None:
    """A handler that raises (one added to the real bot for this test) is logged, and
    counted once in ``hearts_handler_errors_total``."""

    async def broken(update: object, context: object) -> None:
        raise RuntimeError("a bug in a handler")

    async with running_double() as double:
        alice = double.create_user("Alice", username="alice")
        async with measured_bot(double, tmp_path / "hearts.sqlite3") as (app, port):
            app.add_handler(CommandHandler("broken", broken))
            await alice.send(alice.dm, "/broken")
            samples = await scrape(port)
            deadline = asyncio.get_running_loop().time() + patient(5)
            while value(samples, "hearts_handler_errors_total") == 0:
                assert asyncio.get_running_loop().time() < deadline, "never counted"
                await asyncio.sleep(0.05)
                samples = await scrape(port)
            assert value(samples, "hearts_handler_errors_total") == 1
            assert value(samples, "hearts_updates_total", kind="message") == 1


async def test_a_screen_a_slow_telegram_holds_is_timed_until_shown(tmp_path: Path) -> None:
    """The lobby's message, edited as a computer sits down while Telegram holds every edit
    0.4 s: its time runs from the change until the edit went through."""
    async with running_double() as double:
        alice = double.create_user("Alice", username="alice")
        group = double.create_group("Slow Hearts", members=[alice])
        async with measured_bot(double, tmp_path / "hearts.sqlite3") as (app, port):
            await alice.start_bot()
            await double.wait_for(lambda: alice.dm_view().last() is not None, 5)
            lobby = await open_table(double, alice, group)
            await double.idle()
            before = await scrape(port)
            double.hold("editMessageText", group.id)
            await alice.press(group, lobby, "🤖 Add computer")
            await asyncio.sleep(0.4)
            double.release("editMessageText", group.id)
            await double.wait_for(
                lambda: "🤖" in (double.chat_view(group.id).message(lobby).text or ""), 5
            )
            await double.idle()
            await rooms_of(app).outbox.flush()
            after = await scrape(port)
            count = value(after, "hearts_screen_seconds_count", chat="group") - value(
                before, "hearts_screen_seconds_count", chat="group"
            )
            quick = value(after, "hearts_screen_seconds_bucket", chat="group", le="0.25") - value(
                before, "hearts_screen_seconds_bucket", chat="group", le="0.25"
            )
            assert count >= 1 and quick < count, (count, quick)
            took = value(after, "hearts_screen_seconds_sum", chat="group") - value(
                before, "hearts_screen_seconds_sum", chat="group"
            )
            assert took >= 0.4
