"""A group that removed the bot opens no table, and nobody is held by one (issue 29, item 4).

Telegram delivers presses on the old messages of a group that removed the bot: a
"🔁 New game" pressed there used to open a lobby nobody could see, seating its players and
holding them ("You're already playing at another table") for 6 hours. Now a press or a
command from a chat the bot is not in is answered once and changes nothing, whether the bot
was told (``my_chat_member``) or finds out from a 403; and ``/leave`` in a DM leaves the
person's lobby wherever it is.
"""

from __future__ import annotations

from pathlib import Path

from bot_harness import finished_game, open_table, rooms_of, running_bot, table_in

from bot.i18n import english, isolated_name
from sandbox.testing import running_double

t = english()
NOT_THERE = t("I'm not in that group any more: add me back to it to play there.")


async def test_new_game_in_a_group_that_removed_the_bot_opens_nothing(tmp_path: Path) -> None:
    async with running_double() as double:
        ana, bob = double.create_user("Ana"), double.create_user("Bob")
        group = double.create_group("Gone", members=[ana, bob], admins=[ana])
        other = double.create_group("Other", members=[bob])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            rooms = rooms_of(app)
            old = await finished_game(double, app, group, [ana, bob])
            group.remove_bot(by=ana)
            await double.wait_for(lambda: rooms.outbox.is_gone(group.id), 5)
            double.reset_counters()

            assert await bob.press(group, old, "🔁 New game") == NOT_THERE
            await bob.send(group, "/newgame")  # sent before the removal reached the bot
            await double.idle()
            assert not rooms.registry.tables
            assert rooms.registry.of_user(bob.id) is None
            assert await rooms.storage.games.game_in_chat(group.id, None) is None
            # The press answered once; nothing written to the group, nothing refused.
            assert double.calls_in_chat(group.id) == {"answerCallbackQuery": 1}
            assert double.error_count(403) == 0
            answers = [c for c in double.callbacks.values() if c.user_id == bob.id]
            assert all(c.answer is not None for c in answers)

            # Bob is free: he opens a table elsewhere, and sits at it.
            await open_table(double, bob, other)
            assert table_in(app, other).seat_of(bob.id) == 0


async def test_new_game_where_a_403_says_the_bot_was_removed_holds_nobody(
    tmp_path: Path,
) -> None:
    """The bot was never told (it was down, or the update is late): the lobby's message
    meets "bot was kicked", so the lobby is closed at once and the press says why."""
    async with running_double() as double:
        ana, bob = double.create_user("Ana"), double.create_user("Bob")
        group = double.create_group("Silent", members=[ana, bob], admins=[ana])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            rooms = rooms_of(app)
            old = await finished_game(double, app, group, [ana, bob])
            double.chat(group.id).bot_member = False  # removed, and no update about it

            assert await bob.press(group, old, "🔁 New game") == NOT_THERE
            await double.idle()
            assert not rooms.registry.tables
            assert rooms.registry.of_user(bob.id) is None
            assert rooms.registry.of_user(ana.id) is None
            assert await rooms.storage.games.game_in_chat(group.id, None) is None
            assert rooms.outbox.is_gone(group.id)
            # Known now: the next press is turned down without trying Telegram again.
            double.reset_counters()
            assert await ana.press(group, old, "🔁 New game") == NOT_THERE
            assert double.error_count(403) == 0


async def test_leave_in_a_dm_leaves_the_persons_lobby(tmp_path: Path) -> None:
    async with running_double() as double:
        ana, bob, cy = (double.create_user(n) for n in ("Ana", "Bob", "Cy"))
        group = double.create_group("Far", members=[ana, bob, cy], admins=[ana])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            rooms = rooms_of(app)
            for person in (ana, bob):
                await person.start_bot()
            await double.idle()
            lobby = await open_table(double, ana, group)
            await bob.press(group, lobby, "✋ Join")
            await cy.press(group, lobby, "✋ Join")  # no DM yet: he waits to sit
            table = table_in(app, group)
            assert table.seat_of(bob.id) == 1 and cy.id in table.pending

            for person in (bob, cy):
                before = len(person.dm_view().bot_messages)
                await person.send(person.dm, "/leave")
                await double.wait_for(
                    lambda p=person, n=before: len(p.dm_view().bot_messages) > n,
                    5,
                )
                assert person.dm_view().bot_messages[-1].text == t("You left the table.")
            assert table.seat_of(bob.id) is None and cy.id not in table.pending
            assert rooms.registry.of_user(bob.id) is None
            stored = await rooms.storage.games.load_game(table.id)
            assert stored.seat_of(bob.id) is None and stored.meta["pending"] == {}

            await bob.send(bob.dm, "/leave")
            await double.wait_for(
                lambda: (
                    bob.dm_view().bot_messages[-1].text == t("You're not sitting at any table.")
                ),
                5,
            )

            # In a game, /leave in the DM hands the seat to a computer, and the group hears it.
            await ana.press(group, lobby, "▶ Start")
            await double.wait_for(lambda: table.game is not None, 5)
            await ana.send(ana.dm, "/leave")
            left = t(
                "🚪 {name} left; a computer player takes the seat. Unless they /rejoin, "
                "their rating counts them last in this game.",
                name=isolated_name("Ana"),
            )
            await double.wait_for(
                lambda: left in [m.text for m in double.chat_view(group.id).bot_messages], 5
            )
            assert table.seats[0] is not None and table.seats[0].away
            # Ana is told in the second person (it was the group's line: issue 51).
            mine = t(
                "🚪 You left {chat}; a computer player takes your seat. Unless you /rejoin, "
                "your rating counts you last in this game.",
                chat=isolated_name(group.title),
            )
            await double.wait_for(lambda: mine in [m.text for m in ana.dm_view().bot_messages], 5)
            assert left not in [m.text for m in ana.dm_view().bot_messages]


async def test_a_lobby_whose_message_is_refused_is_not_kept(tmp_path: Path) -> None:
    """Any refusal of the lobby's message (here the forum topic was deleted as /newgame
    came in: 400 "message thread not found") closes the lobby: nobody is held by it."""
    async with running_double() as double:
        ana = double.create_user("Ana")
        group = double.create_group("Forum", members=[ana], admins=[ana], forum=True)
        topic = group.create_topic("Cards", by=ana)
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            rooms = rooms_of(app)
            await ana.start_bot()
            await double.idle()
            await ana.send(group, "/newgame", thread_id=topic)
            double.delete_topic(group.id, topic)
            await double.idle()
            await rooms.outbox.flush()
            assert not rooms.registry.tables
            assert rooms.registry.of_user(ana.id) is None
            assert await rooms.storage.games.game_in_chat(group.id, topic) is None
            await open_table(double, ana, group)  # the group's main chat still works
            assert table_in(app, group).seat_of(ana.id) == 0
