"""Games of people only, and everything people do wrong, through the real stack."""

from __future__ import annotations

from pathlib import Path

import pytest
from bot_harness import (
    card_button,
    open_table,
    play_turn,
    rooms_of,
    running_bot,
    seat_everyone,
    table_in,
)

from bot.core import decode as cb
from bot.tables.config import Dealing
from domain.people import ChatSettings
from engine import Rules
from sandbox.testing import running_double


@pytest.mark.parametrize(
    "length",
    [
        # By default a game of one hand (the group's rules: to 1 point, ties shared, as a
        # tournament's); a game to 50 set in the rules menu (four hands or more, about four
        # times as long) with --run-slow.
        "one hand",
        pytest.param("to 50", marks=pytest.mark.slow),
    ],
)
async def test_four_people_play_a_whole_game_one_joins_through_a_deep_link(
    tmp_path: Path, length: str
) -> None:
    async with running_double() as double:
        people = [double.create_user(n) for n in ("Alice", "Bob", "Carol", "Dave")]
        alice, bob, carol, dave = people
        group = double.create_group("Hearts Club", members=people)
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            for p in (alice, bob, carol):
                await p.start_bot()
            await double.wait_for(lambda: double.chat_view(carol.dm).last() is not None, 5)
            if length == "one hand":
                await rooms_of(app).storage.people.save_chat_settings(
                    ChatSettings(group.id, rules=Rules(target=1, ties="share").to_dict())
                )
                lobby = await open_table(double, alice, group)
            else:
                lobby = await open_table(double, alice, group, target="50")
            assert (
                await bob.press(group, lobby, "✋ Join")
                == "You're in! Your cards will come in a DM."
            )
            assert await bob.press(group, lobby, "✋ Join") == "You're already at this table."
            await carol.press(group, lobby, "✋ Join")
            # Dave never opened the bot: Join answers with a deep link, the seat waits for him.
            answer = await dave.press(group, lobby, "✋ Join")
            assert answer is not None and "can't message you yet" in answer
            await double.wait_for(lambda: dave.button_deep_link(group, "Open my cards in a DM"), 5)
            payload = dave.button_deep_link(group, "Open my cards in a DM")
            assert payload is not None
            table = table_in(app, group)
            assert table.seat_of(dave.id) is None
            await dave.start_bot(payload)
            await double.wait_for(lambda: table.seat_of(dave.id) is not None, 5)
            # Only the host (or an admin) starts.
            assert (
                await bob.press(group, lobby, "▶ Start")
                == "Only Alice or a group admin can do that."
            )
            assert await alice.press(group, lobby, "▶ Start") == "Dealing the cards…"
            game = table.game
            assert game is not None
            while game.phase != "over":
                acted = False
                for person in people:
                    if await play_turn(double, person, table) is not None:
                        acted = True
                if not acted:
                    await double.wait_for(
                        lambda: (
                            game.phase == "over"
                            or any(table.seat_of(p.id) in game.waiting_for() for p in people)
                        ),
                        5,
                    )
            await double.wait_for(
                lambda: any(
                    "Game over" in (m.text or "") for m in double.chat_view(group.id).visible
                ),
                5,
            )
            assert not double.unanswered_callbacks()
            # The result is in the standings.
            await alice.send(group, "/scores")
            board = await double.wait_for(
                lambda: next(
                    (
                        m
                        for m in double.chat_view(group.id).visible
                        if "leaderboard" in (m.text or "")
                    ),
                    None,
                ),
                5,
            )
            winner = table.name(game.winners[0])
            assert winner in (board.text or "")


async def test_bad_input_gets_a_toast_and_never_changes_the_game(tmp_path: Path) -> None:
    async with running_double() as double:
        people = [double.create_user(n) for n in ("Alice", "Bob", "Carol", "Dave", "Eve")]
        alice, bob, carol, dave, eve = people
        group = double.create_group("Hearts Club", members=people)
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            for p in people:
                await p.start_bot()
            await double.wait_for(lambda: double.chat_view(eve.dm).last() is not None, 5)
            # Commands in the wrong chat.
            await alice.send(alice.dm, "/newgame")
            reply = await double.wait_for(
                lambda: next(
                    (
                        m
                        for m in alice.dm_view().bot_messages
                        if "opened in a group" in (m.text or "")
                    ),
                    None,
                ),
                5,
            )
            assert "Tables are opened in a group" in (reply.text or "")
            lobby = await open_table(double, alice, group)
            for p in (bob, carol, dave):
                await p.press(group, lobby, "✋ Join")
            table = table_in(app, group)
            # A full table says so and offers no Join (issue 51); a Join pressed on an
            # older copy of the message is answered.
            full = await double.wait_for(
                lambda: (
                    (m := double.chat_view(group.id).message(lobby)) is not None
                    and "The table is full" in (m.text or "")
                    and m
                ),
                5,
            )
            assert "Join" not in str(full.labels) and "Add computer" not in str(full.labels)
            assert "Tap Join" not in (full.text or "")
            join = cb.SitDown(table.id).encode()
            assert await eve.press_forged(group, lobby, join) == "The table is full."
            # Someone else tries the host's buttons.
            assert (
                await eve.press(group, lobby, "⚙ Rules")
                == "Only Alice or a group admin can do that."
            )
            await alice.press(group, lobby, "▶ Start")
            game = table.game
            assert game is not None
            gid, hand = table.id, game.hand_number
            # Pass phase: everybody passes, so play begins.
            for p in people[:4]:
                await play_turn(double, p, table)
            await double.wait_for(lambda: game.phase == "play", 5)
            before = game.to_json()
            leader = game.current_player
            assert leader is not None
            mover = next(p for p in people if table.seat_of(p.id) == leader)
            waiter = next(p for p in people[:4] if table.seat_of(p.id) != leader)
            # Out of turn.
            waiter_card = game.hand(table.seat_of(waiter.id) or 0)[0]
            data = await card_button(double, waiter, waiter_card, hand)
            assert await waiter.press(waiter.dm, None, data=data) == "It is not your turn."
            # An illegal card (the first lead must be the 2♣).
            wrong = next(c for c in game.hand(leader) if c.code != "2C")
            data = await card_button(double, mover, wrong, hand)
            assert (
                await mover.press(mover.dm, None, data=data)
                == "The first trick must be led with 2♣."
            )
            # A card not in the hand, forged.
            dm_message = mover.dm_view().bot_messages[-1].message_id
            not_mine = next(c for c in game.hand(table.seat_of(waiter.id) or 0) if c.code != "2C")
            toast = await mover.press_forged(
                mover.dm, dm_message, f"c:{gid}:{hand}:{not_mine.code}"
            )
            assert toast == f"You don't have {not_mine.symbol}."
            # A stale button from an earlier hand, garbage, and a stranger's forged press.
            assert await mover.press_forged(mover.dm, dm_message, f"c:{gid}:{hand + 5}:2C") == (
                "That button is from an earlier hand."
            )
            assert await mover.press_forged(mover.dm, dm_message, "zz:1:2:3") == (
                "That button isn't valid any more."
            )
            assert await mover.press_forged(mover.dm, dm_message, "c:abc:1:2C") == (
                "That button isn't valid any more."
            )
            eve_message = eve.dm_view().bot_messages[-1].message_id
            assert await eve.press_forged(eve.dm, eve_message, f"c:{gid}:{hand}:2C") == (
                "These aren't your cards."
            )
            assert game.to_json() == before
            # A double tap: the second press of the same card changes nothing more.
            data = await card_button(double, mover, game.hand(leader)[0], hand)
            first = await mover.press(mover.dm, None, data=data, wait=False)
            assert first is None
            second = await mover.press(mover.dm, None, data=data)
            assert second in ("It is not your turn.", "You don't have 2♣.", "Played 2♣")
            await double.wait_for(lambda: len(game.trick) == 1, 5)
            await double.idle()
            assert len(game.trick) == 1 and game.trick[0][1].code == "2C"
            assert not double.unanswered_callbacks()
            # The journal agrees with the game in memory, move for move.
            replayed = await rooms_of(app).storage.games.replay(gid)
            assert replayed.to_json() == game.to_json()


MOON_DEAL = [
    ["AC", "AD", "AS", "KS", "QS", "AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H"],
    ["2C", "3C", "4C", "5C", "2D", "3D", "4D", "5D", "2S", "3S", "4S", "2H", "3H"],
    ["6C", "7C", "8C", "9C", "6D", "7D", "8D", "9D", "5S", "6S", "7S", "4H", "5H"],
    ["TC", "JC", "QC", "KC", "TD", "JD", "QD", "KD", "8S", "9S", "TS", "JS", "6H"],
]


async def test_a_moon_shot_lets_the_shooter_choose(tmp_path: Path) -> None:
    async with running_double() as double:
        people = [double.create_user(n) for n in ("Alice", "Bob", "Carol", "Dave")]
        alice = people[0]
        group = double.create_group("Moon", members=people)
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            lobby, table = await seat_everyone(double, app, group, people)
            table.rules = Rules(pass_cycle=("hold",))
            rooms_of(app).lobby.deal_source = lambda _table: Dealing(1, [MOON_DEAL])
            await alice.press(group, lobby, "▶ Start")
            game = table.game
            assert game is not None
            while game.phase == "play":
                seat = game.current_player
                assert seat is not None
                person = people[seat]
                legal = game.legal_plays()
                card = (
                    max(legal, key=lambda c: c.rank)
                    if seat == 0
                    else min(legal, key=lambda c: c.rank)
                )
                data = await card_button(double, person, card, 1)
                assert await person.press(person.dm, None, data=data) == f"Played {card.symbol}"
            assert game.phase == "moon" and game.current_player == 0
            await double.wait_for(
                lambda: any(
                    b.label == "−26 for me"
                    for m in alice.dm_view().bot_messages
                    for b in m.all_buttons()
                ),
                5,
            )
            # Nobody else can choose for the shooter.
            bob_msg = people[1].dm_view().bot_messages[-1].message_id
            assert await people[1].press_forged(people[1].dm, bob_msg, f"m:{table.id}:1:a") == (
                "Only the player who shot the moon chooses."
            )
            assert await alice.press(alice.dm, None, "−26 for me") == "Done!"
            assert game.hand_history[0].points == (-26, 0, 0, 0)
            assert game.hand_history[0].moon_choice == "subtract_from_shooter"
            await double.wait_for(
                lambda: any(
                    "shot the moon" in (m.text or "") for m in double.chat_view(group.id).visible
                ),
                5,
            )
