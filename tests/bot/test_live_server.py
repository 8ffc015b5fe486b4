"""The table page's server over real WebSockets (aiohttp's client) against the running bot
and the Bot API double: who may connect, what each page is sent, and moves made on it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from bot_harness import rooms_of, running_bot, start_with_computers
from patience import patient
from telegram.ext import Application

from bot.live.server import ELSEWHERE, FLOOD, REFUSED
from bot.tables.model import Table
from engine.cards import shown_order
from sandbox.double import BotApiDouble
from sandbox.people import SandboxUser
from sandbox.testing import running_double
from sandbox.webapp import init_data

Json = dict[str, Any]


def page_url(app: Application) -> str:  # type: ignore[type-arg]
    server = app.live_server
    assert server is not None and server.port is not None
    return f"ws://127.0.0.1:{server.port}/app/ws"


def signed(double: BotApiDouble, person: SandboxUser, **extra: Any) -> str:
    return init_data(double.token, {"id": person.id, "first_name": person.name}, **extra)


class PageClient:
    """One open page: its connection and everything it was sent."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.received: list[Json] = []
        self.raw: list[str] = []
        self.closed_code: int | None = None

    async def read(self) -> None:
        async for message in self.socket:
            if message.type == aiohttp.WSMsgType.TEXT:
                self.raw.append(message.data)
                self.received.append(json.loads(message.data))
        self.closed_code = self.socket.close_code

    def states(self) -> list[Json]:
        return [m for m in self.received if m["t"] == "state"]

    def last(self, kind: str) -> Json | None:
        return next((m for m in reversed(self.received) if m["t"] == kind), None)

    async def press_paced(self, data: Json, press_id: int) -> str:
        """`press`, again after a pause when the page's pace asks to slow down."""
        while (said := await self.press(data, press_id)) == "Slow down a little.":
            await asyncio.sleep(0.25)
        return said

    async def press(self, data: Json, press_id: int = 1) -> str:
        """Send a command (`bot.live.commands`) and wait for its answer."""
        before = len(self.received)
        await self.socket.send_str(json.dumps({"t": "press", "id": press_id, "command": data}))
        for _ in range(200):
            for m in self.received[before:]:
                if m["t"] == "answer" and m["id"] == press_id:
                    return str(m["text"])
            await asyncio.sleep(0.02)
        raise TimeoutError(f"no answer to {data}")


def command(kind: str, game: int, hand: int, **more: Any) -> Json:
    """A typed command as the page sends it (`bot.live.commands`)."""
    return {"type": kind, "game": game, "hand": hand, **more}


def tap(game: int, hand: int, code: str) -> Json:
    return command("card", game, hand, card=code)


def pass_chosen(game: int, hand: int) -> Json:
    return command("pass", game, hand)


def moon(game: int, hand: int, choice: str) -> Json:
    return command("moon", game, hand, choice=choice)


def hint(game: int, hand: int) -> Json:
    return command("hint", game, hand)


@asynccontextmanager
async def open_page(
    app: Application,  # type: ignore[type-arg]
    init: str,
    game: int | None = None,
) -> AsyncIterator[PageClient]:
    async with aiohttp.ClientSession() as session, session.ws_connect(page_url(app)) as ws:
        page = PageClient(ws)
        reader = asyncio.create_task(page.read())
        await ws.send_str(json.dumps({"t": "hello", "init": init, "game": game}))
        try:
            yield page
        finally:
            await ws.close()
            await reader


async def until(check: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + patient(timeout)
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met")
        await asyncio.sleep(0.02)


@asynccontextmanager
async def table_with_two_people(tmp_path: Path) -> AsyncIterator[tuple[Any, ...]]:
    async with running_double() as double:
        ana = double.create_user("Ana", username="ana")
        bob = double.create_user("Bob", username="bob")
        eve = double.create_user("Eve", username="eve")
        group = double.create_group("Pages", members=[ana, bob, eve])
        async with running_bot(double, tmp_path / "hearts.sqlite3", pages=True) as app:
            _, table = await start_with_computers(double, app, group, [ana, bob])
            yield double, app, table, ana, bob, eve


def held_by_others(table: Table, seat: int) -> set[str]:
    game = table.game
    assert game is not None
    return {c.code for s in range(game.players) if s != seat for c in game.hand(s)}


async def test_a_page_sees_its_own_cards_and_nobody_elses(tmp_path: Path) -> None:
    async with (
        table_with_two_people(tmp_path) as (double, app, table, ana, bob, _),
        open_page(app, signed(double, ana), table.id) as page,
    ):
        await until(lambda: page.states())
        hello = page.received[0]
        assert hello["t"] == "hello" and hello["words"]["hand"] == "Hand"
        state = page.states()[-1]
        seat = table.seat_of(ana.id)
        assert state["you"] == seat
        game = table.game
        assert game is not None
        # In the order every screen shows (engine.cards.shown_order).
        mine = [c.code for c in shown_order(game.hand(seat))]
        assert [c["code"] for c in state["cards"]] == mine
        hidden = held_by_others(table, seat)
        codes = set(re.findall(r'"code": "(\w+)"', "\n".join(page.raw)))
        assert codes and not codes & hidden
        assert [s["cards"] for s in state["seats"]] == [13, 13, 13, 13]
        assert state["seats"][table.seat_of(bob.id)]["name"] == "\u2068Bob\u2069"


async def test_refused_forged_stale_strangers_and_other_games(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="bot.live.server")
    async with table_with_two_people(tmp_path) as (double, app, table, ana, *_):
        good = signed(double, ana)
        forged = good.replace(str(ana.id), str(ana.id + 1))
        stale = signed(double, ana, auth_date=int(time.time()) - 7 * 3600)
        zed = double.create_user("Zed", username="zed")  # not in the group: may not watch
        for init, expected in (
            (forged, "could not prove who you are"),
            (stale, "could not prove who you are"),
            ("", "could not prove who you are"),
            (signed(double, zed), "Only members of this table's group can watch it."),
        ):
            async with open_page(app, init, table.id) as page:
                await until(lambda page=page: page.closed_code is not None)
            refused = page.last("refused")
            assert refused is not None and expected in refused["text"]
            assert page.closed_code == REFUSED and not page.states()
        async with open_page(app, good, table.id + 1000) as page:
            await until(lambda: page.closed_code is not None)
        assert page.closed_code == REFUSED
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert "wrong hash" in logged and "stale" in logged and "no seat" in logged
        assert "not a member of the group" in logged
        assert "hash=" not in logged and double.token not in logged
        assert rooms_of(app).live is not None and rooms_of(app).live.count() == 0


async def test_a_card_from_the_page_goes_the_way_of_a_button(tmp_path: Path) -> None:
    async with table_with_two_people(tmp_path) as (double, app, table, ana, _, _):
        game = table.game
        assert game is not None
        seat = table.seat_of(ana.id)
        assert seat is not None
        async with open_page(app, signed(double, ana), table.id) as page:
            await until(lambda: page.states())
            first = shown_order(game.hand(seat))[0]  # the page's first card
            said = await page.press(tap(table.id, 1, first.code), 1)
            assert said == "1/3 selected"
            await until(lambda: page.states()[-1]["cards"][0]["chosen"])
            # Someone else's game, an action the page may not take, garbage: refused.
            assert await page.press(tap(table.id + 1, 1, first.code), 2) == (
                "That button isn't valid any more."
            )
            assert (
                await page.press(command("x", table.id, 1), 3)
                == "That button isn't valid any more."
            )
            assert await page.press(command("rematch", table.id, 0), 4) == (
                "That button isn't valid any more."
            )
            assert await page.press(command("card", table.id, 1), 11) == (
                "That button isn't valid any more."  # a card press without its card
            )
            assert await page.press(pass_chosen(table.id, 1), 5) == "Choose exactly 3 cards first."
            for n, card in enumerate(game.hand(seat)[1:3], start=6):
                await page.press(tap(table.id, 1, card.code), n)
            assert (
                await page.press(pass_chosen(table.id, 1), 9) == "Passed. Waiting for the others…"
            )
            assert game.has_passed(seat)
            # The same press again, as a double tap would send it.
            assert (
                await page.press(pass_chosen(table.id, 1), 10) == "Passed. Waiting for the others…"
            )
            _, journal = await rooms_of(app).storage.games.game_and_moves(table.id)
            passes = [m for m, _ in journal if m.kind == "pass" and m.seat == seat]
            assert len(passes) == 1


async def test_one_person_keeps_at_most_three_pages_and_a_flood_is_closed(
    tmp_path: Path,
) -> None:
    async with (
        table_with_two_people(tmp_path) as (double, app, table, ana, _, _),
        open_page(app, signed(double, ana), table.id) as first,
        open_page(app, signed(double, ana), table.id) as second,
        open_page(app, signed(double, ana), table.id) as third,
    ):
        await until(lambda: first.states() and second.states() and third.states())
        async with open_page(app, signed(double, ana), table.id) as fourth:
            await until(lambda: first.closed_code is not None)
            assert first.closed_code == ELSEWHERE
            await until(lambda: fourth.states())
            live = rooms_of(app).live
            assert live is not None and len(live.pages_of(ana.id)) == 3
            for n in range(60):
                payload = {"t": "press", "id": n, "command": tap(table.id, 1, "ZZ")}
                await fourth.socket.send_str(json.dumps(payload))
            await until(lambda: fourth.closed_code is not None)
            assert fourth.closed_code == FLOOD
            answers = [m["text"] for m in fourth.received if m["t"] == "answer"]
            assert "Slow down a little." in answers


async def test_the_sandbox_opens_each_persons_page_signed_with_its_own_token(
    tmp_path: Path,
) -> None:
    from urllib.parse import parse_qs, urlsplit

    from bot.live.initdata import validate
    from bot.sandbox_runner import sandbox_world
    from sandbox.limits import RateLimits

    async with sandbox_world(
        tmp_path / "s.sqlite3", web_port=0, rate_limits=RateLimits.off()
    ) as world:
        ana = world.people[0]
        _, table = await start_with_computers(world.double, world.app, world.group, [ana])
        await world.double.wait_for(lambda: 0 in table.ui.dm_message_ids, 5)
        async with aiohttp.ClientSession() as session:
            body = {
                "person_id": ana.id,
                "url": f"https://t.me/hearts_sandbox_bot?startapp=g{table.id}",
            }
            opened = await (await session.post(world.url + "api/open_link", json=body)).json()
            page = await session.get(opened["external"].split("#")[0])
            assert page.status == 200 and "table.js" in await page.text()
        launch = parse_qs(urlsplit(opened["external"]).fragment)
        user = validate(launch["tgWebAppData"][0], world.double.token, max_age=60)
        assert (user.id, user.start_param) == (ana.id, f"g{table.id}")
        # The DM's own button is a web_app button, shown on the sandbox page as a link.
        message = world.double.stored_message(ana.dm, table.ui.dm_message_ids[0])
        assert message is not None and message.reply_markup is not None
        (button,) = message.reply_markup["inline_keyboard"][-1]
        assert button["web_app"]["url"].endswith(f"/app/?g={table.id}")


async def test_an_open_page_spares_its_persons_dm_until_a_trick_is_complete(
    tmp_path: Path,
) -> None:
    from bot_harness import play_turn

    async with table_with_two_people(tmp_path) as (double, app, table, ana, bob, _):
        game = table.game
        assert game is not None
        seat = table.seat_of(ana.id)
        assert seat is not None
        async with open_page(app, signed(double, ana), table.id) as page:
            await until(lambda: page.states())
            first_event = len(double.events)
            press = 0
            while game.hand_number == 1:
                waiting = game.waiting_for()
                if seat in waiting:
                    hand = game.hand_number
                    if game.phase == "pass":
                        for card in game.hand(seat)[:3]:
                            press += 1
                            await page.press(tap(table.id, hand, card.code), press)
                        press += 1
                        said = await page.press(pass_chosen(table.id, hand), press)
                    elif game.phase == "moon":  # Ana shot the moon
                        press += 1
                        said = await page.press(moon(table.id, hand, "add"), press)
                    else:
                        press += 1
                        code = game.legal_plays()[0].code
                        said = await page.press(tap(table.id, hand, code), press)
                    assert said.startswith(("Played", "Passed", "Done!")), said
                elif table.seat_of(bob.id) in waiting:
                    await play_turn(double, bob, table)
                else:
                    await asyncio.sleep(0.01)
            await rooms_of(app).outbox.flush()
            edits = [
                e.chat_id
                for e in double.events[first_event:]
                if e.kind == "edited" and e.chat_id in (ana.dm, bob.dm)
            ]
        # Bob's DM shows each of his presses and each card before his turns; Ana's, only
        # each trick taken (and the hand's end), however often she played.
        assert edits.count(ana.dm) <= 13 + 2
        assert edits.count(bob.dm) > edits.count(ana.dm)


async def test_without_webapp_url_no_button_opens_a_page(tmp_path: Path) -> None:
    async with running_double() as double:
        ana = double.create_user("Ana", username="ana")
        group = double.create_group("No pages", members=[ana])
        async with running_bot(double, tmp_path / "hearts.sqlite3") as app:
            _, table = await start_with_computers(double, app, group, [ana])
            await double.wait_for(lambda: 0 in table.ui.dm_message_ids, 5)
            await rooms_of(app).outbox.flush()
            assert app.live_server is None and rooms_of(app).live is None
            for chat in (ana.dm, group.id):
                for shown in double.chat_view(chat).visible:
                    stored = double.stored_message(chat, shown.message_id)
                    assert stored is not None
                    markup = json.dumps(stored.reply_markup)
                    assert "web_app" not in markup and "startapp" not in markup


@pytest.mark.alone
async def test_a_genuine_page_gets_in_during_a_flood_of_silent_connections(
    tmp_path: Path,
) -> None:
    from bot.live.server import MAX_SILENT, MAX_SILENT_PER_ADDRESS

    async with (
        table_with_two_people(tmp_path) as (double, app, table, ana, _, _),
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session,
    ):
        server = app.live_server
        assert server is not None
        silent: list[aiohttp.ClientWebSocketResponse] = []

        async def flood(count: int) -> None:
            for _ in range(count):
                silent.append(await session.ws_connect(page_url(app)))

        # More silent connections from one address than the server keeps in all...
        await asyncio.gather(*(flood(25) for _ in range(10)))
        # ...and more keep coming, ten a second, while Ana opens her page.
        more = asyncio.create_task(flood(20))
        try:
            await asyncio.sleep(0.1)
            started = time.monotonic()
            async with open_page(app, signed(double, ana), table.id) as page:
                await until(lambda: page.states(), timeout=5)
                took = time.monotonic() - started
        finally:
            more.cancel()
        assert took < 1.0, took
        # The flood pushed out only its own: one address keeps at most its share.
        assert server.silent() <= min(MAX_SILENT, MAX_SILENT_PER_ADDRESS)
        await asyncio.gather(*(ws.close() for ws in silent))


@pytest.mark.alone
async def test_a_silent_connection_is_dropped_soon_and_without_waiting_for_a_reply(
    tmp_path: Path,
) -> None:
    """A raw connection that upgrades to a WebSocket and then says nothing, not even a
    reply to the server's close: the server ends it (EOF) within a few seconds."""
    from urllib.parse import urlsplit

    async with table_with_two_people(tmp_path) as (_, app, _, _, _, _):
        address = urlsplit(page_url(app))
        reader, writer = await asyncio.open_connection(address.hostname, address.port)
        writer.write(
            (
                f"GET {address.path} HTTP/1.1\r\nHost: {address.netloc}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        started = time.monotonic()
        assert (await reader.readline()).startswith(b"HTTP/1.1 101")
        while await asyncio.wait_for(reader.read(4096), timeout=30):
            pass  # the handshake's headers, a close frame: never answered
        assert time.monotonic() - started < 5.0
        writer.close()


MALFORMED_HELLOS: dict[str, Callable[[str], str]] = {
    "nested": lambda init: "[" * 4000 + "]" * 4000,
    "superscript game": lambda init: json.dumps({"t": "hello", "init": init, "game": "²"}),
    "long game": lambda init: json.dumps({"t": "hello", "init": init, "game": "9" * 5000}),
    "long number": lambda init: '{"t": "hello", "init": "", "game": ' + "9" * 5000 + "}",
    "not json": lambda init: "hello?",
    "a list": lambda init: json.dumps(["hello", init]),
}


MALFORMED_MESSAGES = ["[" * 4000 + "]" * 4000, "press!", "[1, 2]", "7"]


def one_malformed_line(caplog: pytest.LogCaptureFixture) -> None:
    mine = [r for r in caplog.records if r.name.startswith(("bot.live", "aiohttp"))]
    assert len(mine) == 1, [r.getMessage() for r in mine]
    assert "malformed" in mine[0].getMessage()
    assert not any(r.exc_info for r in caplog.records)


async def test_a_malformed_hello_or_message_is_closed_with_one_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from bot.live.server import MALFORMED

    caplog.set_level(logging.INFO)
    async with table_with_two_people(tmp_path) as (double, app, table, ana, _, _):
        for kind, hello in MALFORMED_HELLOS.items():
            caplog.clear()
            async with aiohttp.ClientSession() as session, session.ws_connect(page_url(app)) as ws:
                await ws.send_str(hello(signed(double, ana)))
                async for _ in ws:
                    pass
            assert ws.close_code == MALFORMED, kind
            await asyncio.sleep(0.05)
            one_malformed_line(caplog)
        for message in MALFORMED_MESSAGES:
            async with open_page(app, signed(double, ana), table.id) as page:
                await until(lambda page=page: page.states())
                caplog.clear()
                await page.socket.send_str(message)
                await until(lambda page=page: page.closed_code is not None)
            assert page.closed_code == MALFORMED, message[:10]
            one_malformed_line(caplog)


@asynccontextmanager
async def table_in_group(tmp_path: Path, **rules: str) -> AsyncIterator[tuple[Any, ...]]:
    """Ana and Bob with two computers (`rules` set in the menu first), dealt."""
    from bot_harness import open_table, table_in

    async with running_double() as double:
        ana = double.create_user("Ana", username="ana")
        bob = double.create_user("Bob", username="bob")
        group = double.create_group("Pages", members=[ana, bob])
        async with running_bot(double, tmp_path / "hearts.sqlite3", pages=True) as app:
            for person in (ana, bob):
                await person.start_bot()
            await double.wait_for(lambda: bob.dm_view().last() is not None, 5)
            lobby = await open_table(double, ana, group, computers=2, **rules)
            await bob.press(group, lobby, "✋ Join")
            await ana.press(group, lobby, "▶ Start")
            table = table_in(app, group)
            await double.wait_for(lambda: table.game is not None, 5)
            await double.wait_for(lambda: len(table.ui.dm_message_ids) == 2, 5)
            yield double, app, table, group, ana, bob


def card_buttons(double: BotApiDouble, person: SandboxUser, message_id: int) -> list[str]:
    message = double.stored_message(person.dm, message_id)
    assert message is not None
    rows = (message.reply_markup or {}).get("inline_keyboard", [])
    return [
        b["callback_data"] for row in rows for b in row if b.get("callback_data", "")[:2] == "c:"
    ]


async def test_a_cancelled_game_tells_its_pages_and_no_screen_brings_it_back(
    tmp_path: Path,
) -> None:
    async with table_in_group(tmp_path) as (double, app, table, group, ana, bob):
        seat = table.seat_of(bob.id)
        assert seat is not None
        dm = table.ui.dm_message_ids[seat]
        async with open_page(app, signed(double, bob), table.id) as page:
            await until(lambda: page.states())
            assert page.states()[-1]["ended"] is None
            await ana.send(group, "/cancel")
            await until(lambda: page.states()[-1]["ended"] == "cancelled", timeout=2.0)
            state = page.states()[-1]
            assert state["status"] == "♥ This table was cancelled." and state["deadline"] is None
            assert not any(c["legal"] for c in state["cards"]) and state["pass"] is None
            assert state["hint"] is None
            code = state["cards"][0]["code"]
            assert await page.press(tap(table.id, 1, code)) == "That game is over."
        # Bob closes the page: his DM keeps saying the game was cancelled.
        await asyncio.sleep(0.1)
        await rooms_of(app).outbox.flush()
        message = double.stored_message(bob.dm, dm)
        assert message is not None and "cancelled" in (message.text or "")
        assert not card_buttons(double, bob, dm)
        # A reload says it was cancelled (not only "over").
        async with open_page(app, signed(double, bob), table.id) as again:
            await until(lambda: again.states() or again.closed_code is not None)
            assert again.states() and again.states()[-1]["ended"] == "cancelled"
            assert again.states()[-1]["status"] == "♥ This table was cancelled."
        await rooms_of(app).outbox.flush()
        message = double.stored_message(bob.dm, dm)
        assert message is not None and "cancelled" in (message.text or "")
        assert not card_buttons(double, bob, dm)


async def play_on_page(
    double: BotApiDouble,
    table: Table,
    page: PageClient,
    person: SandboxUser,
    other: SandboxUser,
    until_done: Any,
) -> None:
    """`person` plays on `page` (the first three cards, the first legal card), `other` in
    their DM, until `until_done()`."""
    from bot_harness import play_turn

    game = table.game
    assert game is not None
    seat, other_seat = table.seat_of(person.id), table.seat_of(other.id)
    press = 100
    while not until_done():
        waiting = game.waiting_for()
        hand = game.hand_number
        if seat in waiting and game.phase == "pass" and not game.has_passed(seat):
            for card in game.hand(seat)[:3]:
                press += 1
                await page.press_paced(tap(table.id, hand, card.code), press)
            press += 1
            said = await page.press_paced(pass_chosen(table.id, hand), press)
        elif seat in waiting and game.phase == "play":
            press += 1
            said = await page.press_paced(tap(table.id, hand, game.legal_plays()[0].code), press)
        elif seat in waiting and game.phase == "moon":
            press += 1
            said = await page.press_paced(moon(table.id, hand, "add"), press)
        elif other_seat in waiting and game.phase != "over":
            await play_turn(double, other, table)
            continue
        else:
            await asyncio.sleep(0.01)
            continue
        assert said.startswith(("Played", "Passed", "Done!")), said


async def test_with_the_page_open_the_dm_is_brought_up_to_date_at_the_end_of_a_hand(
    tmp_path: Path,
) -> None:
    async with table_in_group(tmp_path) as (double, app, table, _, ana, bob):
        game = table.game
        assert game is not None
        seat = table.seat_of(ana.id)
        assert seat is not None
        dm = table.ui.dm_message_ids[seat]
        async with open_page(app, signed(double, ana), table.id) as page:
            await until(lambda: page.states())
            await play_on_page(double, table, page, ana, bob, lambda: game.hand_number == 2)
            # The engine has dealt; once the move is stored the screens follow (the page
            # hears of it in the same step as the DM's edit is queued).
            await until(lambda: page.states()[-1]["hand"] == 2)
            await rooms_of(app).outbox.flush()
            # The last trick of hand 1 and the deal of hand 2 are complete moments: the
            # DM shows the new hand's cards to pass and hand 1's points, as they are.
            message = double.stored_message(ana.dm, dm)
            assert message is not None and message.text is not None
            assert "Trick 13/13" not in message.text and "Pass 3 cards" in message.text
            assert len(card_buttons(double, ana, dm)) == 13
            points = game.hand_history[0].points
            shown = f"\u2068Ana\u2069 {points[seat]}"
            assert shown in message.text, (shown, message.text)


async def test_a_finished_games_page_shows_the_end_and_its_dm_keeps_the_button(
    tmp_path: Path,
) -> None:
    async with table_in_group(tmp_path, target="50") as (double, app, table, _, ana, bob):
        game = table.game
        assert game is not None
        seat = table.seat_of(ana.id)
        assert seat is not None
        dm = table.ui.dm_message_ids[seat]
        async with open_page(app, signed(double, ana), table.id) as page:
            await until(lambda: page.states())
            await play_on_page(double, table, page, ana, bob, lambda: game.phase == "over")
            await until(lambda: page.states()[-1]["ended"] == "finished")
        await rooms_of(app).outbox.flush()
        message = double.stored_message(ana.dm, dm)
        assert message is not None and "Game over" in (message.text or "")
        rows = (message.reply_markup or {}).get("inline_keyboard", [])
        pages = [b for row in rows for b in row if "web_app" in b]
        assert pages and pages[0]["web_app"]["url"].endswith(f"/app/?g={table.id}")
        assert rooms_of(app).registry.get(table.id) is None  # the bot has let it go
        async with open_page(app, signed(double, ana), table.id) as again:
            await until(lambda: again.states() or again.closed_code is not None)
            assert again.states(), again.received
            final = again.states()[-1]
            assert final["ended"] == "finished" and final["status"].startswith("🏁 Game over.")
            assert final["over"]["winners"] == list(game.winners)
            assert len(final["history"]["hands"]) == len(game.hand_history)


async def test_a_hint_on_the_page_goes_through_the_coach_and_shows_there(
    tmp_path: Path,
) -> None:
    async with (
        table_in_group(tmp_path) as (double, app, table, _, ana, _),
        open_page(app, signed(double, ana), table.id) as page,
    ):
        await until(lambda: page.states())
        assert page.states()[-1]["hint"] == {"button": "💡 Hint", "lines": []}
        said = await page.press(hint(table.id, 1))
        assert said.startswith("💡 "), said
        await until(lambda: page.states()[-1]["hint"]["lines"])
        lines = page.states()[-1]["hint"]["lines"]
        assert lines[0].startswith("💡 The expert would pass ") and "<b>" not in lines[0]
        assert said[2:].strip() in lines[0]
        assert rooms_of(app).registry.require(table.id).hints_used[1][table.seat_of(ana.id)] == 1


async def test_no_hint_on_the_page_of_a_table_with_hints_off(tmp_path: Path) -> None:
    async with (
        table_in_group(tmp_path, hints="off") as (double, app, table, _, ana, _),
        open_page(app, signed(double, ana), table.id) as page,
    ):
        await until(lambda: page.states())
        assert page.states()[-1]["hint"] is None
        said = await page.press(hint(table.id, 1))
        assert said == "Hints are off at this table (⚙ Rules)."


async def test_a_game_whose_group_removed_the_bot_tells_its_pages(tmp_path: Path) -> None:
    async with table_in_group(tmp_path) as (double, app, table, group, ana, bob):
        seat = table.seat_of(bob.id)
        assert seat is not None
        dm = table.ui.dm_message_ids[seat]
        async with open_page(app, signed(double, bob), table.id) as page:
            await until(lambda: page.states())
            group.remove_bot(by=ana)
            await until(lambda: page.states()[-1]["ended"] == "cancelled")
            assert not any(c["legal"] for c in page.states()[-1]["cards"])
        await asyncio.sleep(0.1)
        await rooms_of(app).outbox.flush()
        message = double.stored_message(bob.dm, dm)
        assert message is not None and "removed" in (message.text or "")
        assert not card_buttons(double, bob, dm)


async def test_choosing_cards_to_pass_on_the_page_spares_the_dm(tmp_path: Path) -> None:
    """The new deal is shown in the DM; the cards then chosen and passed on the page are not
    (until the hand's first trick is complete)."""
    from bot_harness import seat_everyone

    async with running_double() as double:
        people = [double.create_user(n, username=n.lower()) for n in ("Ana", "Bob", "Cy", "Di")]
        ana = people[0]
        group = double.create_group("Four", members=people)
        async with running_bot(double, tmp_path / "hearts.sqlite3", pages=True) as app:
            # Four people: nobody has passed yet while Ana chooses (computers pass at once).
            lobby, table = await seat_everyone(double, app, group, people)
            await ana.press(group, lobby, "▶ Start")
            await double.wait_for(lambda: len(table.ui.dm_message_ids) == 4, 5)
            await choose_and_pass_on_page(double, app, table, ana)


async def choose_and_pass_on_page(
    double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
    table: Table,
    ana: SandboxUser,
) -> None:
    game = table.game
    assert game is not None
    seat = table.seat_of(ana.id)
    assert seat is not None
    dm = table.ui.dm_message_ids[seat]
    async with open_page(app, signed(double, ana), table.id) as page:
        await until(lambda: page.states())
        await rooms_of(app).outbox.flush()
        before = len([e for e in double.events if e.kind == "edited"])
        for n, card in enumerate(game.hand(seat)[:3], start=1):
            assert await page.press(tap(table.id, 1, card.code), n) == f"{n}/3 selected"
            await rooms_of(app).outbox.flush()
        assert await page.press(pass_chosen(table.id, 1), 9) == "Passed. Waiting for the others…"
        await rooms_of(app).outbox.flush()
        edits = [e for e in double.events if e.kind == "edited"][before:]
        assert not [e for e in edits if e.chat_id == ana.dm and e.message_id == dm]


async def flood_silently(
    session: aiohttp.ClientSession, url: str, forwarded: str, sockets: list[Any]
) -> None:
    """Open silent connections as fast as one client can, each naming `forwarded`."""
    while True:
        sockets.append(await session.ws_connect(url, headers={"X-Forwarded-For": forwarded}))


@pytest.mark.alone
async def test_behind_the_proxy_a_flood_from_one_address_leaves_other_pages_alone(
    tmp_path: Path,
) -> None:
    """Every connection comes from the proxy (loopback, trusted by default); each names its
    client in X-Forwarded-For. A flood from one client pushes out only its own silent
    connections, even when a genuine page's hello takes a slow network's round trip."""
    from bot.live.server import MAX_SILENT_PER_ADDRESS

    async with (
        table_with_two_people(tmp_path) as (double, app, table, ana, _, _),
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session,
    ):
        server = app.live_server
        assert server is not None
        url, silent = page_url(app), []
        flood = [
            asyncio.create_task(flood_silently(session, url, "203.0.113.9, 127.0.0.1", silent))
            for _ in range(4)
        ]
        try:
            await until(lambda: len(silent) >= 2 * MAX_SILENT_PER_ADDRESS)
            before = len(silent)
            async with session.ws_connect(url, headers={"X-Forwarded-For": "192.0.2.10"}) as ws:
                page = PageClient(ws)
                reader = asyncio.create_task(page.read())
                # A phone's slow round trip: its hello arrives after more of the flood's
                # connections than one address keeps (they would push it out).
                await until(lambda: len(silent) - before > MAX_SILENT_PER_ADDRESS + 1, timeout=2.5)
                started = time.monotonic()
                hello = {"t": "hello", "init": signed(double, ana), "game": table.id}
                with contextlib.suppress(ConnectionError):  # pushed out already
                    await ws.send_str(json.dumps(hello))
                await until(lambda: page.states() or page.closed_code is not None, timeout=5)
                took = time.monotonic() - started
                await ws.close()
                await reader
        finally:
            for task in flood:
                task.cancel()
            await asyncio.gather(*flood, return_exceptions=True)
        assert page.states(), page.received  # it got in, not pushed out
        assert took < 1.0, took
        assert server.silent() <= MAX_SILENT_PER_ADDRESS
        await asyncio.gather(*(ws.close() for ws in silent))


async def test_a_forged_forwarded_address_from_an_untrusted_peer_is_ignored(
    tmp_path: Path,
) -> None:
    import ipaddress

    from bot.live.server import MAX_SILENT_PER_ADDRESS

    async with (
        table_with_two_people(tmp_path) as (_, app, _, _, _, _),
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session,
    ):
        server = app.live_server
        assert server is not None
        server.trusted_proxies = (ipaddress.ip_network("192.0.2.1"),)  # not this peer
        silent = [
            await session.ws_connect(page_url(app), headers={"X-Forwarded-For": f"10.0.0.{n}"})
            for n in range(1, 3 * MAX_SILENT_PER_ADDRESS)
        ]
        # Each named another address; all came from 127.0.0.1, which keeps its share only.
        await until(lambda: server.silent() <= MAX_SILENT_PER_ADDRESS)
        assert server.silent() == MAX_SILENT_PER_ADDRESS
        await asyncio.gather(*(ws.close() for ws in silent))


async def test_a_strangers_hello_for_an_ended_game_is_refused_before_loading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with table_in_group(tmp_path) as (double, app, table, group, ana, bob):
        eve = double.create_user("Eve", username="eve")
        await ana.send(group, "/cancel")
        rooms = rooms_of(app)
        await until(lambda: rooms.registry.get(table.id) is None)
        loaded: list[int] = []
        load_game = rooms.storage.games.load_game

        async def counted(game_id: int, *, verify: bool = True) -> Any:
            loaded.append(game_id)
            return await load_game(game_id, verify=verify)

        monkeypatch.setattr(rooms.storage.games, "load_game", counted)
        for game in (table.id, table.id + 1000):
            async with open_page(app, signed(double, eve), game) as page:
                await until(lambda page=page: page.closed_code is not None)
            refused = page.last("refused")
            assert refused is not None and "not sitting at this table" in refused["text"]
            assert loaded == []
            assert page.closed_code == REFUSED and not page.states()
        # Bob sat there: his page loads the game and shows how it ended.
        async with open_page(app, signed(double, bob), table.id) as page:
            await until(lambda: page.states() or page.closed_code is not None)
            assert page.states() and page.states()[-1]["ended"] == "cancelled"
        assert loaded == [table.id]


async def test_a_persons_hellos_are_paced(tmp_path: Path) -> None:
    from bot.live.server import HELLO_BURST

    async with table_with_two_people(tmp_path) as (double, app, table, ana, bob, _):
        answers: list[tuple[bool, int | None]] = []
        for _ in range(HELLO_BURST + 4):
            async with open_page(app, signed(double, ana), table.id) as page:
                await until(lambda page=page: page.states() or page.closed_code is not None)
            answers.append((bool(page.states()), page.closed_code))
        assert all(seen for seen, _ in answers[:HELLO_BURST]), answers
        assert answers[HELLO_BURST:] == [(False, FLOOD)] * 4, answers
        refused = page.last("refused")
        assert refused is not None and refused["text"] == "Slow down a little."
        # Another person is not paced by Ana's hellos.
        async with open_page(app, signed(double, bob), table.id) as other:
            await until(lambda: other.states() or other.closed_code is not None)
            assert other.states()
