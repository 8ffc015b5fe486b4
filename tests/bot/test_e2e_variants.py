"""Every player count and variant through the bot; forum topics; Bot API calls per hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from bot_harness import open_table, play_turn, rooms_of, running_bot, seat_everyone, table_in

from sandbox.testing import running_double

VARIANTS = [
    ({"players": "2"}, "Two-player"),
    ({"players": "3"}, "3 players"),
    ({"players": "5"}, "5 players"),
    ({"players": "6"}, "6 players"),
    ({"variant": "omnibus_jd"}, "Omnibus J♦"),
    ({"variant": "omnibus_td"}, "Omnibus 10♦"),
    ({"variant": "complex"}, "Complex"),
]


@pytest.mark.parametrize(("rules", "shown"), VARIANTS, ids=[v[1] for v in VARIANTS])
async def test_a_hand_of_every_variant_with_computer_players(
    tmp_path: Path, rules: dict[str, str], shown: str
) -> None:
    async with running_double() as double:
        alice = double.create_user("Alice")
        group = double.create_group("Variants", members=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await alice.start_bot()
            await double.wait_for(lambda: alice.dm_view().last() is not None, 5)
            lobby = await open_table(double, alice, group, **rules)
            table = table_in(app, group)
            players = table.rules.players
            for _ in range(players - 1):
                await alice.press(group, lobby, "🤖 Add computer")
            await double.wait_for(
                lambda: shown in (double.chat_view(group.id).message(lobby).text or ""),
                5,  # type: ignore[union-attr]
            )
            await alice.press(group, lobby, "▶ Start")
            game = table.game
            assert game is not None and game.rules.players == players
            while not game.hand_history:
                if await play_turn(double, alice, table) is None:
                    await double.wait_for(
                        lambda: (
                            bool(game.hand_history) or table.seat_of(alice.id) in game.waiting_for()
                        ),
                        10,
                    )
            result = await double.wait_for(
                lambda: next(
                    (m for m in double.chat_view(group.id).visible if "Hand 1" in (m.text or "")),
                    None,
                ),
                5,
            )
            points = game.hand_history[0].points
            if table.rules.variant == "complex":
                assert all(isinstance(p, complex) for p in points)
                # A total shows its magnitude when it has both parts (else it is plain).
                totals = game.hand_history[0].totals
                mixed = any(round(z.real) and round(z.imag) for z in totals)  # type: ignore[union-attr]
                assert ("|z|" in (result.text or "")) == mixed, result.text
            elif table.rules.variant == "two_player":
                dead = {c.code for c in game.hand_history[0].dead}
                in_play = sum(1 for r in "2468TQA" if f"{r}H" not in dead)
                in_play += 0 if "QS" in dead else 13
                assert sum(points) in (in_play, 20)
            else:
                bonus = -10 if table.rules.bonus_card else 0
                assert sum(points) in (26 + bonus, 26 * (players - 1) + bonus, -26 + bonus)


async def test_a_table_in_a_forum_topic_stays_in_that_topic(tmp_path: Path) -> None:
    async with running_double() as double:
        alice = double.create_user("Alice")
        group = double.create_group("Forum", members=[alice], forum=True)
        topic = group.create_topic("Card games", by=alice)
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await alice.start_bot()
            await double.wait_for(lambda: alice.dm_view().last() is not None, 5)
            await alice.send(group, "/newgame", thread_id=topic)
            lobby = await double.wait_for(
                lambda: next(
                    (m for m in double.chat_view(group.id).bot_messages if m.buttons), None
                ),
                5,
            )
            assert lobby.thread_id == topic
            for _ in range(3):
                await alice.press(group, lobby.message_id, "🤖 Add computer")
            await alice.press(group, lobby.message_id, "▶ Start")
            table = table_in(app, group)
            assert table.thread_id == topic
            game = table.game
            assert game is not None
            while not game.hand_history:
                if await play_turn(double, alice, table) is None:
                    await double.wait_for(
                        lambda: (
                            bool(game.hand_history) or table.seat_of(alice.id) in game.waiting_for()
                        ),
                        10,
                    )
            await double.wait_for(
                lambda: any("Hand 1" in (m.text or "") for m in double.chat_view(group.id).visible),
                5,
            )
            assert all(m.thread_id == topic for m in double.chat_view(group.id).bot_messages)
            # Another table can open in the general chat at the same time.
            await alice.send(group, "/newgame")
            reply = await double.wait_for(
                lambda: next(
                    (m for m in double.chat_view(group.id).bot_messages if m.thread_id is None),
                    None,
                ),
                5,
            )
            assert reply.buttons and "Seats" in (reply.text or "")
            assert table_in(app, group).seat_of(alice.id) is not None  # still at her own table


async def test_bot_api_calls_for_one_hand_of_four_people(tmp_path: Path) -> None:
    """Counts what one 4-player hand costs in the group and in each DM (printed with -s)."""
    async with running_double() as double:
        people = [double.create_user(n) for n in ("Alice", "Bob", "Carol", "Dave")]
        group = double.create_group("Counting", members=people)
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            lobby, table = await seat_everyone(double, app, group, people)
            await people[0].press(group, lobby, "▶ Start")
            game = table.game
            assert game is not None
            await double.idle()
            double.reset_counters()
            while game.hand_number == 1:
                for p in people:
                    if game.hand_number == 1:
                        await play_turn(double, p, table)
            await rooms_of(app).outbox.flush()
            await double.idle()
            group_calls = double.calls_in_chat(group.id)
            dm_calls = [double.calls_in_chat(p.dm) for p in people]
            print("group:", dict(group_calls), "total", sum(group_calls.values()))
            for p, calls in zip(people, dm_calls, strict=True):
                print(f"{p.name} DM:", dict(calls), "total", sum(calls.values()))
            # Without coalescing (test pacing), the group gets one table edit per move and a
            # result; each DM one edit per move, plus its own toasts and turn notices.
            assert sum(group_calls.values()) <= 60
            assert all(sum(c.values()) <= 130 for c in dm_calls)
