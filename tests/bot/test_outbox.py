"""The outbox's order under Telegram's overall pace, and its stop.

The pace is what decides what a person sees first when there is more to say than
Telegram's 30 requests a second allow: these tests run a real python-telegram-bot `Bot`
against the double and read the order of what reached it.
"""

from __future__ import annotations

import asyncio
import struct
import time
import zlib

import pytest

from bot.telegram.outbox import Outbox
from bot.telegram.pace import (
    DELETE,
    EDIT,
    GROUP_EDIT,
    IDLE,
    MOVED,
    PLAYED,
    POST,
    URGENT,
    Pacer,
)
from sandbox.double import BotApiDouble
from sandbox.testing import make_bot, running_double


async def test_the_pacer_serves_waiting_turns_most_urgent_first() -> None:
    pacer = Pacer(per_second=50)
    await pacer.turn(EDIT)  # takes the current slot: everyone below has to wait
    served: list[int] = []

    async def wait(priority: int) -> None:
        await pacer.turn(priority)
        served.append(priority)

    # Queued least urgent first, so arrival order would give the opposite answer.
    waiting = [IDLE, GROUP_EDIT, EDIT, DELETE, MOVED, POST, URGENT, PLAYED]
    await asyncio.gather(*(wait(p) for p in waiting))
    assert served == [PLAYED, URGENT, POST, MOVED, DELETE, EDIT, GROUP_EDIT, IDLE]


@pytest.mark.alone
async def test_a_promoted_wait_goes_first_and_its_old_place_costs_no_turn() -> None:
    pacer = Pacer(per_second=10)
    await pacer.turn(EDIT)
    served: list[str] = []

    async def wait(name: str, priority: int) -> None:
        await pacer.turn(priority, key=name)
        served.append(name)

    waits = [asyncio.create_task(wait(n, EDIT)) for n in ("ann", "bob", "cy")]
    await asyncio.sleep(0)  # all three are queued, in that order
    pacer.promote("cy", URGENT)
    pacer.promote("ann", GROUP_EDIT)  # never moves a wait down
    began = time.monotonic()
    await asyncio.gather(*waits)
    assert served == ["cy", "ann", "bob"]
    # Three turns after the first one: three gaps of 100 ms, not four.
    assert time.monotonic() - began < 0.35


async def test_the_pacer_keeps_its_pace() -> None:
    pacer = Pacer(per_second=40)
    began = time.monotonic()
    await asyncio.gather(*(pacer.turn(EDIT) for _ in range(9)))
    # The first turn is free; the other eight wait a gap of 25 ms each.
    assert time.monotonic() - began >= 8 * 0.025 * 0.9


async def _chats(double: BotApiDouble) -> tuple[int, int]:
    person = double.create_user("Ann", username="ann")
    await person.start_bot()
    group = double.create_group("Hearts night", members=[person], admins=[person])
    return person.dm, group.id


async def test_under_load_what_people_wait_for_goes_first_and_the_group_table_last() -> None:
    async with running_double() as double, make_bot(double) as bot:
        dm, group = await _chats(double)
        # 5 a second: the requests below queue up behind the sends' pace.
        outbox = Outbox(bot, group_interval=0.0, dm_interval=0.0, per_second=5)
        ids = [await outbox.send(dm, name) for name in ("acting", "moved", "other", "nudge")]
        table = await outbox.send(group, "table")
        assert table is not None and None not in ids
        acting, moved, other, nudge = (i for i in ids if i is not None)
        first = len(double.events)
        # A turn taken just now (not a send's, which may answer late on a busy machine): the
        # requests below all wait for the next one.
        assert outbox.pacer is not None
        await outbox.pacer.turn(URGENT)
        # All at once, least urgent first: the group's table (even asked for as an ordinary
        # edit), another game's screen, a stale "your turn", the screen of who just played,
        # an announcement, and the screen of the person who must act now.
        outbox.edit(group, table, "table, one card later")
        outbox.edit(dm, other, "another game, one card later")
        await outbox.delete(dm, nudge)
        outbox.edit(dm, moved, "the card you played is gone", priority=MOVED)
        outbox.post(group, "Ann took the trick")
        outbox.edit(dm, acting, "your turn", priority=URGENT)
        await outbox.flush(timeout=5.0)
        order = [(e.kind, e.chat_id, e.message_id) for e in double.events[first:]]
        await outbox.close()
    assert order == [
        ("edited", dm, acting),
        ("sent", group, table + 1),
        ("edited", dm, moved),
        ("deleted", dm, nudge),
        ("edited", dm, other),
        ("edited", group, table),
    ]


async def test_an_ordinary_edit_waiting_its_turn_jumps_the_queue_when_it_becomes_urgent() -> None:
    async with running_double() as double, make_bot(double) as bot:
        dm, _ = await _chats(double)
        outbox = Outbox(bot, group_interval=0.0, dm_interval=0.0, per_second=5)
        screens = [await outbox.send(dm, f"screen {n}") for n in range(3)]
        assert all(screens)
        first = len(double.events)
        for n, message_id in enumerate(screens):
            assert message_id is not None
            outbox.edit(dm, message_id, f"screen {n}, one card later")
        await asyncio.sleep(0.01)  # the three edits wait in the pace, in that order
        last = screens[2]
        assert last is not None
        outbox.edit(dm, last, "screen 2: your turn", priority=URGENT)
        await outbox.flush(timeout=5.0)
        order = [e.message_id for e in double.events[first:] if e.kind == "edited"]
        texts = [e.message.text for e in double.events[first:] if e.message is not None]
        await outbox.close()
    assert order == [screens[2], screens[0], screens[1]]
    assert "screen 2: your turn" in texts
    assert "screen 2, one card later" not in texts  # replaced before it was sent


async def test_a_message_no_longer_wanted_when_its_turn_comes_is_not_sent() -> None:
    async with running_double() as double, make_bot(double) as bot:
        dm, _ = await _chats(double)
        outbox = Outbox(bot, dm_interval=0.0, per_second=5)
        await outbox.send(dm, "your cards")
        moved = False
        nudge = asyncio.create_task(outbox.send(dm, "your turn", wanted=lambda: not moved))
        await asyncio.sleep(0.05)  # waiting for its turn in the pace
        moved = True
        assert await nudge is None
        assert [e.message.text for e in double.events if e.message is not None][-1] == (
            "your cards"
        )
        await outbox.close()


async def test_stopping_drops_what_the_pace_did_not_reach_without_sending_it() -> None:
    async with running_double() as double, make_bot(double) as bot:
        dm, _ = await _chats(double)
        outbox = Outbox(bot, dm_interval=0.0, per_second=2)  # one request every 0.5 s
        messages = [await outbox.send(dm, f"message {n}") for n in range(3)]
        for message_id in messages:
            assert message_id is not None
            await outbox.delete(dm, message_id)
        await outbox.close(grace=0.1)
        after_close = len(double.events)
        # The bot could still send: nothing the outbox held may reach Telegram now.
        await asyncio.sleep(2.0)
        assert len(double.events) == after_close
        assert sum(e.kind == "deleted" for e in double.events) < 3
        await outbox.close()  # post_shutdown closes it again after post_stop: harmless


async def test_a_later_state_keeps_the_urgency_of_the_one_it_replaces() -> None:
    async with running_double() as double, make_bot(double) as bot:
        dm, _ = await _chats(double)
        outbox = Outbox(bot, group_interval=0.0, dm_interval=0.0, per_second=5)
        screens = [await outbox.send(dm, f"screen {n}") for n in range(3)]
        first = len(double.events)
        s0, s1, s2 = (s for s in screens if s is not None)
        outbox.edit(dm, s0, "screen 0, one card later")
        outbox.edit(dm, s1, "screen 1, one card later")
        # Their turn, and before that is sent, another card: the person still must act.
        outbox.edit(dm, s2, "screen 2: your turn", priority=URGENT)
        outbox.edit(dm, s2, "screen 2: your turn, a card later", priority=EDIT)
        await outbox.flush(timeout=5.0)
        order = [e.message_id for e in double.events[first:] if e.kind == "edited"]
        await outbox.close()
    assert order == [s2, s0, s1]


async def test_after_stopping_a_send_waiting_for_its_turn_is_dropped() -> None:
    async with running_double() as double, make_bot(double) as bot:
        dm, _ = await _chats(double)
        outbox = Outbox(bot, dm_interval=0.0, per_second=2)
        await outbox.send(dm, "your cards")
        waiting = asyncio.create_task(outbox.send(dm, "your turn", priority=POST))
        await asyncio.sleep(0.05)
        await outbox.close(grace=0.0)
        assert await waiting is None
        await outbox.delete(dm, 1)
        await asyncio.sleep(0.6)
        texts = [e.message.text for e in double.events if e.message is not None]
        assert "your turn" not in texts
        assert not any(e.kind == "deleted" for e in double.events)


async def test_an_edit_that_waited_out_its_chats_pace_still_jumps_the_queue_when_urgent() -> None:
    """In production a DM keeps a pace of its own (an edit a second): an edit's worker
    that waited it out and then queued in the overall pace at EDIT must still move up
    when its screen becomes the acting person's. (It once stayed behind every other
    screen: at 50 tables, people's own screens lagged for minutes.)"""
    async with running_double() as double, make_bot(double) as bot:
        target, *others = [double.create_user(f"P{n}", username=f"p{n}") for n in range(6)]
        for person in (target, *others):
            await person.start_bot()
        outbox = Outbox(bot, group_interval=0.0, dm_interval=0.6, per_second=4)
        screens = {p.dm: await outbox.send(p.dm, f"{p.name}'s screen") for p in (target, *others)}
        await outbox.send(target.dm, "a notice")  # the target's chat has just had its turn
        first = len(double.events)
        for chat_id, message_id in screens.items():
            assert message_id is not None
            outbox.edit(chat_id, message_id, "one card later")
        # The others queue in the overall pace at once; the target's edit waits out its
        # chat's pace first, then queues behind them.
        await asyncio.sleep(0.5)
        target_screen = screens[target.dm]
        assert target_screen is not None
        outbox.edit(target.dm, target_screen, "your turn", priority=URGENT)
        await outbox.flush(timeout=10.0)
        order = [e.chat_id for e in double.events[first:] if e.kind == "edited"]
        await outbox.close()
    assert len(order) == 6
    assert target.dm in order[:3], order


async def test_a_caption_longer_than_telegram_allows_follows_its_picture_as_a_message() -> None:
    png = _one_pixel_png()
    async with running_double() as double, make_bot(double) as bot:
        _, group = await _chats(double)
        outbox = Outbox(bot, group_interval=0.0, per_second=100)
        short = await outbox.send_photo(group, png, "🏁 <b>Game over!</b> Ann won.")
        # Six tied winners with long names (Telegram allows 129 characters) and their
        # rating changes: over 1024.
        names = [f"{'Александра Константиновна ' * 4}{i}" for i in range(6)]
        changes = " · ".join(f"{name} +12" for name in names)
        long_caption = (
            f"🏁 <b>Игра окончена!</b> Победили {', '.join(names)}.\n📈 Рейтинг: {changes}"
        )
        assert len(long_caption) > 1024
        long = await outbox.send_photo(group, png, long_caption)
        await outbox.close()
        assert short is not None and long is not None
        shown = double.chat_view(group).bot_messages
        assert [(m.has_photo, m.text) for m in shown] == [
            (True, "🏁 Game over! Ann won."),
            (True, None),
            (False, long_caption.replace("<b>", "").replace("</b>", "")),
        ]
        assert shown[1].message_id == long
        assert not [e for e in double.errors if e.error_code == 400]


def _one_pixel_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\x00"))
        + chunk(b"IEND", b"")
    )


async def test_a_screens_wait_is_told_from_when_its_urgency_was_asked_for() -> None:
    """An idle change waits behind an edit a slow Telegram holds; then the screen becomes
    the acting person's (urgent): its wait is told from then, not from the idle change,
    once its edit went through (`Edits.on_shown`, which the metrics read)."""
    async with running_double() as double, make_bot(double) as bot:
        dm, _group = await _chats(double)
        outbox = Outbox(bot, group_interval=0.0, dm_interval=0.0)
        message = await outbox.send(dm, "the table")
        assert message is not None
        shown: list[tuple[int, int, float]] = []
        outbox.edits.on_shown = lambda chat, priority, seconds: shown.append(
            (chat, priority, seconds)
        )
        double.hold("editMessageText", dm)
        outbox.edit(dm, message, "a card in the middle of a trick", priority=IDLE)
        await double.wait_for(lambda: double.holding.get("editMessageText", 0) == 1, 5)
        outbox.edit(dm, message, "another card", priority=IDLE)  # waits behind the held one
        await asyncio.sleep(0.4)
        outbox.edit(dm, message, "your turn", priority=URGENT)
        await asyncio.sleep(0.1)
        double.release("editMessageText", dm)
        await outbox.flush(timeout=5.0)
        await outbox.close()
    assert double.chat_view(dm).message(message).text == "your turn"  # type: ignore[union-attr]
    (held, turn) = shown
    assert held[:2] == (dm, IDLE) and held[2] >= 0.5
    assert turn[:2] == (dm, URGENT) and 0.1 <= turn[2] < 0.4, turn
