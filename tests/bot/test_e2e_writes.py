"""Bot API writes per card (issue 35, item 4): a card in the middle of a trick edits the
mover's DM and the next player's, and no one else's; the trick's last card brings every DM
up to date. The next player's DM shows their turn as soon as the card is taken."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from bot_harness import FAST, play_turn, running_bot, seat_everyone

from bot.core.effects import Urgency
from bot.telegram.draw import PRIORITY
from bot.telegram.pace import Pacer
from sandbox.testing import running_double

QUIET = replace(FAST, nudge_delay=600.0)
"""No "your turn" message during the test: only the screens' writes are counted."""


async def test_a_card_mid_trick_edits_two_dms_and_a_trick_brings_all_up_to_date(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        people = [double.create_user(name) for name in ("Ann", "Bob", "Cid", "Dee")]
        group = double.create_group("Writes", members=people)
        async with running_bot(double, tmp_path / "db.sqlite3", QUIET) as app:
            lobby, table = await seat_everyone(double, app, group, people)
            await people[0].press(group, lobby, "▶ Start")
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            assert game is not None
            for person in people:  # everyone passes (the first hand passes to the left)
                await play_turn(double, person, table)
            assert game.phase == "play"
            await double.idle()
            by_seat = {table.seat_of(p.id): p for p in people}
            dm_ids = {p.dm for p in people}
            mid_trick = trick_ends = 0
            while game.phase == "play" and len(game.tricks) < 6:
                (seat,) = game.waiting_for()
                mover = by_seat[seat]
                double.reset_counters()
                toast = await play_turn(double, mover, table)
                assert toast is not None and toast.startswith("Played")
                await double.idle()
                edited = {
                    chat
                    for chat in dm_ids
                    if double.call_count("editMessageText", chat_id=chat) > 0
                }
                sends = {chat for chat in dm_ids if double.call_count("sendMessage", chat_id=chat)}
                assert not sends  # nothing new in a DM: the screens are edited
                for chat in dm_ids:  # one edit at most per DM and card
                    assert double.call_count("editMessageText", chat_id=chat) <= 1
                (acting,) = game.waiting_for()
                next_player = by_seat[acting]
                # The one whose turn it is sees it (and the card just played).
                screen = next_player.dm_view().last()
                assert screen is not None and "Your turn." in (screen.text or "")
                if game.trick:  # the trick goes on: only the mover's and the next DMs
                    assert edited == {mover.dm, next_player.dm}
                    mid_trick += 1
                else:  # the trick is complete: everyone sees who took it
                    assert edited == dm_ids
                    last = game.tricks[-1]
                    for person in people:
                        shown = person.dm_view().last()
                        assert shown is not None and "Last trick:" in (shown.text or "")
                        card = last.plays[-1][1].symbol
                        assert card in (shown.text or "")
                    trick_ends += 1
            assert mid_trick == 18 and trick_ends == 6


async def test_when_writes_wait_the_next_players_screen_goes_before_the_movers() -> None:
    """More to write than Telegram takes (100 tables on one account): the screen of the
    person the game waits for goes first, then the mover's (whose toast already said what
    they played), then replies, notices and the rest."""
    pacer = Pacer(per_second=50)
    await pacer.turn(PRIORITY[Urgency.EDIT])  # takes the current slot: the rest wait
    served: list[Urgency] = []

    async def wait(urgency: Urgency) -> None:
        await pacer.turn(PRIORITY[urgency])
        served.append(urgency)

    await asyncio.gather(*(wait(u) for u in (Urgency.EDIT, Urgency.PLAYED, Urgency.NOW)))
    assert served == [Urgency.NOW, Urgency.PLAYED, Urgency.EDIT]


async def test_a_press_on_a_dm_a_trick_left_behind_shows_the_trick_as_it_is(
    tmp_path: Path,
) -> None:
    """Mid-trick the others' DMs are not written; whoever presses in one is looking at it:
    the press is refused (not their turn) and their DM shows the trick as it is now."""
    async with running_double() as double:
        people = [double.create_user(name) for name in ("Ann", "Bob", "Cid", "Dee")]
        group = double.create_group("Stale", members=people)
        async with running_bot(double, tmp_path / "db.sqlite3", QUIET) as app:
            lobby, table = await seat_everyone(double, app, group, people)
            await people[0].press(group, lobby, "▶ Start")
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            assert game is not None
            for person in people:
                await play_turn(double, person, table)
            by_seat = {table.seat_of(p.id): p for p in people}
            for _ in range(2):  # two cards of the first trick
                (seat,) = game.waiting_for()
                await play_turn(double, by_seat[seat], table)
                await double.idle()
            (acting,) = game.waiting_for()
            (first, second) = (seat for seat, _ in game.trick)
            waiting = by_seat[first]  # led, and has not been written since
            assert acting not in (first, second)
            second_card = game.trick[1][1].symbol
            shown = waiting.dm_view().last()
            assert shown is not None and second_card not in (shown.text or "")
            card = game.hand(first)[0]
            data = f"c:{table.id}:{game.hand_number}:{card.code}"
            toast = await waiting.press(waiting.dm, shown.message_id, data=data)
            assert toast == "It is not your turn."
            await double.idle()
            shown = waiting.dm_view().last()
            assert shown is not None and second_card in (shown.text or "")
            assert "Your turn." not in (shown.text or "")
