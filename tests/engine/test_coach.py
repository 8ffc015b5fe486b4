"""The coach: hints that are the `expert`'s own choice with its own numbers, built from the
seat's view alone; reviews that point at the costly choices of a hand and at nothing in a
hand the `expert` played itself."""

from __future__ import annotations

import random

import pytest
from hearts_helpers import HOLD, hands, suit

from engine import Card, Game, Rules
from engine.cards import mask_of_codes
from engine.coach import (
    REVIEW_THRESHOLD,
    Fact,
    hand_decisions,
    hint,
    pass_chunks,
    pass_hint,
    pass_sums,
    play_hint,
    review,
    weigh_passes,
)
from engine.moves import Move
from engine.players import ExpertPlayer, make_player
from engine.players.expert import expert_pass

DEALS = 150
"""Fixed deals for the `expert` in these tests: its choices do not depend on the clock."""
BUDGET = 60_000.0
"""A budget the deadline never cuts short."""


def deal_keeping(seat0: str, holder_of_2c: int, seed: int) -> list[list[str]]:
    """A deal where seat 0 holds ``seat0`` and ``holder_of_2c`` the 2♣; the other cards
    are spread at random by ``seed``."""
    mine = seat0.split()
    rest = [c for s in "CDSH" for c in suit(s).split() if c not in mine and c != "2C"]
    random.Random(seed).shuffle(rest)
    piles: list[list[str]] = [mine, [], [], []]
    if "2C" not in mine:
        piles[holder_of_2c].append("2C")
    for seat in (1, 2, 3):
        need = 13 - len(piles[seat])
        piles[seat].extend(rest[:need])
        rest = rest[need:]
    return piles


SEAT0 = "3C 9C KC 4D 8D QD 2S 7S KS 5H 9H JH AH"


def test_a_pass_hint_is_the_same_for_two_deals_that_give_the_same_view() -> None:
    views = [Game(Rules(), deals=[deal_keeping(SEAT0, 2, s)]).view(0) for s in (1, 2)]
    assert views[0] == views[1]  # the premise: the others' cards differ, the view does not
    assert hint(views[0], seed=5) == hint(views[1], seed=5)


def test_a_play_hint_is_the_same_for_two_deals_that_give_the_same_view() -> None:
    views = []
    for seed in (1, 2):
        game = Game(Rules(pass_cycle=HOLD), deals=[deal_keeping(SEAT0, 3, seed)])
        game.play(3, Card.parse("2C"))
        views.append(game.view(0))
    assert views[0] == views[1]
    hints = [play_hint(v, ExpertPlayer(5, deals=DEALS), BUDGET) for v in views]
    assert hints[0] == hints[1]
    assert not hints[0].forced and hints[0].others


def random_positions(count: int) -> list[tuple[Game, int]]:
    """Positions of 4-player games part-way through a hand, each with the seat to play."""
    positions = []
    for seed in range(count):
        game = Game(Rules(), seed=seed)
        players = [make_player("standard", s) for s in range(4)]
        for seat in game.waiting_for():
            game.pass_cards(seat, players[seat].choose_pass(game.view(seat)))
        for _ in range(4 + seed * 3 % 30):
            seat = game.current_player
            assert seat is not None
            game.play(seat, players[seat].choose_play(game.view(seat)))
        seat = game.current_player
        assert seat is not None
        positions.append((game, seat))
    return positions


def test_a_play_hint_is_legal_and_is_the_experts_own_choice_with_its_own_numbers() -> None:
    real_choices = 0
    for game, seat in random_positions(8):
        view = game.view(seat)
        given = play_hint(view, ExpertPlayer(11, deals=DEALS), BUDGET)
        evaluation = ExpertPlayer(11, deals=DEALS).evaluate_play(view, BUDGET)
        (card,) = given.best.cards
        assert card in view.legal
        assert card == ExpertPlayer(11, deals=DEALS).choose_play(view, BUDGET)
        if given.forced:
            continue
        real_choices += 1
        # The numbers said are the evaluation's numbers, best first.
        assert given.best.cost == evaluation.costs[card]
        for other in given.others:
            assert other.cost == evaluation.costs[other.cards[0]]
            assert other.cost >= given.best.cost
    assert real_choices >= 4


def test_the_default_hint_is_what_the_expert_plays_with_the_same_seed_and_budget() -> None:
    game, seat = random_positions(3)[2]
    view = game.view(seat)
    assert hint(view, seed=3).best.cards == (ExpertPlayer(3).choose_play(view, 400.0),)


def test_a_pass_hint_is_the_experts_pass_and_its_numbers_are_the_playouts() -> None:
    view = Game(Rules(), deals=[deal_keeping(SEAT0, 2, 4)]).view(0)
    given = pass_hint(view, seed=7, deals=200)
    chosen = expert_pass(view.rules, view.hand_mask)
    assert given.best.cards == tuple(c for c in view.hand if chosen >> c.index & 1)
    candidates = [mask_of_codes(given.best.cards)] + [mask_of_codes(o.cards) for o in given.others]
    costs = weigh_passes(view, candidates, 7, "coach-pass", 200)
    assert given.best.cost == costs[0]
    assert sorted(o.cost for o in given.others) == sorted(costs[1:])
    assert len(given.others) >= 1


def test_a_pass_weighed_in_the_pools_chunks_is_the_same_as_in_one_go() -> None:
    # The worker pool runs a pass's weighing as short jobs (`pass_sums`, `PASS_CHUNK`
    # deals each) so a computer's move never waits long; the sum is one weighing.
    view = Game(Rules(), deals=[deal_keeping(SEAT0, 2, 4)]).view(0)
    candidates = [mask_of_codes(given) for given in (view.hand[:3], view.hand[-3:])]
    assert pass_chunks(450) == [200, 200, 50]
    sums = [0.0, 0.0]
    for chunk, size in enumerate(pass_chunks(450)):
        part = pass_sums(view, candidates, 3, "t", chunk, size)
        sums = [a + b for a, b in zip(sums, part, strict=True)]
    assert weigh_passes(view, candidates, 3, "t", 450) == [s / 450 for s in sums]
    # Each chunk has deals of its own: the same chunk twice is the same, two chunks differ.
    assert pass_sums(view, candidates, 3, "t", 0, 50) == pass_sums(view, candidates, 3, "t", 0, 50)
    assert pass_sums(view, candidates, 3, "t", 0, 50) != pass_sums(view, candidates, 3, "t", 1, 50)


def test_a_pass_hint_says_why_the_queen_goes() -> None:
    # The Q♠ with a single low spade: the expert passes it, and says the guard is short.
    seat0 = "QS 3S 2C 3C 4C 5D 6D 7D 8H 9H TH JH QH"
    view = Game(Rules(), deals=[deal_keeping(seat0, 0, 3)]).view(0)
    given = pass_hint(view, seed=1, deals=100)
    assert Card.parse("QS") in given.best.cards
    assert Fact("queen_unguarded", n=1) in given.facts


def test_a_play_hint_names_a_shown_void_and_the_queen_still_out() -> None:
    # Seat 3 holds only hearts: it shows no clubs on the first trick and no spades on the
    # second, which seat 2 leads with the Q♠ still out.
    deal = hands(
        "2C 3C 4C 5C 6C 2S 3S 4S 2D 3D 4D 5D 6D",
        "7S 8S 9S TS JS 7D 8D 9D TD JD QD KD AD",
        "7C 8C 9C TC JC QC KC AC 5S 6S QS KS AS",
        suit("H"),
    )
    game = Game(Rules(pass_cycle=HOLD), deals=[deal])
    for seat, card in ((0, "2C"), (1, "7D"), (2, "AC"), (3, "2H"), (2, "5S"), (3, "3H")):
        game.play(seat, Card.parse(card))
    view = game.view(0)
    given = play_hint(view, ExpertPlayer(2, deals=DEALS), BUDGET)
    assert given.best.cards[0] in view.legal
    assert Fact("queen_out") in given.facts
    assert Fact("void", seat=3, suit="S") in given.facts
    assert Fact("void", seat=1, suit="C") not in given.facts  # clubs are not in question


# ------------------------------------------------------------------------------ review

#: Seat 3 passes its Q♠ (and two low hearts) to seat 0, which has no diamonds and no
#: other spade; seat 2 leads the 2♣, seat 3 takes it with the A♣ and leads the A♦: seat 0
#: can drop the Q♠ on its giver, whose low cards cannot shoot the moon.
GIVER_DEAL = hands(
    "KH AH QH KC QC JC TC 9C 8C 3C 9H TH JH",
    "8S 9S TS JS KS AS 5H 6H 7H 8H 5S 6S 7S",
    "2C 4C 5C 6C 7C 9D TD JD QD KD 2S 3S 4S",
    "AC AD 2D 3D 4D 5D 6D 7D 8D 4H QS 2H 3H",
)
PASSES = {0: "9H TH JH", 1: "5S 6S 7S", 2: "2S 3S 4S", 3: "QS 2H 3H"}


def giver_hand(seat0: list[str]) -> tuple[Game, list[tuple[Move, bool]]]:
    """The hand of `GIVER_DEAL`, seat 0 playing ``seat0`` in order, the others their
    lowest legal card (seat 3 takes the first trick with the A♣ and leads the A♦)."""
    game = Game(Rules(), deals=[GIVER_DEAL], first_dealer=3)
    moves: list[tuple[Move, bool]] = []

    def make(move: Move) -> None:
        move.apply(game)
        moves.append((move, False))

    assert game.view(3).pass_to == 0
    for seat, cards in PASSES.items():
        make(Move.pass_cards(seat, cards.split()))
    scripted = {3: ["AC", "AD"], 0: list(seat0)}
    while game.hand_number == 1 and game.phase == "play":
        seat = game.current_player
        assert seat is not None
        legal = game.legal_plays()
        wanted = scripted.get(seat, [])
        card = Card.parse(wanted.pop(0)) if wanted else legal[0]
        make(Move.play(seat, card))
    return game, moves


def test_a_review_points_at_keeping_the_queen_when_it_could_go_to_its_giver() -> None:
    _, moves = giver_hand(["3C", "KC", "QS"])  # trick 2: the K♣, not the Q♠ on the A♦
    decisions = hand_decisions(Game(Rules(), deals=[GIVER_DEAL], first_dealer=3), moves, 0, 1)
    assert [d.trick for d in decisions] == [0, *range(1, 14)]
    second = decisions[2]
    assert second.view.trick[0][1] == Card.parse("AD") and second.chosen == (Card.parse("KC"),)
    findings = review(decisions, seed=1, deals=DEALS, budget_ms=BUDGET)
    worst = findings[0]
    assert worst.trick == 2
    assert worst.chosen.cards == (Card.parse("KC"),)
    assert worst.expert.cards == (Card.parse("QS"),)
    assert worst.loss > 2  # the Q♠ may still go on the next diamond, or may not


def test_a_review_of_a_hand_the_expert_played_itself_finds_nothing() -> None:
    for seed in (1, 2):
        game = Game(Rules(), seed=seed)
        start = Game(Rules(), seed=seed)
        expert = ExpertPlayer(seed, deals=DEALS)
        others = [make_player("standard", s) for s in range(4)]
        moves: list[tuple[Move, bool]] = []
        for seat in game.waiting_for():
            player = expert if seat == 0 else others[seat]
            move = Move.pass_cards(seat, player.choose_pass(game.view(seat), BUDGET))
            move.apply(game)
            moves.append((move, False))
        while game.hand_number == 1 and game.phase == "play":
            seat = game.current_player
            assert seat is not None
            player = expert if seat == 0 else others[seat]
            move = Move.play(seat, player.choose_play(game.view(seat), BUDGET))
            move.apply(game)
            moves.append((move, False))
        decisions = hand_decisions(start, moves, 0, 1)
        assert len(decisions) == 14
        assert review(decisions, seed=seed, deals=DEALS, budget_ms=BUDGET) == []


def test_a_reviewed_decision_is_the_view_the_person_had_then_and_stand_ins_are_left_out() -> None:
    _, moves = giver_hand(["3C", "KC"])
    # Say a computer made seat 0's third play for them (a timeout).
    plays = [i for i, (m, _) in enumerate(moves) if m.seat == 0 and m.kind == "play"]
    moves[plays[2]] = (moves[plays[2]][0], True)
    replayed = Game(Rules(), deals=[GIVER_DEAL], first_dealer=3)
    decisions = hand_decisions(replayed, moves, 0, 1)
    assert [d.trick for d in decisions] == [0, 1, 2, *range(4, 14)]
    # Each view is seat 0's own: its hand, never another's.
    for decision in decisions:
        assert all(c in decision.view.hand for c in decision.chosen)
        assert decision.view.seat == 0


def test_a_hint_is_refused_when_the_seat_has_nothing_to_choose() -> None:
    game = Game(Rules(pass_cycle=HOLD), deals=[deal_keeping(SEAT0, 3, 1)])
    with pytest.raises(ValueError, match="a hint is for"):
        hint(game.view(0))  # seat 3 is to lead the 2♣, not seat 0


def test_a_small_loss_is_not_worth_a_word() -> None:
    _, moves = giver_hand(["3C", "KC", "QS"])
    decisions = hand_decisions(Game(Rules(), deals=[GIVER_DEAL], first_dealer=3), moves, 0, 1)
    findings = review(decisions, seed=1, deals=DEALS, budget_ms=BUDGET)
    assert 1 <= len(findings) <= 3
    assert all(f.loss >= REVIEW_THRESHOLD for f in findings)
    assert [f.loss for f in findings] == sorted((f.loss for f in findings), reverse=True)
