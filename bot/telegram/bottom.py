"""What is at the bottom of each person's DM with the bot: whether a message is still the
newest one there, or posts (a review, a replay, a command's answer) have landed below it.

It follows the chats a player's card screen was sent to (`follow`, by the display); the
outbox tells it of every message it sends and deletes there, and the screens ask it before
a player's turn whether their card screen is still where the thumb is
(`bot.screens.screens.Screens.show_dm`). It keeps the few newest messages of each chat, for
a bounded number of chats (the least recently written to dropped first): a chat it does not
follow, or whose newest messages were all deleted, counts as having nothing below.
"""

from __future__ import annotations

from collections import OrderedDict

KEPT = 8
"""The newest messages kept per chat (enough to see past deleted "your turn" messages)."""
CHATS = 20_000
"""The chats kept, the least recently written to dropped first."""


class Bottoms:
    """The newest messages the bot sent to each private chat that are still there."""

    def __init__(self, kept: int = KEPT, chats: int = CHATS) -> None:
        self.kept = kept
        self.chats = chats
        self._newest: OrderedDict[int, list[int]] = OrderedDict()
        """Chat id → its newest messages still there, oldest first."""

    def follow(self, chat_id: int) -> None:
        """Keep what is sent to the chat from now on (a player's card screen goes there)."""
        if chat_id not in self._newest:
            self._newest[chat_id] = []
            while len(self._newest) > self.chats:
                self._newest.popitem(last=False)

    def sent(self, chat_id: int, message_id: int) -> None:
        """The bot sent `message_id` to a chat (kept if the chat is followed)."""
        ids = self._newest.pop(chat_id, None)
        if ids is None:
            return
        ids.append(message_id)
        ids.sort()
        self._newest[chat_id] = ids[-self.kept :]

    def deleted(self, chat_id: int, message_id: int) -> None:
        ids = self._newest.get(chat_id)
        if ids is not None and message_id in ids:
            ids.remove(message_id)

    def is_newest(self, chat_id: int, message_id: int) -> bool:
        """Whether nothing the bot sent since `message_id` is still in the chat below it."""
        ids = self._newest.get(chat_id)
        return not ids or ids[-1] <= message_id

    def __len__(self) -> int:
        return len(self._newest)
