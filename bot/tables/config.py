"""How the tables run (delays, timers, limits) and what they ask of the outside world."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import NamedTuple

from bot.basics import Person, UserError
from bot.i18n import msg
from bot.tables.model import Table

ENGAGED_S = 60.0
"""How recently a person must have pressed at a table (a card, a pass, the moon's choice,
in their DM or on the page), or been sent its screen as a new message, to count as looking
at it (`TablesConfig.engaged_nudge_delay`)."""


@dataclass(frozen=True)
class TablesConfig:
    bot_username: str
    computer_delay: float = 1.0
    """Seconds a computer player 'thinks' before its card shows (natural pace)."""
    computer_budget_ms: int = 300
    nudge_delay: float = 5.0
    """Seconds into a person's turn before the "your turn" message (0: at once)."""
    engaged_nudge_delay: float = 20.0
    """The same, for a person who pressed at this table within the last `ENGAGED_S` (they
    are playing with the chat open and see their turn as their screen changes) or whose
    screen was just sent as a new message (a game's first deal: that message buzzed their
    phone): it buzzes again only if they are still away (issue 35, item 4: at 100 busy
    tables of one hand, the first deal's "choose 3 cards" messages were 400 writes)."""
    default_turn_timer: int = 60
    timeouts_before_away: int = 3
    lobby_ttl_s: float = 6 * 3600
    """A lobby not started within this long closes (with a line in its message)."""
    webapp_url: str | None = None
    """The table page's address (``WEBAPP_URL``): the DMs and tables get a button to it."""
    lean_edits: bool = True
    """Others' DM screens wait while a trick is in progress (`Screens.show_all`)."""


AdminCheck = Callable[[int, int], Awaitable[bool]]
"""``(chat_id, user_id)`` → whether the person is an admin (or, for `MemberCheck`, a
member) of the chat; False when Telegram cannot tell."""
MemberCheck = AdminCheck


class Dealing(NamedTuple):
    """How a game is dealt: a seed and, optionally, fixed deals (tournaments, tests), or
    a secret deal key that every hand is dealt from verifiably (`engine.fair`)."""

    seed: int
    deals: list[list[list[str]]] | None = None
    key: bytes | None = None


DealSource = Callable[[Table], Dealing]
"""How a table's game is dealt."""


def random_deal(table: Table) -> Dealing:
    """A new table's deal: 32 bytes from the system's secure random source, the key each
    hand's seed comes from (README, "Fair deals")."""
    return Dealing(0, None, secrets.token_bytes(32))


async def require_host(table: Table, person: Person, is_admin: AdminCheck) -> None:
    """Only a table's host or an admin of its group may change, start or cancel it."""
    if person.id == table.creator_id:
        return
    if await is_admin(table.chat_id, person.id):
        return
    raise UserError(msg("Only {creator} or a group admin can do that.", creator=table.creator_name))
