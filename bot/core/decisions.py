"""Which decision a seat has to make now, named so that a hint can say which it answers."""

from __future__ import annotations

from engine import SeatView


def decision_key(view: SeatView) -> str | None:
    """Which decision of the seat a hint answers (None: it has none to make now)."""
    if view.phase == "pass" and view.passed is None and view.seat in view.waiting_for:
        return f"p{view.hand_number}"
    if view.phase == "play" and view.current_player == view.seat:
        return f"t{view.hand_number}.{len(view.tricks)}.{len(view.trick)}"
    return None
