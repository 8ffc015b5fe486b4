"""The page's typed commands (`bot.live.commands.decode`): each one it may send, and
everything else refused before any table is looked at."""

from __future__ import annotations

from typing import Any

import pytest

from bot.live.commands import AskHint, ChooseMoon, PassChosen, TapCard, decode


def test_each_command_the_page_sends() -> None:
    base = {"game": 7, "hand": 3}
    assert decode({"type": "card", "card": "QS", **base}) == TapCard(7, 3, "QS")
    assert decode({"type": "pass", **base}) == PassChosen(7, 3)
    assert decode({"type": "moon", "choice": "add", **base}) == ChooseMoon(7, 3, "add")
    assert decode({"type": "moon", "choice": "subtract", **base}) == ChooseMoon(7, 3, "subtract")
    assert decode({"type": "hint", **base}) == AskHint(7, 3)


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
def test_anything_else_is_no_command(said: Any) -> None:
    assert decode(said) is None
