"""One live seat per person (issue 50.3): storage refuses a second one (`SeatTaken`, the
key of ``live_seats``, whichever bot account seats them); here, where that person sits,
and what each refusal says. What each path does instead (docs/seats.md):

- Join (or the table's link) while seated elsewhere, a daily deal included: refused,
  naming the table.
- ``/daily`` while seated at a table: refused, naming it.
- An event's table dealt to someone sitting in a lobby: they leave the lobby and are told
  (`bot.tables.desk`); sitting at a game in progress: a computer player takes their
  event seat for the round, as a no-show's.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from bot.i18n import Msg, msg
from bot.screens.parts import Name
from storage import Journal, SeatTaken, StorageError


class Where(Enum):
    DAILY = "daily"
    EVENT = "event"
    TABLE = "table"


@dataclass(frozen=True)
class Seated:
    """The live table someone sits at: what kind, and its name (a group's title, an
    event table's)."""

    where: Where
    chat: str
    game_id: int | None


async def seated(games: Journal, taken: SeatTaken) -> Seated:
    """Where the person `taken` names sits (a table of any bot account)."""
    if taken.game_id is not None:
        try:
            stored = await games.load_game(taken.game_id, verify=False)
        except StorageError:
            stored = None
        if stored is not None:
            chat = str(stored.meta.get("chat_title") or "")
            if stored.meta.get("daily") is not None:
                return Seated(Where.DAILY, chat, stored.id)
            if stored.tournament_id is not None:
                return Seated(Where.EVENT, chat, stored.id)
            return Seated(Where.TABLE, chat, stored.id)
    return Seated(Where.TABLE, "", taken.game_id)


def join_refused(at: Seated) -> Msg:
    """Join, or a table's link, while the person sits elsewhere."""
    if at.where is Where.DAILY:
        return msg(
            "☀ You're playing your daily deal: finish it first (send /daily for your "
            "cards), then join."
        )
    if at.where is Where.EVENT:
        return msg(
            "🏆 You're playing at an event's table ({chat}): finish it first, then join.",
            chat=Name(at.chat),
        )
    return msg(
        "You're already at a table in {chat}. Finish or /leave it first.", chat=Name(at.chat)
    )


def daily_refused(at: Seated) -> Msg:
    """``/daily`` while the person sits at a table."""
    if at.where is Where.DAILY:  # an earlier day's, still open
        return msg("☀ Finish your earlier daily deal first: its cards are above in this chat.")
    if at.where is Where.EVENT:
        return msg(
            "☀ You're playing at an event's table ({chat}): finish it first, then send /daily.",
            chat=Name(at.chat),
        )
    return msg(
        "☀ You're at a table in {chat}: finish or /leave it first, then send /daily.",
        chat=Name(at.chat),
    )
