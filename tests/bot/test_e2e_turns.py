"""Time, absence and restarts: the turn timer, computer take-overs, /rejoin, resuming."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import replace
from pathlib import Path

import pytest
from bot_harness import (
    FAST,
    card_button,
    open_table,
    play_turn,
    rooms_of,
    running_bot,
    seat_everyone,
    table_in,
)
from sqlalchemy import text

from bot.tables.model import TableUI
from sandbox.testing import running_double
from storage.database import rows_changed


async def test_timeouts_play_for_a_person_and_three_in_a_row_hand_the_seat_over(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        alice = double.create_user("Alice")
        group = double.create_group("Slowpokes", members=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await alice.start_bot()
            await double.wait_for(lambda: alice.dm_view().last() is not None, 5)
            lobby = await open_table(double, alice, group, computers=3)
            table = table_in(app, group)
            table.options.turn_timer = 2  # the menu offers 30 s and up; tests cannot wait that long
            await alice.press(group, lobby, "▶ Start")
            seat = table.seat_of(alice.id)
            assert seat is not None
            s = table.seats[seat]
            assert s is not None
            await double.wait_for(lambda: table.seats[seat].away, 15)  # type: ignore[union-attr]

            def group_texts() -> list[str]:
                return [m.text or "" for m in double.chat_view(group.id).visible]

            await double.wait_for(
                lambda: any(
                    "plays for \u2068Alice\u2069 until \u2068Alice\u2069 sends /rejoin" in t
                    for t in group_texts()
                ),
                5,
            )
            # One group message, edited from the first timeout to the take-over.
            assert sum("ran out of time" in t for t in group_texts()) == 1

            def reminders() -> list[bool]:
                return [m.deleted for m in alice.dm_view().messages if "1 s left" in (m.text or "")]

            await double.wait_for(lambda: reminders() and all(reminders()), 5)  # gone once played
            # The first came during the pass, and says so (it said "to play": issue 51).
            first = next(m.text for m in alice.dm_view().messages if "1 s left" in (m.text or ""))
            assert "⏰ 1 s left to choose your pass in" in (first or ""), first
            await double.wait_for(
                lambda: any("Send /rejoin" in (m.text or "") for m in alice.dm_view().messages), 5
            )
            # The computer now plays Alice's seat without waiting for a timer.
            game = table.game
            assert game is not None
            played = len(game.tricks)
            await double.wait_for(
                lambda: len(game.tricks) >= played + 2 or game.hand_number > 1, 10
            )
            # Its screen closed at once, saying why: no card there is Alice's to play now.
            away = (
                "You timed out 3 times in a row, so a computer player holds your seat. "
                "Send /rejoin to take it back."
            )

            def card_screens() -> list[int]:
                return [
                    m.message_id
                    for m in alice.dm_view().bot_messages
                    if any((b.callback_data or "").startswith("c:") for b in m.all_buttons())
                ]

            await double.wait_for(lambda: not card_screens(), 5)
            assert sum(m.text == away for m in alice.dm_view().bot_messages) == 2  # and told
            await alice.send(alice.dm, "/rejoin")
            await double.wait_for(lambda: not table.seats[seat].away, 5)  # type: ignore[union-attr]
            assert table.seats[seat].timeouts == 0  # type: ignore[union-attr]
            await double.wait_for(lambda: len(card_screens()) == 1, 5)  # one, sent anew
            await double.wait_for(
                lambda: any(
                    "is back" in (m.text or "") for m in double.chat_view(group.id).visible
                ),
                5,
            )


async def test_a_pass_timeout_storage_refuses_tells_nobody_and_counts_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Three people let the pass run out while storage refuses moves: the first stand-in's
    pass is refused, so no seat counts a timeout or goes away, nobody gets the away DM and
    the group is told nothing, as if the timer had not run out."""
    async with running_double() as double:
        people = [double.create_user(n) for n in ("Ana", "Bob", "Cy")]
        group = double.create_group("Refused passes", members=people, admins=people[:1])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            lobby, table = await seat_everyone(double, app, group, people)
            await people[0].press(group, lobby, "🤖 Add computer")
            rooms = rooms_of(app)
            table.options = replace(table.options, turn_timer=3)
            # The first timeout already hands the seat over: the away DM is at stake too.
            rooms.clock.config = replace(rooms.clock.config, timeouts_before_away=1)
            await people[0].press(group, lobby, "▶ Start")
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            assert game is not None and game.phase == "pass"
            seats = [table.seat_of(p.id) for p in people]
            computer = next(n for n in range(4) if n not in seats)
            await double.wait_for(lambda: game.has_passed(computer), 5)
            storage = rooms.storage
            assert storage.dialect == "sqlite"
            refuse = text(
                "CREATE TRIGGER refuse_moves BEFORE INSERT ON moves"
                " BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
            )
            await storage.database.transact(rows_changed, refuse)
            assert all(n is not None and n in game.waiting_for() for n in seats)

            await double.wait_for(
                lambda: any(f"timer turn:{table.id}" in r.getMessage() for r in caplog.records),
                10,
            )
            await double.idle()
            for seat in seats:
                s = table.seats[seat]  # type: ignore[index]
                assert s is not None and (s.timeouts, s.away) == (0, False)
            assert table.game is not None
            assert all(not table.game.has_passed(n) for n in seats)  # type: ignore[arg-type]
            group_texts = [m.text or "" for m in double.chat_view(group.id).bot_messages]
            assert not any("ran out of time" in x for x in group_texts), group_texts
            for person in people:
                assert not any("Send /rejoin" in (m.text or "") for m in person.dm_view().messages)


async def test_a_restart_in_the_middle_of_a_trick_loses_nothing(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    async with running_double() as double:
        people = [double.create_user(n) for n in ("Alice", "Bob", "Carol", "Dave")]
        group = double.create_group("Restart", members=people)
        async with running_bot(double, database) as app:
            lobby, table = await seat_everyone(double, app, group, people)
            await people[0].press(group, lobby, "▶ Start")
            game = table.game
            assert game is not None
            gid = table.id
            while len(game.tricks) < 2 or len(game.trick) != 2:
                for p in people:
                    if len(game.tricks) >= 2 and len(game.trick) == 2:
                        break
                    await play_turn(double, p, table)
            before = game.to_json()
        # A new process of the bot on the same database.
        async with running_bot(double, database) as app:
            rooms = rooms_of(app)
            assert gid in rooms.registry.tables
            table = rooms.registry.tables[gid]
            game = table.game
            assert game is not None
            assert game.to_json() == before
            assert len(game.trick) == 2
            # The DMs show the trick again and the game goes on to the end of the hand.
            seat = game.current_player
            assert seat is not None
            card = game.legal_plays()[0]
            data = await card_button(double, people[seat], card, game.hand_number)
            assert (
                await people[seat].press(people[seat].dm, None, data=data)
                == f"Played {card.symbol}"
            )
            while game.hand_number == 1:
                for p in people:
                    if game.hand_number == 1:
                        await play_turn(double, p, table)
            assert len(game.hand_history) == 1
            assert sum(game.hand_history[0].points) in (26, 78)
            replayed = await rooms.storage.games.replay(gid)
            assert replayed.to_json() == game.to_json()


async def test_a_your_turn_nudge_waits_out_a_429_flood_and_arrives(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 29.7: Telegram answers 429 (retry after 1 s) to every message for Alice's DM
    for 4.5 s from her pass on, longer than four tries last; her "your turn" nudge is
    retried until it goes through, and no timer fails."""
    caplog.set_level(logging.INFO)
    async with running_double() as double:
        alice = double.create_user("Alice")
        group = double.create_group("Flooded", members=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await alice.start_bot()
            await double.wait_for(lambda: alice.dm_view().last() is not None, 5)
            lobby = await open_table(double, alice, group, computers=3, timer="0")
            table = table_in(app, group)
            await alice.press(group, lobby, "▶ Start")
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            seat = table.seat_of(alice.id)
            assert game is not None and seat is not None
            await card_button(double, alice, game.hand(seat)[0], game.hand_number)

            def nudges() -> list[str]:
                return [
                    m.text or ""
                    for m in alice.dm_view().messages
                    if (m.text or "").startswith("👉 Your turn")
                ]

            double.flood("sendMessage", 4.5, retry_after=1, chat_id=alice.dm)
            flooded_at = time.monotonic()
            await play_turn(double, alice, table)  # the pass; then the computers lead
            await double.wait_for(lambda: game.phase == "play", 5)
            await double.wait_for(lambda: seat in game.waiting_for(), 5)
            await double.wait_for(nudges, 10)
            assert time.monotonic() - flooded_at >= 4.0, "sent through the flood, not before"
            refused = [e for e in double.errors if e.error_code == 429 and e.chat_id == alice.dm]
            assert len(refused) >= 4, "more than four tries: it outlasted the outbox's old limit"
    assert nudges() == ["👉 Your turn in \u2068Flooded\u2069!"]
    failed = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert not failed, failed


async def test_the_your_turn_message_comes_late_to_someone_looking_at_the_table(
    tmp_path: Path,
) -> None:
    """Issue 35, item 4: a person whose phone just buzzed with their table's new screen (a
    game's first deal), or who pressed at the table in the last minute, sees their turn as
    their screen changes: their "your turn" message (a write, and a buzz) comes only if they
    are still away after `engaged_nudge_delay`. Someone away for longer gets it at
    `nudge_delay`. When each seat was last active is kept with the table."""
    tuning = replace(FAST, nudge_delay=0.2, engaged_nudge_delay=2.5)
    async with running_double() as double:
        alice = double.create_user("Alice")
        group = double.create_group("Engaged", members=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3", tuning) as app:
            await alice.start_bot()
            await double.wait_for(lambda: alice.dm_view().last() is not None, 5)
            lobby = await open_table(double, alice, group, computers=3, timer="0")
            table = table_in(app, group)
            clock = rooms_of(app).clock

            def notices(start: str) -> list[str]:
                return [
                    m.text or ""
                    for m in alice.dm_view().messages
                    if (m.text or "").startswith(start)
                ]

            await alice.press(group, lobby, "▶ Start")
            await double.wait_for(lambda: table.game is not None, 5)
            started = time.monotonic()
            game = table.game
            seat = table.seat_of(alice.id)
            assert game is not None and seat is not None
            # The first deal came as a new message in her DM: it buzzed already.
            await asyncio.sleep(1.5)
            assert not notices("👉 Choose 3 cards"), "her new screen buzzed a moment ago"
            await double.wait_for(lambda: notices("👉 Choose 3 cards"), 5)
            assert time.monotonic() - started >= 2.0
            await play_turn(double, alice, table)  # three cards chosen, then Pass
            assert seat in table.ui.active_at
            again = TableUI.from_dict(json.loads(json.dumps(table.ui.to_dict())))
            assert again.active_at == table.ui.active_at  # its keys are seats again
            await double.wait_for(lambda: game.phase == "play" and seat in game.waiting_for(), 5)
            turn_began = time.monotonic()
            await asyncio.sleep(1.5)
            assert seat in game.waiting_for()
            assert not notices("👉 Your turn"), "she pressed a moment ago: no buzz yet"
            await double.wait_for(lambda: notices("👉 Your turn"), 5)
            assert time.monotonic() - turn_began >= 2.0
            assert notices("👉 Your turn") == ["👉 Your turn in \u2068Engaged\u2069!"]
            # Away for more than a minute: the message comes early again.
            assert clock.nudge_delay(table, seat) == 2.5
            table.ui.active_at[seat] -= 61
            assert clock.nudge_delay(table, seat) == 0.2
