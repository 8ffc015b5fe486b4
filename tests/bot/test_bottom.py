"""`Bottoms`: whether a person's card screen is still the newest message in their chat."""

from __future__ import annotations

from bot.telegram.bottom import Bottoms


def test_a_message_sent_below_the_screen_is_known_until_it_is_deleted() -> None:
    bottoms = Bottoms()
    bottoms.follow(7)
    bottoms.sent(7, 10)  # the screen
    assert bottoms.is_newest(7, 10)
    bottoms.sent(7, 11)  # a review below it
    assert not bottoms.is_newest(7, 10)
    bottoms.deleted(7, 11)
    assert bottoms.is_newest(7, 10)


def test_a_chat_not_followed_keeps_nothing_and_has_nothing_below() -> None:
    bottoms = Bottoms()
    bottoms.sent(8, 10)
    bottoms.sent(8, 11)
    assert bottoms.is_newest(8, 10)
    assert len(bottoms) == 0


def test_it_keeps_a_few_messages_of_a_bounded_number_of_chats() -> None:
    bottoms = Bottoms(kept=3, chats=2)
    for chat in (1, 2, 3):
        bottoms.follow(chat)
        for message in range(10):
            bottoms.sent(chat, message)
    assert len(bottoms) == 2  # the chat written to least recently went first
    assert not bottoms.is_newest(3, 5)
    for message in (9, 8, 7):
        bottoms.deleted(3, message)
    assert bottoms.is_newest(3, 5)  # what it no longer keeps counts as nothing below
