"""/rating in words (issue 51, item 12): the last game's change is explained in a sentence
(whom the player finished above though rated above them), not with the formula."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.i18n import english
from bot.screens.parts import HTML, Part, say
from bot.standings.rating import why_lines
from domain.games import StoredSeat
from domain.standings import GameTable, HandLine, RatingChange
from ratings import ANCHORS, COMPUTER_PLAYERS, START, Skill

NOW = datetime(2026, 12, 7, tzinfo=UTC)


def change(seat: int, player: int, before: Skill, after: Skill) -> RatingChange:
    return RatingChange(1, 5, "main", player, seat, 1.0, before, after, NOW)


def table(totals: tuple[int, ...]) -> GameTable:
    seats = (
        StoredSeat(0, "human", "Ann", 11),
        StoredSeat(1, "computer", "Grace", None, "pro"),
        StoredSeat(2, "human", "Bob", 12),
        StoredSeat(3, "computer", "Alan", None, "easy"),
    )
    return GameTable(
        1, "finished", "points", seats, (HandLine(1, totals, totals, None),), totals, ()
    )


def words(lines: list[Part]) -> str:
    tr = english()
    return "\n".join(say(tr, line, HTML) for line in lines)


def test_third_of_four_above_pro_is_said_in_a_sentence() -> None:
    """Ann came 3rd of 4 but above `pro` (rated above her) and gained: the sentence says
    so, and that the bot grew surer of her; no formula."""
    ann_after = Skill(START.mu + 2.0, START.sigma - 0.6)
    everyone = [
        change(0, 11, START, ann_after),
        change(1, COMPUTER_PLAYERS["pro"], ANCHORS["pro"], ANCHORS["pro"]),
        change(2, 12, START, START),
        change(3, COMPUTER_PLAYERS["easy"], ANCHORS["easy"], ANCHORS["easy"]),
    ]
    said = words(why_lines(everyone[0], everyone, table((60, 70, 20, 10))))
    gained = ann_after.shown - START.shown
    assert f"Your last game: +{gained}, 3 of 4." in said
    assert "You finished above pro, rated above you." in said
    assert "surer of you now (± 167 → ± 155)" in said
    # easy (10) finished above her, though rated below: said too; Bob, rated as she is,
    # is neither.
    assert "You finished below easy, rated below you." in said
    assert "Bob" not in said and "uncertainty" not in said


def test_below_a_lower_rated_player_is_said_and_an_expected_result_too() -> None:
    ann, bob = Skill(30.0, 2.0), Skill(20.0, 2.0)
    everyone = [
        change(0, 11, ann, Skill(29.0, 2.0)),
        change(1, COMPUTER_PLAYERS["pro"], ANCHORS["pro"], ANCHORS["pro"]),
        change(2, 12, bob, bob),
        change(3, COMPUTER_PLAYERS["easy"], ANCHORS["easy"], ANCHORS["easy"]),
    ]
    said = words(why_lines(everyone[0], everyone, table((40, 50, 30, 60))))
    assert "You finished below \u2068Bob\u2069, rated below you." in said
    assert "surer" not in said
    expected = words(why_lines(everyone[2], everyone, table((40, 50, 30, 60))))
    # Bob won: above Ann and pro, both rated above him.
    assert "You finished above \u2068Ann\u2069, pro, rated above you." in expected


def test_a_gain_a_limit_kept_says_what_limits_it() -> None:
    """Issue 50: Ann won a game with Bob, but her record against computers (and Bob's
    rating) kept her where she was; the bot grew surer of her all the same. The words say
    what limits a game with people, not that the surer bot lifted her."""
    ann = Skill(30.0, 2.0)
    held = Skill(ann.mu - 0.3, 1.9)  # μ − 3σ as before: the limit
    assert abs(held.conservative - ann.conservative) < 1e-9
    everyone = [
        change(0, 11, ann, held),
        change(1, COMPUTER_PLAYERS["pro"], ANCHORS["pro"], ANCHORS["pro"]),
        change(2, 12, START, Skill(START.mu - 1.0, START.sigma - 0.2)),
        change(3, COMPUTER_PLAYERS["easy"], ANCHORS["easy"], ANCHORS["easy"]),
    ]
    said = words(why_lines(everyone[0], everyone, table((10, 20, 30, 40))))
    assert "Your last game: ±0, 1 of 4." in said
    assert "This game could lift you no higher" in said
    assert "your record against computer players" in said
    assert "surer" not in said
    # Alone with computers, or a gain not held, the sentence is not said.
    alone = [c for c in everyone if c.player != 12]
    assert "no higher" not in words(why_lines(alone[0], alone, table((10, 20, 30, 40))))
    free = [change(0, 11, ann, Skill(31.0, 1.9)), *everyone[1:]]
    assert "no higher" not in words(why_lines(free[0], free, table((10, 20, 30, 40))))
