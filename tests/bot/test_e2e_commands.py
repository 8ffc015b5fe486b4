"""Commands and lobby rules as people use them: /help, /rules, one table each, leaving."""

from __future__ import annotations

from pathlib import Path

from bot_harness import open_table, running_bot, table_in, wait_for_button

from sandbox.testing import running_double


async def _reply(double, chat_id: int, text: str):  # type: ignore[no-untyped-def]
    return await double.wait_for(
        lambda: next(
            (m for m in double.chat_view(chat_id).bot_messages if text in (m.text or "")), None
        ),
        5,
    )


async def test_help_rules_and_the_commands_telegram_shows(tmp_path: Path) -> None:
    async with running_double() as double:
        alice = double.create_user("Alice")
        group = double.create_group("Commands", members=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3"):
            assert any("newgame" in str(c) for c in double.commands.values())
            await alice.send(group, "/help")
            help_text = (await _reply(double, group.id, "/newgame")).text or ""
            for command in ("/join", "/leave", "/scores", "/stats", "/rules", "/rejoin", "/daily"):
                assert command in help_text
            await alice.send(group, "/rules")
            rules = (await _reply(double, group.id, "Follow suit")).text or ""
            assert "Lowest score wins when someone reaches 100" in rules
            await alice.send(group, "/join")
            assert (await _reply(double, group.id, "no table here")).text


async def test_the_host_manages_seats_and_the_chat_remembers_its_rules(tmp_path: Path) -> None:
    async with running_double() as double:
        alice, bob = double.create_user("Alice"), double.create_user("Bob")
        group = double.create_group("Hosts", members=[alice, bob])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            for p in (alice, bob):
                await p.start_bot()
            await double.wait_for(lambda: bob.dm_view().last() is not None, 5)
            lobby = await open_table(double, alice, group, players="3", variant="omnibus_jd")
            await alice.press(group, lobby, "🤖 Add computer")
            await wait_for_button(double, group.id, lobby, "✖ 2")
            assert (
                await bob.press(group, lobby, "✖ 2") == "Only Alice or a group admin can do that."
            )
            assert await alice.press(group, lobby, "✖ 2") == "Seat emptied."
            assert table_in(app, group).seats[1] is None
            assert await alice.press(group, lobby, "✖ Cancel") == "Table cancelled."
            await double.wait_for(
                lambda: "cancelled" in (double.chat_view(group.id).message(lobby).text or ""),  # type: ignore[union-attr]
                5,
            )
            # A new table in this chat starts from the rules chosen last time.
            await alice.send(group, "/newgame")
            await double.wait_for(
                lambda: double.chat_view(group.id).bot_messages[-1].message_id > lobby, 5
            )
            newest = double.chat_view(group.id).bot_messages[-1].text or ""
            assert "3 players" in newest and "Omnibus J♦" in newest


async def test_one_table_at_a_time_and_leaving_mid_game(tmp_path: Path) -> None:
    async with running_double() as double:
        alice, bob = double.create_user("Alice"), double.create_user("Bob")
        one = double.create_group("One", members=[alice, bob])
        two = double.create_group("Two", members=[alice, bob])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            for p in (alice, bob):
                await p.start_bot()
            await double.wait_for(lambda: bob.dm_view().last() is not None, 5)
            lobby_one = await open_table(double, alice, one, computers=2)
            await bob.press(one, lobby_one, "✋ Join")
            lobby_two = await open_table(double, bob, two)
            assert await alice.press(two, lobby_two, "✋ Join") == (
                "You're already playing at another table. Finish or /leave it first."
            )
            await alice.press(one, lobby_one, "▶ Start")
            table = table_in(app, one)
            game = table.game
            assert game is not None
            await bob.send(one, "/leave")
            await _reply(double, one.id, "\u2068Bob\u2069 left; a computer player takes the seat.")
            seat = table.seat_of(bob.id)
            assert seat is not None
            assert table.seats[seat] is not None and table.seats[seat].away  # type: ignore[union-attr]
            # The computer passes for Bob: only Alice is waited for.
            await double.wait_for(lambda: game.waiting_for() == [table.seat_of(alice.id)], 5)
