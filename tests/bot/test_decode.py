"""One decoding for every press (`bot.core.decode`): a table page's commands and a DM
button's callback data become the same typed commands, and everything else is refused
with one sentence before any table is looked at."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.decode import (
    CARD,
    FORGED,
    HINT,
    MOON,
    PASS,
    TRACKER,
    AskHint,
    ChooseMoon,
    PassCards,
    Refused,
    TapCard,
    ToggleTracker,
    from_button,
    from_page,
)


def test_each_command_the_page_sends() -> None:
    base = {"game": 7, "hand": 3}
    assert from_page({"type": "card", "card": "QS", **base}) == TapCard(7, 3, "QS")
    assert from_page({"type": "pass", **base}) == PassCards(7, 3)
    assert from_page({"type": "moon", "choice": "add", **base}) == ChooseMoon(7, 3, "add")
    assert from_page({"type": "moon", "choice": "subtract", **base}) == ChooseMoon(7, 3, "subtract")
    assert from_page({"type": "hint", **base}) == AskHint(7, 3)


def test_a_seats_buttons_decode_to_the_commands_the_page_sends() -> None:
    def pressed(action: str, arg: str = "") -> object:
        return from_button(f"{action}:7:3:{arg}")  # the data as it travels

    assert pressed(CARD, "QS") == from_page({"type": "card", "game": 7, "hand": 3, "card": "QS"})
    assert pressed(PASS) == from_page({"type": "pass", "game": 7, "hand": 3})
    assert pressed(MOON, "s") == ChooseMoon(7, 3, "subtract")
    assert pressed(MOON, "a") == from_page({"type": "moon", "game": 7, "hand": 3, "choice": "add"})
    assert pressed(HINT) == from_page({"type": "hint", "game": 7, "hand": 3})
    assert pressed(MOON, "x") == Refused(FORGED)
    assert pressed(CARD, "QS" * 4) == Refused(FORGED)
    tracker = pressed(TRACKER)  # a button, not a command the page sends
    assert tracker == ToggleTracker(7, 3)
    assert not isinstance(tracker, TapCard | PassCards | ChooseMoon | AskHint)


@pytest.mark.parametrize("data", [None, "", "zz:7:3:QS", "c:7", "c:x:3:QS", "c:7:3:" + "Q" * 70])
def test_forged_callback_data_is_refused_with_one_sentence(data: str | None) -> None:
    assert from_button(data) == Refused(FORGED)


@pytest.mark.parametrize(
    "said",
    [
        None,
        "c:7:3:QS",
        ["card"],
        {"type": "card", "game": 7, "hand": 3},  # no card
        {"type": "card", "game": 7, "hand": 3, "card": 12},
        {"type": "card", "game": 7, "hand": 3, "card": "QS" * 40},
        {"type": "card", "game": True, "hand": 3, "card": "QS"},
        {"type": "card", "game": "7", "hand": 3, "card": "QS"},
        {"type": "card", "game": 7, "hand": -1, "card": "QS"},
        {"type": "card", "game": 2**70, "hand": 3, "card": "QS"},
        {"type": "pass", "hand": 3},
        {"type": "moon", "game": 7, "hand": 3, "choice": "s"},
        {"type": "rematch", "game": 7, "hand": 0},
        {"type": "review", "game": 7, "hand": 1},
        {"game": 7, "hand": 3},
    ],
)
def test_anything_else_the_page_sends_is_refused_with_one_sentence(said: Any) -> None:
    assert from_page(said) == Refused(FORGED)
