"""A table's phases and the transitions between them, declared once: the one vocabulary
of where a table is.

A table is a lobby until it is dealt; its game is then played (the engine's own phase,
`Game.phase`, says whether cards are passed, played or a moon's scoring chosen, and the
engine refuses a move out of turn) until it is finished; a lobby or a game can be
cancelled at any time. `TRANSITIONS` is the whole list: `check` refuses any other step.

Storage keeps its own words (``games.status``, where a dealt table is ``active`` and a
game set aside ``quarantined``): `stored_status` and `of_stored` map them at its edge.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from engine import Game

StoredStatus = Literal["lobby", "active", "finished", "cancelled"]


class Phase(StrEnum):
    LOBBY = "lobby"
    DEALT = "dealt"
    """Its game is played: the engine's own phase says what the game waits for."""
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def live(self) -> bool:
        """Whether the table is still open or playing."""
        return self not in ENDED

    @property
    def dealt(self) -> bool:
        """Whether the table's game is in play (dealt, not ended)."""
        return self is Phase.DEALT


ENDED = frozenset({Phase.FINISHED, Phase.CANCELLED})

TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.LOBBY: frozenset({Phase.DEALT, Phase.CANCELLED}),
    Phase.DEALT: frozenset({Phase.FINISHED, Phase.CANCELLED}),
    Phase.FINISHED: frozenset(),
    Phase.CANCELLED: frozenset(),
}
"""Phase → the phases a table may go to next. Staying in a phase (a card played, a hand
scored and the next dealt, a seat taken in a lobby) is no transition."""


class IllegalTransition(Exception):
    """A table was asked to go from one phase to one `TRANSITIONS` does not allow."""

    def __init__(self, before: Phase, after: Phase) -> None:
        super().__init__(f"A table cannot go from {before.value} to {after.value}.")
        self.before = before
        self.after = after


def check(before: Phase, after: Phase) -> None:
    """Refuse (`IllegalTransition`) a step `TRANSITIONS` does not declare."""
    if after != before and after not in TRANSITIONS[before]:
        raise IllegalTransition(before, after)


def of_game(game: Game) -> Phase:
    """The phase of a table whose game is `game`: dealt until the game is over."""
    return Phase.FINISHED if game.phase == "over" else Phase.DEALT


STORED: dict[Phase, StoredStatus] = {
    Phase.LOBBY: "lobby",
    Phase.DEALT: "active",
    Phase.FINISHED: "finished",
    Phase.CANCELLED: "cancelled",
}


def stored_status(phase: Phase) -> StoredStatus:
    """What ``games.status`` says of a table at `phase`."""
    return STORED[phase]


def of_stored(status: str) -> Phase:
    """The phase of a table stored with `status` (a game set aside counts as cancelled:
    nothing more can happen to it)."""
    if status == "quarantined":
        return Phase.CANCELLED
    for phase, stored in STORED.items():
        if stored == status:
            return phase
    raise ValueError(f"A table cannot be stored as {status!r}.")
