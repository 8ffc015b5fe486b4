"""The token never leaves the process (issue 50, item 10).

The real bot in a process of its own (`crash_bot.py`, with ``/healthz`` and ``/metrics``)
while the Bot API double fails every way it can, method by method: HTTP errors with
Telegram's JSON (500, 502, 400), a proxy's HTML page, a body that is not JSON, a
redirect loop, a connection reset, no answer in time. People go on using the bot
meanwhile. Then everything the bot wrote is searched for the token and its secret half:
its log, every message and toast it sent to a chat (buttons and links too), ``/metrics``
and ``/healthz`` as read during the failures.
"""

from __future__ import annotations

from pathlib import Path

import aiohttp
from test_e2e_crash import BotProcess

from bot.sandbox_runner import free_port
from sandbox.double import BotApiDouble
from sandbox.testing import running_double
from sandbox.views import Button

FAULTS = ("500", "502", "400", "html", "bad_json", "redirect", "reset", "timeout")
METHODS = (
    "sendMessage",
    "editMessageText",
    "editMessageReplyMarkup",
    "answerCallbackQuery",
    "deleteMessage",
    "getChatMember",
    "sendPhoto",
)
POLL_FAULTS = ("500", "502", "400", "html", "bad_json", "redirect", "reset")
"""How getUpdates fails too: a 401 or 403 there is the token refused, and the bot stops
polling, by design. A 401 or 403 on its other calls is `test_request.py`'s: met here after
the other rounds, the bot left the DM's ``/help`` unanswered for 30 s in two runs (not yet
understood; the same rounds in one process, `bot_harness`, went through)."""


def joins(button: Button) -> bool:
    return button.label.startswith("Join")


async def _read(session: aiohttp.ClientSession, url: str) -> str:
    async with session.get(url) as response:
        return await response.text()


def _everything_sent(double: BotApiDouble) -> str:
    return "\n".join([*(repr(e) for e in double.history()), *(repr(t) for t in double.toasts)])


async def test_no_failure_of_the_bot_api_puts_the_token_anywhere(tmp_path: Path) -> None:
    async with running_double() as double:
        secret = double.token.partition(":")[2]
        port = free_port()
        bot = BotProcess(double, tmp_path / "hearts.sqlite3", tmp_path, {"HEALTH_PORT": str(port)})
        await bot.start()
        pages: list[str] = []

        def calls() -> int:
            return sum(double.call_count(method) for method in METHODS)

        try:
            async with aiohttp.ClientSession() as session:
                for how in FAULTS:
                    # New people and a new group each round: each round's failures meet
                    # chats of their own.
                    people = [double.create_user(f"{n} {how}") for n in ("Ann", "Bob", "Cy")]
                    group = double.create_group(f"Leaks {how}", members=people, admins=people[:1])
                    for person in people:
                        await person.start_bot()
                    await double.idle(timeout=20)
                    for method in METHODS:
                        double.fail(method, how, times=2)
                    if how in POLL_FAULTS:
                        double.fail("getUpdates", how, times=1)
                    ann = people[0]
                    before = calls()
                    await ann.send(group, "/newgame")
                    await ann.send(ann.dm, "/help")
                    await people[1].send(group, "/scores")
                    view = double.chat_view(group.id)
                    if any(m.button(joins) for m in view.bot_messages):
                        await people[2].press(group, None, joins, wait=False)
                    # Until the bot met the failures: its poll's, and one of its calls.
                    await double.wait_for(
                        lambda b=before: "getUpdates" not in double.failing() and calls() > b,
                        30,
                    )
                    pages.append(await _read(session, f"http://127.0.0.1:{port}/healthz"))
                    pages.append(await _read(session, f"http://127.0.0.1:{port}/metrics"))
                    for method in (*METHODS, "getUpdates"):
                        double.fail(method, None)
                    await ann.send(group, "/cancel")
                    await double.idle(timeout=20)
                    pages.append(await _read(session, f"http://127.0.0.1:{port}/healthz"))
                    pages.append(await _read(session, f"http://127.0.0.1:{port}/metrics"))
        finally:
            await bot.stop()
        sent = _everything_sent(double)
        logs = bot.log_text()
    seen = "\n".join(pages)
    for outcome in ("5xx", "network", "timeout"):  # the failures were met
        assert f'outcome="{outcome}"' in seen, outcome
    for where, text in (("the log", logs), ("the chats", sent), ("the pages", "\n".join(pages))):
        assert secret not in text, f"the token's secret in {where}"
        assert double.token not in text, f"the token in {where}"
