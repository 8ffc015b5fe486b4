"""Only members of a group sit at its table, whatever link or button they use (issue 12,
item 3): links carry a random token, and a join from outside the group asks Telegram."""

from __future__ import annotations

from pathlib import Path

from bot_harness import open_table, running_bot, table_in

from bot.i18n import english, isolated_name
from sandbox.double import BotApiDouble
from sandbox.people import SandboxUser
from sandbox.testing import running_double

t = english()

SECRET_GROUP = "Secret Society"


async def _dm_reply(double: BotApiDouble, person: SandboxUser, payload: str) -> str:
    before = len(person.dm_view().bot_messages)
    await person.start_bot(payload)
    replies = await double.wait_for(lambda: person.dm_view().bot_messages[before:] or None, 5)
    assert len(replies) == 1
    return replies[0].text or ""


async def test_a_stranger_cannot_join_by_link_or_forged_button(tmp_path: Path) -> None:
    async with running_double() as double:
        alice, dave = double.create_user("Alice"), double.create_user("Dave")
        mallory = double.create_user("Mallory")
        group = double.create_group(SECRET_GROUP, members=[alice, dave])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await alice.start_bot()
            await double.wait_for(lambda: alice.dm_view().last() is not None, 5)
            lobby = await open_table(double, alice, group)
            table = table_in(app, group)
            # Dave has not opened a DM: Join asks him to, with a link that has the token.
            await dave.press(group, lobby, "✋ Join")
            await double.wait_for(
                lambda: dave.button_deep_link(group, "Open my cards in a DM") or None
            )
            link = dave.button_deep_link(group, "Open my cards in a DM")
            assert link == f"j{table.join_token}"
            assert len(table.join_token) >= 12 and table.join_token != str(table.id)

            # Mallory, in no group with the bot, tries the row id, the real token and a
            # forged Join button in her own DM.
            first = await _dm_reply(double, mallory, f"j{table.id}")
            assert first == t("That table isn't open any more.")
            second = await _dm_reply(double, mallory, link)
            assert second == t("Only members of the table's group can sit at it.")
            dm_message = mallory.dm_view().bot_messages[-1].message_id
            toast = await mallory.press_forged(mallory.dm, dm_message, f"lj:{table.id}:0:")
            assert toast == t("Only members of the table's group can sit at it.")
            for text in (first, second, toast):
                assert SECRET_GROUP not in text
            assert all(SECRET_GROUP not in (m.text or "") for m in mallory.dm_view().messages)
            assert table.seat_of(mallory.id) is None and mallory.id not in table.pending

            # A member's link works.
            reply = await _dm_reply(double, dave, link)
            assert reply == t(
                "You're seated at the table in {chat}. Your cards will come here when the "
                "game starts.",
                chat=isolated_name(SECRET_GROUP),
            )
            assert table.seat_of(dave.id) is not None


async def test_a_member_who_leaves_the_group_cannot_join_from_a_dm(tmp_path: Path) -> None:
    async with running_double() as double:
        alice, erin = double.create_user("Alice"), double.create_user("Erin")
        group = double.create_group(SECRET_GROUP, members=[alice, erin])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            for p in (alice, erin):
                await p.start_bot()
            await double.wait_for(lambda: erin.dm_view().last() is not None, 5)
            await open_table(double, alice, group)
            table = table_in(app, group)
            group.remove(erin)
            dm_message = erin.dm_view().bot_messages[-1].message_id
            toast = await erin.press_forged(erin.dm, dm_message, f"lj:{table.id}:0:")
            assert toast == t("Only members of the table's group can sit at it.")
            group.add(erin)
            toast = await erin.press_forged(erin.dm, dm_message, f"lj:{table.id}:0:")
            assert toast == t("You're in! Your cards will come in a DM.")
