"""What a newcomer's first games show in the group and the DM (issue 19, items 1, 2 and 8).

Messages that stop being true are edited or deleted; the end of a game is announced once,
with a button for a rematch; /scores shows the last game until a new one starts; an idle
player causes one group message per spell of timeouts, edited as it goes on.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from bot_harness import (
    FAST,
    card_button,
    open_table,
    play_turn,
    rooms_of,
    running_bot,
    seat_everyone,
    start_with_computers,
    table_in,
)

from bot.i18n import english
from sandbox.double import BotApiDouble
from sandbox.testing import running_double

t = english()


def _living(double: BotApiDouble, person: Any) -> Any:
    """The person's living game message in their DM (the one with the cards)."""
    return next(
        m for m in reversed(person.dm_view().visible) if (m.text or "").startswith("♥ Hearts")
    )


def group_texts(double: BotApiDouble, chat_id: int) -> list[str]:
    return [m.text or m.caption or "" for m in double.chat_view(chat_id).visible]


async def test_cancel_of_a_started_game_edits_its_table_message_and_says_so_once(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        alice, bob = double.create_user("Alice"), double.create_user("Bob")
        group = double.create_group("Cancel", members=[alice, bob], admins=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            _, table = await start_with_computers(double, app, group, [alice, bob])
            await double.idle()
            before = len(double.chat_view(group.id).bot_messages)
            await alice.send(group, "/cancel")
            await double.wait_for(lambda: table.status == "cancelled", 5)
            await double.idle()
            new = double.chat_view(group.id).bot_messages[before:]
            assert [m.text for m in new] == ["✖ The game was cancelled by \u2068Alice\u2069."]
            shown = double.chat_view(group.id).message(table.ui.table_message_id or 0)
            assert shown is not None and "cancelled during hand 1" in (shown.text or "")
            assert "Turn:" not in (shown.text or "") and list(shown.all_buttons()) == []
            for person in (alice, bob):
                last = person.dm_view().bot_messages[-1]
                assert "cancelled by \u2068Alice\u2069" in (last.text or "") and not list(
                    last.all_buttons()
                )


async def test_a_finished_game_is_announced_once_offers_a_rematch_and_stays_in_scores(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        alice = double.create_user("Alice")
        group = double.create_group("End", members=[alice], admins=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await alice.start_bot()
            await double.idle()
            lobby = await open_table(double, alice, group, computers=3, target="50")
            await alice.press(group, lobby, "▶ Start")
            table = table_in(app, group)
            await double.wait_for(lambda: table.game is not None, 5)
            await alice.send(group, "/leave")  # the computers play the game to its end
            await double.wait_for(lambda: table.status == "finished", 60)
            # The chart is drawn before it is sent: wait for it, not for a quiet moment.
            await double.wait_for(
                lambda: any(m.has_photo for m in double.chat_view(group.id).visible), 10
            )
            await double.idle(quiet=0.3)

            texts = group_texts(double, group.id)
            announced = [x for x in texts if "Game over" in x]
            # The table's message (edited to the final standings) and the chart's caption.
            assert len(announced) == 2, texts
            charts = [m for m in double.chat_view(group.id).visible if m.has_photo]
            assert len(charts) == 1
            final = double.chat_view(group.id).message(lobby)
            assert final is not None and "Final scores" in (final.text or "")

            before = len(double.chat_view(group.id).bot_messages)
            await alice.send(group, "/scores")
            await double.wait_for(lambda: len(double.chat_view(group.id).bot_messages) > before, 5)
            scores = double.chat_view(group.id).bot_messages[-1].text or ""
            assert scores.startswith("The last game here")
            assert "Hand 1" in scores

            toast = await alice.press(group, lobby, "🔁 New game")
            assert toast == t("A new table is open: same rules, same seats.")
            rematch = await double.wait_for(
                lambda: next(
                    (tb for tb in rooms_of(app).registry if tb.status == "lobby"),
                    None,
                ),
                5,
            )
            assert rematch.id != table.id and rematch.rules == table.rules
            assert [s.kind for s in rematch.seats if s is not None] == ["human"] + ["computer"] * 3
            assert rematch.seat_of(alice.id) == 0
            # Pressed again, the chat already has its table.
            again = await alice.press(group, lobby, "🔁 New game")
            assert again == t("There's already a table in this chat: it's the newer message below.")


@pytest.mark.alone
async def test_an_idle_player_causes_one_group_message_edited_as_it_goes_on(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        alice, bob = double.create_user("Alice"), double.create_user("Bob")
        group = double.create_group("Idle", members=[alice, bob], admins=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3", replace(FAST)) as app:
            lobby, table = await seat_everyone(double, app, group, [alice, bob])
            rooms = rooms_of(app)
            await alice.press(group, lobby, "🤖 Add computer")
            await alice.press(group, lobby, "🤖 Add computer")
            table.options = replace(table.options, turn_timer=1)
            rooms.clock.config = replace(rooms.clock.config, timeouts_before_away=3)
            await alice.press(group, lobby, "▶ Start")
            await double.wait_for(lambda: table.game is not None, 5)
            before = len(double.chat_view(group.id).bot_messages)
            # Alice plays whenever it is her turn; Bob never does.
            bob_seat = table.seat_of(bob.id)
            assert bob_seat is not None

            while not table.seats[bob_seat].away:  # type: ignore[union-attr]
                await play_turn(double, alice, table)
                await double.wait_for(
                    lambda: (
                        table.seats[bob_seat].away  # type: ignore[union-attr]
                        or table.seat_of(alice.id) in table.game.waiting_for()
                    ),  # type: ignore[union-attr]
                    10,
                )
            # The group is told once the stand-in's move is stored (Bob is away just before).
            await double.wait_for(
                lambda: any(
                    (m.text or "").startswith("💤 \u2068Bob\u2069")
                    for m in double.chat_view(group.id).bot_messages[before:]
                ),
                5,
            )
            await double.idle()
            new = [m.text or "" for m in double.chat_view(group.id).bot_messages[before:]]
            about_bob = [x for x in new if "Bob" in x]
            assert len(about_bob) == 1, new
            assert about_bob[0].startswith("💤 \u2068Bob\u2069 ran out of time 3 times in a row")
            # Bob was reminded before each timeout; none of the reminders is still shown.
            reminders = [m for m in bob.dm_view().messages if (m.text or "").startswith("⏰")]
            assert reminders and all(m.deleted for m in reminders)


@pytest.mark.alone
async def test_the_pressers_own_screen_is_edited_at_once_with_production_dm_pacing(
    tmp_path: Path,
) -> None:
    """Two cards chosen a moment apart: the second highlight shows without waiting out the
    DM's one-second edit interval (issue 19, item 7)."""
    tuning = replace(FAST, dm_edit_interval=1.0)
    async with running_double() as double:
        alice = double.create_user("Alice")
        group = double.create_group("Quick", members=[alice], admins=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3", tuning) as app:
            await alice.start_bot()
            await double.idle()
            lobby = await open_table(double, alice, group, computers=3)
            started = await alice.press(group, lobby, "▶ Start")
            assert started == "Dealing the cards…", started
            table = table_in(app, group)
            await double.wait_for(lambda: table.game is not None, 5)
            seat = table.seat_of(alice.id)
            assert seat is not None and table.game is not None
            first, second = table.game.hand(seat)[:2]
            await double.idle()
            await asyncio.sleep(2.1)  # the deal's messages are out and the DM's pace is idle
            for card in (first, second):
                data = await card_button(double, alice, card, 1)
                began = time.monotonic()
                await alice.press(alice.dm, None, data=data)
                await double.wait_for(
                    lambda c=card: any(
                        b.label == f"[{c.symbol}]"
                        for m in alice.dm_view().bot_messages
                        for b in m.all_buttons()
                    ),
                    5,
                )
                assert time.monotonic() - began < 0.5, card


async def test_passed_cards_are_no_longer_buttons_while_the_others_choose(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        alice, bob = double.create_user("Alice"), double.create_user("Bob")
        group = double.create_group("Pass", members=[alice, bob], admins=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            _, table = await start_with_computers(double, app, group, [alice, bob])
            seat = table.seat_of(alice.id)
            assert seat is not None and table.game is not None
            passed = table.game.hand(seat)[-3:]  # what play_turn passes
            assert await play_turn(double, alice, table) is not None
            await double.idle()
            screen = _living(double, alice)
            labels = [b.label for b in screen.all_buttons()]
            assert not any(c.symbol in label for c in passed for label in labels), labels
            assert (
                sum(1 for b in screen.all_buttons() if (b.callback_data or "").startswith("c:"))
                == 10
            )
            assert "You passed" in (screen.text or "")


async def test_screens_name_people_and_label_what_their_numbers_are(tmp_path: Path) -> None:
    """A person called You does not collide with the reader (issue 19, item 4); the group's
    standings say what their numbers are, and a chosen card's label is short (item 5)."""
    async with running_double() as double:
        alice, you = double.create_user("Alice"), double.create_user("You")
        group = double.create_group("Names", members=[alice, you], admins=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            lobby, table = await start_with_computers(double, app, group, [alice, you])
            await double.idle()
            seat = table.seat_of(alice.id)
            assert seat is not None and table.game is not None
            card = table.game.hand(seat)[0]
            await alice.press(alice.dm, None, data=await card_button(double, alice, card, 1))
            await double.idle()
            screen = _living(double, alice)
            text = screen.text or ""
            assert "\u2068Alice\u2069 (you) 0" in text and " \u2068You\u2069 0" in text
            other = _living(double, you).text or ""
            assert "\u2068You\u2069 (you) 0" in other and "\u2068Alice\u2069 0" in other
            assert f"[{card.symbol}]" in [b.label for b in screen.all_buttons()]
            shown = double.chat_view(group.id).message(lobby)
            assert shown is not None
            # While passing there are no points this hand: totals alone, titled plainly.
            assert "Scores\n" in (shown.text or "") and "(0)" not in (shown.text or "")


async def test_people_who_time_out_at_once_share_one_group_message_naming_what_was_chosen(
    tmp_path: Path,
) -> None:
    """Issue 30.7: three people whose pass timer runs out together get one group message,
    which says three cards were chosen to pass (not "a card"), edited as the spells go on."""
    async with running_double() as double:
        people = [double.create_user(n) for n in ("Ana", "Bob", "Cy")]
        group = double.create_group("Slow", members=people, admins=people[:1])
        async with running_bot(double, tmp_path / "db.sqlite3", replace(FAST)) as app:
            lobby, table = await seat_everyone(double, app, group, people)
            await people[0].press(group, lobby, "🤖 Add computer")
            table.options = replace(table.options, turn_timer=1)
            await people[0].press(group, lobby, "▶ Start")
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            assert game is not None
            before = len(double.chat_view(group.id).bot_messages)
            await double.wait_for(lambda: game.phase == "play", 10)
            # The group is told once the last stand-in's pass is stored.
            await double.wait_for(
                lambda: any(
                    "ran out of time" in (m.text or "")
                    for m in double.chat_view(group.id).bot_messages[before:]
                ),
                5,
            )
            await double.idle()
            new = [m for m in double.chat_view(group.id).bot_messages[before:]]
            about = [m for m in new if "ran out of time" in (m.text or "")]
            assert len(about) == 1, [m.text for m in new]
            lines = (about[0].text or "").split("\n")
            names = [f"\u2068{p.name}\u2069" for p in people]
            assert lines == [
                f"⏱ {n} ran out of time (1×); a computer player chose the three cards {n} passes."
                for n in names
            ]
            # The spell goes on for whoever times out next: the same message, edited.
            seats = [table.seat_of(p.id) for p in people]
            await double.wait_for(lambda: any(table.seats[s].timeouts >= 2 for s in seats), 10)  # type: ignore[index,union-attr]
            # The group is told once the stand-in's move is stored (the count is up before).
            await double.wait_for(
                lambda: any(
                    "(2×)" in (m.text or "")
                    for m in double.chat_view(group.id).bot_messages[before:]
                ),
                5,
            )
            await double.idle()
            about = [
                m
                for m in double.chat_view(group.id).bot_messages[before:]
                if "ran out of time" in (m.text or "")
            ]
            assert len(about) == 1
            lines = (about[0].text or "").split("\n")
            assert len(lines) == 3 and any(
                line.startswith(f"⏱ {n} ran out of time (2×); a computer player chose a card")
                for n in names
                for line in lines
            ), lines


async def test_the_dm_states_the_turns_length_which_stays_true_not_a_stale_countdown(
    tmp_path: Path,
) -> None:
    """Issue 30.7: "⏱ 2:00 left" was the time left when the DM was last drawn; the DM now
    says how long a turn is and that a reminder comes, which stays true while it is shown."""
    async with running_double() as double:
        ana = double.create_user("Ana")
        group = double.create_group("Timed", members=[ana])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await ana.start_bot()
            await double.wait_for(lambda: ana.dm_view().last() is not None, 5)
            lobby = await open_table(double, ana, group, computers=3, timer="60")
            await ana.press(group, lobby, "▶ Start")
            table = table_in(app, group)
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            assert game is not None
            seat = table.seat_of(ana.id)
            await play_turn(double, ana, table)  # her pass
            await double.wait_for(lambda: game.phase == "play" and game.current_player == seat, 10)
            line = t(
                "⏱ {time} a turn; a ⏰ reminder comes at half time.",
                time=t("{seconds} s", seconds=60),
            )
            await double.wait_for(lambda: line in (_living(double, ana).text or ""), 5)
            assert "left" not in (_living(double, ana).text or "")
