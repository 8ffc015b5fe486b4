"""The double answers ``getChatMember`` for a restricted person as Telegram does: status
``restricted``, whether they are still a member, and every permission, which
python-telegram-bot reads as a `ChatMemberRestricted`."""

from __future__ import annotations

from telegram import Bot, ChatMemberLeft, ChatMemberRestricted

from sandbox.double import BotApiDouble


async def test_a_restricted_member_and_a_restricted_person_who_left(
    bot: Bot, bot_api_double: BotApiDouble
) -> None:
    dan = bot_api_double.create_user("Dan")
    eve = bot_api_double.create_user("Eve")
    group = bot_api_double.create_group("Quiet", members=[dan, eve])
    group.restrict(dan)
    group.restrict(eve, member=False)
    member = await bot.get_chat_member(group.id, dan.id)
    assert isinstance(member, ChatMemberRestricted) and member.is_member
    assert not member.can_send_messages and not member.can_react_to_messages
    gone = await bot.get_chat_member(group.id, eve.id)
    assert isinstance(gone, ChatMemberRestricted) and not gone.is_member
    assert await bot.get_chat_member_count(group.id) == 2  # Dan and the bot
    group.remove(dan)
    assert isinstance(await bot.get_chat_member(group.id, dan.id), ChatMemberLeft)
