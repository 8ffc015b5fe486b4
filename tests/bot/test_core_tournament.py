"""A tournament's status changes in one place (`bot.core.tournament`), each step declared."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.core.tournament import (
    TRANSITIONS,
    Cancel,
    Finish,
    IllegalTournamentStep,
    Pause,
    Resume,
    StartRound,
    TournamentCommand,
    decide,
)
from domain.tournaments import (
    OPEN_TOURNAMENT_STATUSES,
    StoredTournament,
    TournamentOptions,
    TournamentState,
    TournamentStatus,
)
from engine import Rules

NOW = datetime(2026, 11, 25, 18, 0, tzinfo=UTC)


def event(status: TournamentStatus = "registration", **state: object) -> StoredTournament:
    return StoredTournament(
        id=1,
        chat_id=-5,
        thread_id=None,
        organiser_id=100,
        organiser_name="Ann",
        name="Cup",
        rules=Rules(),
        options=TournamentOptions(),
        time_zone="UTC",
        starts_at=None,
        registration_deadline=None,
        status=status,
        current_round=0,
        state=TournamentState(**state),  # type: ignore[arg-type]
        created_at=NOW,
    )


def test_an_event_runs_its_rounds_pauses_resumes_to_what_it_paused_and_finishes() -> None:
    t = decide(event(), StartRound(1, NOW))
    assert (t.status, t.current_round, t.state.round_started) == ("running", 1, {1: NOW})
    t = decide(t, Pause())
    assert (t.status, t.state.paused_from) == ("paused", "running")
    t = decide(t, Resume())
    assert t.status == "running"
    t = decide(t, StartRound(2, NOW))
    assert (t.status, t.current_round, sorted(t.state.round_started)) == ("running", 2, [1, 2])
    assert decide(t, Finish()).status == "finished"


def test_a_pause_during_registration_resumes_to_registration() -> None:
    t = decide(decide(event(), Pause()), Resume())
    assert t.status == "registration"


@pytest.mark.parametrize(
    ("status", "command"),
    [
        ("finished", Cancel()),
        ("cancelled", StartRound(2, NOW)),
        ("finished", Pause()),
        ("cancelled", Resume()),
        ("registration", Finish()),
    ],
)
def test_a_step_not_declared_is_refused(
    status: TournamentStatus, command: TournamentCommand
) -> None:
    with pytest.raises(IllegalTournamentStep):
        decide(event(status, paused_from="running"), command)


def test_the_open_statuses_are_those_that_can_still_change() -> None:
    assert {s for s, nexts in TRANSITIONS.items() if nexts} == set(OPEN_TOURNAMENT_STATUSES)
