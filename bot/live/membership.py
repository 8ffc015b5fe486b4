"""Who may watch a group's table: its members, asked of Telegram once and remembered.

A watcher's page says who they are (``initData``) and which table; only a member of the
table's group may watch it (``getChatMember``: creator, administrator, member, or
restricted but still a member). The answer is remembered for `MEMBER_TTL` seconds (a
"no" for `STRANGER_TTL`, so someone who just joined need not wait long), for at most
`MAX_KEPT` people, the least recently asked forgotten first: a page reconnecting, or a
whole group opening the table at once, costs one request a person, and a push costs none.

Telegram says when someone leaves or is removed (a ``chat_member`` update, sent to a bot
that is an admin of the group): `left` makes that the answer at once, and the server
closes their watchers' pages. Where it does not say (the bot is no admin), the short
`MEMBER_TTL` bounds how long a "yes" is believed: the server asks again about each open
watcher's page that often (`LiveServer.recheck`).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

MemberCheck = Callable[[int, int], Awaitable[bool]]
"""``(chat_id, user_id)`` → whether the person is a member of the chat (Telegram's
answer; False when it cannot tell)."""

MEMBER_TTL = 60.0
STRANGER_TTL = 20.0
MAX_KEPT = 10_000


class Membership:
    """`is_member` asked of Telegram at most once per person and chat in a while."""

    def __init__(self, ask: MemberCheck, clock: Callable[[], float] = time.monotonic) -> None:
        self._ask = ask
        self._clock = clock
        self._kept: OrderedDict[tuple[int, int], tuple[bool, float]] = OrderedDict()
        self.asked = 0
        """Requests made (the tests count them)."""

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        key = (chat_id, user_id)
        now = self._clock()
        kept = self._kept.get(key)
        if kept is not None and kept[1] > now:
            self._kept.move_to_end(key)
            return kept[0]
        self.asked += 1
        member = await self._ask(chat_id, user_id)
        self._remember(key, member)
        return member

    def left(self, chat_id: int, user_id: int) -> None:
        """Telegram said the person left the chat or was removed: a "no" from now on."""
        self._remember((chat_id, user_id), False)

    def joined(self, chat_id: int, user_id: int) -> None:
        """Telegram said the person is a member (again): a "yes" from now on."""
        self._remember((chat_id, user_id), True)

    def _remember(self, key: tuple[int, int], member: bool) -> None:
        self._kept[key] = (member, self._clock() + (MEMBER_TTL if member else STRANGER_TTL))
        self._kept.move_to_end(key)
        while len(self._kept) > MAX_KEPT:
            self._kept.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)
