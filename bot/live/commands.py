"""What a table page may do: the typed commands of `bot.core.decode` (the ones a DM's
buttons decode to as well), carried out at the table's own entry points (the `Moves` and
`Coach` a DM's buttons reach too), with the same checks, journal and words.

``game`` and ``hand`` say which table and hand the page showed: a page acts on its own
table only, and a tap on an earlier hand's cards is refused as a stale DM button is.
"""

from __future__ import annotations

import logging

from bot.basics import Person, UserError
from bot.core import decode
from bot.i18n import Msg, msg
from storage.errors import StorageUnavailable

log = logging.getLogger(__name__)

STORAGE_TROUBLE = msg("I can't save anything right now. Please try again in a minute.")


async def carry_out(
    command: decode.SeatCommand,
    person: Person,
    moves: decode.SeatMoves,
    coach: decode.SeatHints,
) -> Msg:
    """Do what the page asked, as `person`; what the press is answered (a refusal's words
    too, never an exception)."""
    try:
        return await decode.carry_out(command, person, moves, coach)
    except UserError as error:
        return error.said
    except StorageUnavailable:
        log.warning("page command %s: the database cannot be written", type(command).__name__)
        return STORAGE_TROUBLE
