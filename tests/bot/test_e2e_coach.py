"""The coach through the real python-telegram-bot stack against the Bot API double: a person
asks for a hint at the pass and on their turn, plays what it says, sees the hints counted
in the hand's results, and reviews the hand; hints refused where they are not offered."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from pathlib import Path

from bot_harness import (
    card_button,
    open_table,
    play_turn,
    rooms_of,
    running_bot,
    start_with_computers,
    table_in,
)

from bot.computers.thinker import HINT_WAIT_S, REVIEW
from bot.tables.model import Table
from engine import Card
from engine.cards import CARDS
from sandbox.double import BotApiDouble
from sandbox.people import SandboxUser
from sandbox.testing import running_double
from sandbox.views import MessageView


def _card(symbol: str) -> Card:
    return next(c for c in CARDS if c.symbol == symbol)


def _screen(double: BotApiDouble, person: SandboxUser) -> MessageView | None:
    """The person's living DM: their cards and the table from their seat."""
    for message in reversed(double.chat_view(person.dm).bot_messages):
        if (message.text or "").startswith("♥ Hearts ·"):
            return message
    return None


def _dm_labels(double: BotApiDouble, person: SandboxUser, table: Table) -> str:
    message = _screen(double, person)
    return str(message.labels) if message is not None else ""


def _dm_text(double: BotApiDouble, person: SandboxUser, table: Table) -> str:
    message = _screen(double, person)
    return (message.text or "") if message is not None else ""


async def _forge(double: BotApiDouble, person: SandboxUser, data: str) -> str | None:
    """Press ``data`` on the person's living DM, as a modified client could."""
    message = _screen(double, person)
    assert message is not None
    return await person.press_forged(person.dm, message.message_id, data)


async def _press_hint(double: BotApiDouble, person: SandboxUser, table: Table) -> str:
    """Press 💡 Hint in the person's DM; the toast, once the DM shows the hint."""
    await double.wait_for(lambda: "💡 Hint" in _dm_labels(double, person, table), 5)
    toast = await person.press(person.dm, None, "💡 Hint")
    assert toast is not None
    await double.wait_for(lambda: re.search("^💡 ", _dm_text(double, person, table), re.M), 5)
    return toast


async def test_a_hint_at_the_pass_and_on_a_turn_played_as_said_then_a_review(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        group = double.create_group("Hearts", members=[ann])
        async with running_bot(double, tmp_path / "hearts.sqlite3") as app:
            await ann.start_bot()
            await double.wait_for(lambda: ann.dm_view().last() is not None, 5)
            lobby = await open_table(double, ann, group, computers=3)
            await ann.press(group, lobby, "▶ Start")
            table = table_in(app, group)
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            assert game is not None
            seat = table.seat_of(ann.id)
            assert seat is not None

            # The pass: the hint names three cards and why; it does not pass them.
            toast = await _press_hint(double, ann, table)
            cards = [_card(s) for s in toast.removeprefix("💡 ").split()]
            assert len(cards) == 3 and all(c in game.hand(seat) for c in cards)
            screen = _dm_text(double, ann, table)
            assert "💡 The expert would pass" in screen
            assert "Expected points this hand:" in screen
            assert not game.has_passed(seat)
            # A second press on the same decision shows the same hint, and counts once.
            again = await ann.press(ann.dm, None, "💡 Hint")
            assert again == "💡 The hint is above your cards."
            for card in cards:
                await ann.press(ann.dm, None, data=await card_button(double, ann, card, 1))
            await double.wait_for(lambda: "Pass 3/3" in _dm_labels(double, ann, table), 5)
            await ann.press(ann.dm, None, lambda b: b.label.startswith("Pass 3/3"))
            await double.wait_for(lambda: game.phase == "play", 5)

            # A turn: the hint names a legal card; tapping it plays it as usual.
            await double.wait_for(lambda: game.current_player == seat, 10)
            legal = game.legal_plays()
            toast = await _press_hint(double, ann, table)
            (card,) = [_card(s) for s in toast.removeprefix("💡 ").split()]
            assert card in legal
            hinted_trick = len(game.view(seat).tricks) + 1
            played = await ann.press(ann.dm, None, data=await card_button(double, ann, card, 1))
            assert played == f"Played {card.symbol}"
            # The hint goes once the card is played.
            await double.wait_for(
                lambda: not re.search("^💡 ", _dm_text(double, ann, table), re.M), 5
            )

            refused = None
            asked = 2
            while True:
                if refused is None and game.current_player not in (seat, None):
                    # A hint is not for someone who is not to play.
                    refused = await _forge(double, ann, f"h:{table.id}:1:")
                    if (refused or "").startswith("💡 "):
                        asked += 1  # the computers played on: it was her turn by then
                    else:
                        assert refused in (
                            "A hint is for your turn or your pass.",
                            "That button is from an earlier hand.",  # the hand just ended
                        )
                await double.wait_for(
                    lambda: game.hand_number > 1 or game.current_player == seat, 10
                )
                if game.hand_number > 1:
                    break
                if game.phase == "moon":  # Ann took every point: she chooses
                    await double.wait_for(
                        lambda: "everyone else" in _dm_labels(double, ann, table), 5
                    )
                    await ann.press(ann.dm, None, lambda b: b.label.endswith("everyone else"))
                    continue
                card = game.legal_plays()[0]
                await ann.press(ann.dm, None, data=await card_button(double, ann, card, 1))
            assert refused is not None
            # The hand's results say who asked for hints, and how many.
            result = await double.wait_for(lambda: double.chat_view(group.id).find("Hand 1"), 10)
            assert re.search(rf"\u2068Ann\u2069 \d+ 💡{asked}\b", result.text or ""), result.text

            # The review of hand 1 comes in the DM (on the hand's screen: hand 2's "choose
            # 3 cards to pass" nudge may be below it by then).
            await double.wait_for(
                lambda: any(
                    "🔍 Review hand 1" in str(m.labels) for m in ann.dm_view().bot_messages
                ),
                5,
            )
            toast = await ann.press(ann.dm, None, "🔍 Review hand 1")
            assert toast == "🔍 Reviewing hand 1…"
            review = await double.wait_for(lambda: ann.dm_view().find("🔍 Hand 1"), 20)
            text = review.text or ""
            assert "well played" in text or "your costliest choices" in text
            if "costliest" in text:
                assert re.search(r"the expert would (play|pass)", text)
            # Issue 51: she passed and played as the hints said; the review, from the same
            # searches, never calls either a mistake.
            assert "The pass:" not in text
            assert f"Trick {hinted_trick}:" not in text
            assert not [e for e in double.errors if e.error_code == 400]
            rooms = rooms_of(app)
            assert rooms.registry.get(table.id) is table


async def test_hints_are_refused_where_the_table_turned_them_off(tmp_path: Path) -> None:
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        bob = double.create_user("Bob", username="bob")
        group = double.create_group("Hearts", members=[ann, bob])
        async with running_bot(double, tmp_path / "hearts.sqlite3") as app:
            await ann.start_bot()
            await bob.start_bot()
            await double.wait_for(lambda: bob.dm_view().last() is not None, 5)
            lobby = await open_table(double, ann, group, computers=3, hints="off")
            await ann.press(group, lobby, "▶ Start")
            table = table_in(app, group)
            await double.wait_for(lambda: table.game is not None, 5)
            await double.wait_for(lambda: "Pass 0/3" in _dm_labels(double, ann, table), 5)
            assert "💡 Hint" not in _dm_labels(double, ann, table)
            # A forged press (an old client's button) gets the reason, and nothing changes.
            refused = await _forge(double, ann, f"h:{table.id}:1:")
            assert refused == "Hints are off at this table (⚙ Rules)."
            assert table.ui.hints == {} and table.hints_used == {}
            # Someone else's game: not their cards.
            refused = await bob.press_forged(
                bob.dm, bob.dm_view().last().message_id, f"h:{table.id}:1:"
            )  # type: ignore[union-attr]
            assert refused == "These aren't your cards."
            # The next table in this group keeps the choice.
            assert not (await rooms_of(app).storage.people.get_chat_settings(group.id)).hints


async def test_scores_keep_every_hands_hint_count_across_a_restart(tmp_path: Path) -> None:
    """Issue 30.5: ``/scores`` listed 💡 only for the last two hands; now every hand's count
    is kept for the game, and stored, so a restart keeps them too."""
    database = tmp_path / "hearts.sqlite3"
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        group = double.create_group("Hearts", members=[ann])

        async def scores() -> str:
            before = len(double.chat_view(group.id).bot_messages)
            await ann.send(group, "/scores")
            message = await double.wait_for(
                lambda: next(
                    (
                        m
                        for m in double.chat_view(group.id).bot_messages[before:]
                        # /scores' answer, not a hand's result that came meanwhile
                        if "Standings" in (m.text or "") and "Hand 1" in (m.text or "")
                    ),
                    None,
                ),
                5,
            )
            return message.text or ""

        async with running_bot(double, database) as app:
            await ann.start_bot()
            await double.wait_for(lambda: ann.dm_view().last() is not None, 5)
            lobby = await open_table(double, ann, group, computers=3)
            await ann.press(group, lobby, "▶ Start")
            table = table_in(app, group)
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            assert game is not None
            seat = table.seat_of(ann.id)
            asked = {1: 1, 2: 2, 3: 1}  # hints per hand: at the pass, and on a turn in hand 2
            while game.hand_number <= 3:
                await double.wait_for(lambda: seat in game.waiting_for(), 10)
                hand = game.hand_number
                if hand > 3:
                    break
                used = table.hints_used.get(hand, {}).get(seat or 0, 0)
                if used < asked[hand] and (game.phase == "pass" or used == 1):
                    # On the living DM of this hand, once the bot knows it (a new hand's
                    # DM may still be on its way).
                    await double.wait_for(
                        lambda h=hand: f"hand {h}\n" in _dm_text(double, ann, table),  # type: ignore[misc]
                        5,
                    )
                    await double.idle()
                    await _press_hint(double, ann, table)
                await play_turn(double, ann, table)  # answered once the move is made
            text = await scores()
            for hand, n in asked.items():
                assert re.search(rf"Hand {hand}\b.*: .*Ann\u2069 -?\d+ 💡{n}\b", text), text
        async with running_bot(double, database) as app:
            text = await scores()
            for hand, n in asked.items():
                assert re.search(rf"Hand {hand}\b.*: .*Ann\u2069 -?\d+ 💡{n}\b", text), text


async def test_a_coach_busy_with_others_says_so_and_answers_once_it_is_free(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        bob = double.create_user("Bob", username="bob")
        group = double.create_group("Hearts", members=[ann, bob])
        async with running_bot(double, tmp_path / "hearts.sqlite3") as app:
            _, table = await start_with_computers(double, app, group, [ann, bob])
            rooms_of(app).coach.hints_at_once = 1  # a small bot: one hint thought out at once
            for person in (ann, bob):
                await double.wait_for(lambda p=person: "💡 Hint" in _dm_labels(double, p, table), 5)
            data = f"h:{table.id}:1:"
            both = await asyncio.gather(_forge(double, ann, data), _forge(double, bob, data))
            assert sorted(both, key=lambda a: not (a or "").startswith("💡 "))[1] == (
                "The coach is busy with other players just now. Try again in a few seconds."
            )
            assert sum((a or "").startswith("💡 ") for a in both) == 1
            # Once the first hint is out, the other person's press is answered.
            for person in (ann, bob):
                toast = await _forge(double, person, data)
                assert (toast or "").startswith("💡 ")
            assert table.hints_used[1] == {0: 1, 1: 1}


async def test_a_hint_the_busy_pool_cannot_start_in_time_says_so_and_the_next_is_answered(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        group = double.create_group("Hearts", members=[ann])
        async with running_bot(double, tmp_path / "hearts.sqlite3") as app:
            _, table = await start_with_computers(double, app, group, [ann])
            game = table.game
            assert game is not None
            await double.wait_for(lambda: game.waiting_for() == [0], 5)  # computers passed
            await double.wait_for(lambda: "💡 Hint" in _dm_labels(double, ann, table), 5)
            thinker = rooms_of(app).coach.thinker
            now = [time.monotonic()]
            thinker.clock = lambda: now[0]  # a manual clock
            gate = threading.Event()  # work that keeps the one worker busy
            held = asyncio.ensure_future(thinker.run(REVIEW, gate.wait, 10))
            await asyncio.sleep(0.05)
            press = asyncio.ensure_future(_forge(double, ann, f"h:{table.id}:1:"))
            await double.wait_for(lambda: thinker.waiting() == 1, 5)
            now[0] += HINT_WAIT_S + 0.1
            gate.set()
            assert await held
            assert await press == (
                "💡 Too busy to think about a hint right now. Try again in a moment."
            )
            assert 1 not in table.hints_used and not table.ui.hints
            # Once the pool is free, the same press is answered.
            toast = await _forge(double, ann, f"h:{table.id}:1:")
            assert (toast or "").startswith("💡 ") and "busy" not in (toast or "")
            assert table.hints_used[1] == {0: 1}


async def test_a_review_of_a_hand_that_does_not_exist_says_so(tmp_path: Path) -> None:
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        group = double.create_group("Hearts", members=[ann])
        async with running_bot(double, tmp_path / "hearts.sqlite3") as app:
            _, table = await start_with_computers(double, app, group, [ann])
            await double.wait_for(lambda: _screen(double, ann) is not None, 5)
            # Forged presses (hand 0; a hand far beyond the game's): no review starts.
            for hand in (0, 999999):
                toast = await _forge(double, ann, f"v:{table.id}:{hand}:")
                assert toast == f"There is no hand {hand} in this game."
            assert await _forge(double, ann, f"v:{table.id}:1:") == "That hand isn't over yet."
            await asyncio.sleep(0.5)
            assert not ann.dm_view().find("🔍 Hand")
