"""Computers that defend (issue 51, item 9): with the default level `standard`, a trivial
player (pass the three right-most cards, play the first legal card) shot the moon twice in
a row; the computers threw the A♥ and K♥ onto its winning spades.

The positions below come from real games: the naive shooter (`engine.players.naive`)
against the `standard` computers as they were, in hands it shot the moon in, at the first
decision where a computer could have stopped it and did not. The shooter holds every
point taken so far (two or more); the computer to play either can take a trick with
points in it that the shooter is winning (``take``), or is void and can keep its point
cards off a trick the shooter is winning or is still to play to (``no_points``). The
`expert` must do it; `standard` and `pro` play RULES.md §7 to the letter (its rules of
thumb know nothing of the moon), as the rule book and the ratings' anchors require.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pytest
from hearts_helpers import HOLD

from engine import Card, Game, Rules, SeatView
from engine.arena import NAIVE, moon_report
from engine.cards import POINT_CARDS, SUIT_MASKS
from engine.play_rules import trick_winner_position
from engine.players import ExpertPlayer, Player
from engine.players.moon import runner, taken_masks
from engine.players.naive import NaiveShooter


@dataclass(frozen=True)
class Position:
    kind: Literal["take", "no_points"]
    where: str
    """The game of the arena (``--moons standard --seed 51``) it came from."""
    hands: tuple[str, str, str, str]
    """The hands after the pass."""
    plays: str
    """The cards played, from the 2♣, up to the computer's decision."""

    def view(self) -> SeatView:
        game = Game(Rules(pass_cycle=HOLD), deals=[[h.split() for h in self.hands]])
        for code in self.plays.split():
            seat = game.current_player
            assert seat is not None
            game.play(seat, Card.parse(code))
        seat = game.current_player
        assert seat is not None
        return game.view(seat)


POSITIONS = [
    Position(
        "no_points",
        "game 9, hand 2: QH was played",
        (
            "2C 6C QC KC 4D 9D KD 7S KS 4H 5H TH KH",
            "8C 9C TC 6D 8D JD 5S TS 6H 7H 9H QH AH",
            "3C 4C 5C 7C 2D 3D 5D 7D TD QD 3S 2H 3H",
            "JC AC AD 2S 4S 6S 8S 9S JS QS AS 8H JH",
        ),
        "2C 8C 7C JC 2S 7S 5S 3S 4D 6D 5D AD 4S KS TS QD 6C 9C 5C AC 6S KH AH TD 8S KD",
    ),
    Position(
        "take",
        "game 20, hand 1: 5H was played",
        (
            "2C 4C 5C TC 3S 8S TS QS 6H TH JH KH AH",
            "6C 8C 9C KC 2D 3D 5D 7D 8D 9D 7S JS 4H",
            "JC QC AC 4D JD QD KD AD 2S 4S 2H 5H 7H",
            "3C 7C 6D TD 5S 6S 9S KS AS 3H 8H 9H QH",
        ),
        "2C 6C JC 7C 2S 5S 3S JS 2D 4D 6D 8S 3C 4C 8C AC 4S 6S TS 7S QS KC AD 9S 6H 4H",
    ),
    Position(
        "take",
        "game 25, hand 2: 8H was played",
        (
            "3C 4C 5C 6D 8D JD 2S 8S TS AS 2H 4H JH",
            "6C 7C AC 2D 5D 6S 7S KS 3H 6H 7H 8H AH",
            "2C 8C 4D QD KD AD 3S 4S 5S JS 5H 9H TH",
            "9C TC JC QC KC 3D 7D 9D TD 9S QS QH KH",
        ),
        "2C 9C 5C AC 2D 4D 3D JD 2S 6S 5S 9S QS TS 7S JS QH JH",
    ),
    Position(
        "take",
        "game 35, hand 3: 9H was played",
        (
            "3C 3D 6D 7D 8D AD 3S 5S 6S KS 5H 6H KH",
            "5C 7C QC KC AC 2D 4S 9S QS AS TH JH AH",
            "4C 6C TC JC TD KD 2S 7S JS 4H 8H 9H QH",
            "2C 8C 9C 4D 5D 9D JD QD 8S TS 2H 3H 7H",
        ),
        "2C 3C 5C JC 2S 8S 6S 4S 4D 3D 2D KD 4C 8C AD 7C 5D 6D 9S TD 6C 9C KS QC QS JS TS 5S AS "
        "7S QD 3S TH",
    ),
    Position(
        "no_points",
        "game 45, hand 2: JH was played",
        (
            "4C 5C AC 4D 5D JD KD AD 5S 2H 4H 5H JH",
            "2C 3C 7C JC QC 2D TD QD 3S 6S JS 3H 6H",
            "8C TC 3D 6D 7D 8D 9D 7S 8S 9S TS 7H 8H",
            "6C 9C KC 2S 4S QS KS AS 9H TH QH KH AH",
        ),
        "2C 8C 6C AC 4C 3C TC 9C 3D 2S 4D QD 2D 6D 4S AD 5C 7C TS KC QS 5S JS 9S KS KD 6S 8S AS",
    ),
    Position(
        "no_points",
        "game 56, hand 3: QS was played",
        (
            "6C TC 3D 5D JD 2S 8S TS AS 7H JH QH KH",
            "5C JC QC KC 4D QD KD 3S 5S 7S JS QS KS",
            "2C 3C 7C 2D 6D 7D 8D TD 6S 3H 5H 6H 9H",
            "4C 8C 9C AC 9D AD 4S 9S 2H 4H 8H TH AH",
        ),
        "2C 4C 6C KC 3S 6S 4S 2S 2D 9D 3D KD 4D 6D AD 5D 8C TC 5C 7C 8S 7S TD 9S 9C TS JC 3C 5S "
        "9H AH AS 7H",
    ),
    Position(
        "take",
        "game 71, hand 2: 5H was played",
        (
            "2C 8C 3D 5D TD JD QD 4S 8S 4H 6H 7H TH",
            "3C 5C 9C AC 9D AD 7S 9S JS QS 8H KH AH",
            "4C 6C TC JC QC KC 6D 8D 5S TS KS 5H JH",
            "7C 2D 4D 7D KD 2S 3S 6S AS 2H 3H 9H QH",
        ),
        "2C 3C 4C 7C 2D 3D 9D 8D 7S 5S 6S 8S 4S 9S TS AS 2S QD JS KS 6C KD 8C 5C 5D AD 6D 7D QS "
        "KC 3S JD 8H",
    ),
    Position(
        "no_points",
        "game 80, hand 2: QH was played",
        (
            "6C AC 3S 6S 8S TS QS KS AS 7H 8H TH AH",
            "2C JC JD KD 4S 5S 9S JS 3H 4H 9H JH QH",
            "4C 7C 9C KC 2D 4D 5D 8D AD 7S 5H 6H KH",
            "3C 5C 8C TC QC 3D 6D 7D 9D TD QD 2S 2H",
        ),
        "2C 4C 3C 6C 3S 4S 7S 2S 2D 3D 6S KD 5S AD QD 8S TS 9S KH QC QS JS KC TD KS",
    ),
    Position(
        "no_points",
        "game 88, hand 3: JH was played",
        (
            "2C QC 2S 4S 5S JS QS KS AS 7H QH KH AH",
            "3C 7C TC 2D 5D 8D QD KD 8S 3H 4H TH JH",
            "8C 9C JC 6D 7D TD JD 3S 6S TS 2H 5H 8H",
            "4C 5C 6C KC AC 3D 4D 9D AD 7S 9S 6H 9H",
        ),
        "2C 3C 8C AC 3D 2S 2D JD 3S 7S 4S 8S 5D 6D 4D 5S 6S 9S JS KD QS QD TS AD KS",
    ),
    Position(
        "no_points",
        "game 95, hand 3: JH was played",
        (
            "2C 3C 6C KC AC 2S 3S 5S 8S 2H 5H 6H QH",
            "4C 7C QC AD 4S QS KS AS 8H 9H TH KH AH",
            "8C 9C TC 8D 9D TD QD 6S TS JS 4H 7H JH",
            "5C JC 2D 3D 4D 5D 6D 7D JD KD 7S 9S 3H",
        ),
        "2C 4C 8C JC 2D AC AD QD 4S 6S 7S 8S 2S QS JS 9S KS TS KD 5S AS",
    ),
    Position(
        "no_points",
        "game 97, hand 3: QH was played",
        (
            "8C AC 2D 4D 5D TD 3S 5S 6S 8S 3H QH KH",
            "5C 7C 9C JC 7D 8D 9D JD KD 4S 7S 2H 4H",
            "2C 3C TC 6D QD AD TS JS 5H 6H 9H TH JH",
            "4C 6C QC KC 3D 2S 9S QS KS AS 7H 8H AH",
        ),
        "2C 4C 8C JC 4S TS 2S 8S 3C 6C AC 9C 2D 7D 6D 3D 5C TC QC KH 9S 6S 7S JS 5H 7H 3H 4H QS "
        "5S KD AD KS 3S JD QD AS",
    ),
    Position(
        "take",
        "game 102, hand 3: 6H was played",
        (
            "3C 6C 8C 3D 6D 7D TD AD 2S 4S 7S TS 5H",
            "5C TC 8D 9D JD QD 5S 9S JS KS 3H 6H 9H",
            "2C 9C QC KC 4D 3S QS 8H TH JH QH KH AH",
            "4C 7C JC AC 2D 5D KD 6S 8S AS 2H 4H 7H",
        ),
        "2C 4C 3C TC 5C 9C 7C 8C 3S 6S 4S KS 5S QS 8S TS 8H 7H 5H",
    ),
    Position(
        "take",
        "game 123, hand 2: 3H was played",
        (
            "2C 3C 7C 7D 8D 9D QD AD 3S 4S 6S 4H 8H",
            "6C QC AC 6D JD 7S TS JS KS 5H JH QH KH",
            "5C 8C 9C TC KC 5D KD 2S 3H 6H 9H TH AH",
            "4C JC 2D 3D 4D TD 5S 8S 9S QS AS 2H 7H",
        ),
        "2C 6C 5C JC 2D 7D 6D KD 2S 5S 4S 7S TS AH 9S 6S JS KC 8S 3S KS TH QS AD 5H",
    ),
    Position(
        "no_points",
        "game 136, hand 3: JH was played",
        (
            "8C TC KD 6S 7S TS JS QS AS 5H 6H 8H QH",
            "9C JC QC 8D TD JD QD KS 2H 3H 4H JH KH",
            "2C 4C 7C KC 4D 5D 6D 7D 9D 8S 7H 9H TH",
            "3C 5C 6C AC 2D 3D AD 2S 3S 4S 5S 9S AH",
        ),
        "2C 3C 8C QC 8D 7D 3D KD 6S KS 8S 9S 9C 7C 6C TC 7S KH KC 5S TS QD TH 4S JS",
    ),
    Position(
        "no_points",
        "game 149, hand 3: 6H was played",
        (
            "4C 5C 6C 8C AC 2D 3D AD 4S AS 3H 6H 7H",
            "2C 3C 7D TD JD KD 5S 7S 8S 2H 5H TH JH",
            "9C TC JC 4D 8D 9D QD 6S 9S JS 4H 8H 9H",
            "7C QC KC 5D 6D 2S 3S TS QS KS QH KH AH",
        ),
        "2C 9C 7C AC 2D 7D 4D 5D 3C TC QC 8C 2S 4S 5S JS 6S 3S AS 8S 3D TD 9D 6D 7S 9S TS AD QS "
        "7H KD QD KS",
    ),
]


def shooter(view: SeatView) -> int:
    run = runner(taken_masks(view), 2)
    assert run is not None and run != view.seat  # the premise: another seat runs
    return run


def stops(position: Position, view: SeatView, card: Card) -> bool:
    """Whether ``card`` does what stops the run in ``position``."""
    trick = [c.index for _, c in view.trick]
    if position.kind == "no_points":
        return not POINT_CARDS >> card.index & 1
    mask = sum(1 << c for c in trick)
    winning = trick[trick_winner_position(view.rules, trick, mask)]
    return bool(SUIT_MASKS[winning // 13] >> card.index & 1) and card.index > winning


LEVELS: dict[str, Player] = {
    "expert": ExpertPlayer(1, steady=True),  # every deal its budget affords, by count
}
"""The levels that defend: `standard` and `pro` are RULES.md §7's, to the letter."""


@pytest.mark.parametrize("position", POSITIONS, ids=[p.where.split(":")[0] for p in POSITIONS])
def test_the_positions_are_runs_a_computer_can_stop(position: Position) -> None:
    view = position.view()
    run = shooter(view)
    seats = [s for s, _ in view.trick]
    legal = view.legal
    if position.kind == "take":
        trick = [c.index for _, c in view.trick]
        mask = sum(1 << c for c in trick)
        assert seats[trick_winner_position(view.rules, trick, mask)] == run
        assert mask & POINT_CARDS  # a trick with points in it
        assert any(stops(position, view, c) for c in legal)
    else:
        assert any(stops(position, view, c) for c in legal)
        assert any(not stops(position, view, c) for c in legal)


@pytest.mark.parametrize("level", list(LEVELS))
def test_the_expert_stops_an_obvious_run(level: str) -> None:
    player = LEVELS[level]
    missed = []
    for position in POSITIONS:
        view = position.view()
        card = player.choose_play(view, 300)
        if not stops(position, view, card):
            missed.append(f"{position.where}: {card}")
    assert missed == []


def test_the_arena_says_how_often_the_naive_shooter_shoots_against_each_level() -> None:
    table = moon_report(Rules(), ["easy", "standard"], 40, seed=3, jobs=1, budget_ms=50)
    lines = table.splitlines()
    assert lines[0].split()[:3] == ["against", "hands", "moons"]
    assert [line.split()[0] for line in lines[1:]] == ["easy", "standard"]
    for line in lines[1:]:
        hands, moons = (int(x) for x in line.split()[1:3])
        assert hands >= 40 and 0 <= moons <= hands
    assert NAIVE == "naive"


def test_the_naive_shooter_passes_its_three_right_most_cards_and_plays_its_first_legal() -> None:
    # As the DM showed a hand then: ♠ ♥ ♣ ♦, each low to high.
    game = Game(Rules(), deals=[[h.split() for h in POSITIONS[0].hands]])
    view = game.view(3)  # JC AC AD 2S 4S 6S 8S 9S JS QS AS 8H JH
    naive = NaiveShooter(0)
    assert [c.code for c in naive.choose_pass(view)] == ["JC", "AC", "AD"]
    game = Game(Rules(pass_cycle=HOLD), deals=[[h.split() for h in POSITIONS[0].hands]])
    game.play(0, Card.parse("2C"))
    game.play(1, Card.parse("8C"))
    game.play(2, Card.parse("7C"))
    assert naive.choose_play(game.view(3)).code == "JC"  # its first legal: clubs only
