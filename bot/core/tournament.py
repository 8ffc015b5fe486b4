"""A tournament's status, changed in one place: commands in, the tournament as it now is out.

An event takes registrations, then runs round after round until it is finished; the
organiser can pause it (a pause remembers what it paused) and cancel it while it is open.
`TRANSITIONS` declares every step; `decide` refuses any other with `IllegalTransition`.
The statuses are the stored ones (``tournaments.status``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from domain.tournaments import StoredTournament, TournamentStatus

TRANSITIONS: dict[TournamentStatus, frozenset[TournamentStatus]] = {
    "registration": frozenset({"running", "paused", "cancelled"}),
    "running": frozenset({"paused", "finished", "cancelled"}),
    "paused": frozenset({"registration", "running", "finished", "cancelled"}),
    "finished": frozenset(),
    "cancelled": frozenset(),
}
"""Status → the statuses a tournament may go to next. A new round of a running event is
no transition; a paused one whose last round ends is finished."""


class IllegalTournamentStep(Exception):
    """A tournament was asked to go from one status to one `TRANSITIONS` does not allow."""

    def __init__(self, before: str, after: str) -> None:
        super().__init__(f"An event cannot go from {before} to {after}.")
        self.before = before
        self.after = after


@dataclass(frozen=True)
class StartRound:
    """Round `round_no` is dealt, at `now`."""

    round_no: int
    now: datetime


@dataclass(frozen=True)
class Pause:
    """The organiser pauses: games go on, no new round starts."""


@dataclass(frozen=True)
class Resume:
    """The organiser resumes: the event goes back to what it was paused from."""


@dataclass(frozen=True)
class Finish:
    """The last round is over (or no one is left to go on)."""


@dataclass(frozen=True)
class Cancel:
    """The organiser cancels, or too few registered."""


TournamentCommand = StartRound | Pause | Resume | Finish | Cancel


def decide(tournament: StoredTournament, command: TournamentCommand) -> StoredTournament:
    """The tournament after `command` (not stored: the caller stores it)."""
    state = tournament.state
    match command:
        case StartRound(round_no, now):
            after: TournamentStatus = "running"
            started = {**state.round_started, round_no: now}
            changed = replace(tournament, current_round=round_no)
            state = replace(state, round_started=started)
        case Pause():
            after = "paused"
            state = replace(state, paused_from=tournament.status)
            changed = tournament
        case Resume():
            after = state.paused_from or "registration"
            changed = tournament
        case Finish():
            after = "finished"
            changed = tournament
        case Cancel():
            after = "cancelled"
            changed = tournament
    before = tournament.status
    if after != before and after not in TRANSITIONS[before]:
        raise IllegalTournamentStep(before, after)
    return replace(changed, status=after, state=state)
