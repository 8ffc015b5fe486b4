"""What a lobby's commands leave in the group (issue 30, item 7): a "Dealing the cards…"
answer goes once the table's message shows the deal, and an old 🔁 New game points down to
the newer table."""

from __future__ import annotations

from pathlib import Path

from bot_harness import finished_game, open_table, rooms_of, running_bot, table_in

from bot.i18n import english
from sandbox.testing import running_double

t = english()


async def test_dealing_the_cards_goes_once_the_deal_is_shown(tmp_path: Path) -> None:
    async with running_double() as double:
        ana = double.create_user("Ana")
        group = double.create_group("Deal", members=[ana], admins=[ana])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await ana.start_bot()
            await double.idle()
            lobby = await open_table(double, ana, group, computers=3)
            await ana.send(group, "/start")
            table = table_in(app, group)
            await double.wait_for(lambda: table.game is not None, 5)
            dealing = await double.wait_for(
                lambda: next(
                    (
                        m
                        for m in double.chat_view(group.id).bot_messages
                        if m.text == t("Dealing the cards…")
                    ),
                    None,
                ),
                5,
            )
            await double.wait_for(
                lambda: double.chat_view(group.id).message(dealing.message_id).deleted,  # type: ignore[union-attr]
                5,
            )
            await rooms_of(app).outbox.flush()
            shown = double.chat_view(group.id).message(lobby)
            # The table's message shows the game now, not the lobby.
            assert shown is not None and shown.labels and t("✋ Join") not in str(shown.labels)
            texts = [m.text for m in double.chat_view(group.id).visible]
            assert t("Dealing the cards…") not in texts


async def test_an_old_new_game_button_points_down_to_the_newer_table(tmp_path: Path) -> None:
    async with running_double() as double:
        ana, bob = double.create_user("Ana"), double.create_user("Bob")
        group = double.create_group("Again", members=[ana, bob], admins=[ana])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            old = await finished_game(double, app, group, [ana, bob])
            assert await bob.press(group, old, "🔁 New game") == t(
                "A new table is open: same rules, same seats."
            )
            again = await ana.press(group, old, "🔁 New game")
            assert again == t("There's already a table in this chat: it's the newer message below.")
            new = rooms_of(app).registry.in_chat(group.id, None)
            assert new is not None and new.ui.table_message_id is not None
            assert new.ui.table_message_id > old  # below it, as said

            # Its seats were filled in advance: the host empties the middle one (issue 30.1).
            assert [s is None for s in new.seats] == [False, False, False, False]
            assert await bob.press(group, new.ui.table_message_id, "✖ 2") == t("Seat emptied.")
            stored = await rooms_of(app).storage.games.load_game(new.id)
            assert [s.seat for s in stored.seats] == [0, 2, 3] and new.seats[1] is None
