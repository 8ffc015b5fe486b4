"""A table's phases and the transitions between them, declared once.

A table is a lobby until it is dealt; then each hand goes through the pass (none in a hold
hand), the play, the moon shooter's choice (when a moon is shot and the table lets the
shooter choose) and the hand's end, until the game is finished; a lobby or a game can be
cancelled at any time. `TRANSITIONS` is the whole list: `check` refuses any other step.

Storage keeps fewer words (``games.status``): every phase of a dealt game is stored as
``active``; `stored_status` and `of_stored` map one to the other.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from engine import Game

StoredStatus = Literal["lobby", "active", "finished", "cancelled"]


class Phase(StrEnum):
    LOBBY = "lobby"
    PASSING = "passing"
    PLAYING = "playing"
    MOON = "moon"
    """The moon shooter chooses how the moon is scored."""
    HAND_OVER = "hand_over"
    """A hand was scored; the next is dealt, or the game ends (the engine does either in
    the same move, so a table passes through this phase within one command)."""
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def live(self) -> bool:
        """Whether the table is still open or playing."""
        return self not in ENDED

    @property
    def dealt(self) -> bool:
        """Whether the table's game is in play (dealt, not ended)."""
        return self in IN_GAME


IN_GAME = frozenset({Phase.PASSING, Phase.PLAYING, Phase.MOON, Phase.HAND_OVER})
ENDED = frozenset({Phase.FINISHED, Phase.CANCELLED})

TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.LOBBY: frozenset({Phase.PASSING, Phase.PLAYING, Phase.CANCELLED}),
    Phase.PASSING: frozenset({Phase.PLAYING, Phase.CANCELLED}),
    Phase.PLAYING: frozenset({Phase.MOON, Phase.HAND_OVER, Phase.CANCELLED}),
    Phase.MOON: frozenset({Phase.HAND_OVER, Phase.CANCELLED}),
    Phase.HAND_OVER: frozenset({Phase.PASSING, Phase.PLAYING, Phase.FINISHED, Phase.CANCELLED}),
    Phase.FINISHED: frozenset(),
    Phase.CANCELLED: frozenset(),
}
"""Phase → the phases a table may go to next. Staying in a phase (a card played mid-hand,
a seat taken in a lobby) is no transition."""


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
    """The phase a dealt game is at, from the engine's own phase."""
    return {
        "pass": Phase.PASSING,
        "play": Phase.PLAYING,
        "moon": Phase.MOON,
        "over": Phase.FINISHED,
    }[game.phase]


STORED: dict[Phase, StoredStatus] = {
    Phase.LOBBY: "lobby",
    Phase.PASSING: "active",
    Phase.PLAYING: "active",
    Phase.MOON: "active",
    Phase.HAND_OVER: "active",
    Phase.FINISHED: "finished",
    Phase.CANCELLED: "cancelled",
}


def stored_status(phase: Phase) -> StoredStatus:
    """What ``games.status`` says of a table at `phase`."""
    return STORED[phase]


def of_stored(status: str, game: Game | None) -> Phase:
    """The phase of a table stored with `status` (a game set aside counts as cancelled:
    nothing more can happen to it)."""
    if status == "lobby":
        return Phase.LOBBY
    if status == "active" and game is not None:
        phase = of_game(game)
        return Phase.HAND_OVER if phase is Phase.FINISHED else phase
    if status == "finished":
        return Phase.FINISHED
    if status in ("cancelled", "quarantined"):
        return Phase.CANCELLED
    raise ValueError(f"A table cannot be stored as {status!r}.")
