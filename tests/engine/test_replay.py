"""A finished hand, rebuilt face up from the game's start and its moves (`engine.replay`)."""

from __future__ import annotations

import itertools
import random

import pytest
from hearts_helpers import HOLD, SUITED_DEAL

from engine import Card, CardsReceived, Game, HandScored, Move, Rules, TrickWon
from engine.cards import shown_order
from engine.replay import HandNotOver, frames, hand_data, hand_replay, replays

VARIANTS = [
    Rules(players=4, target=60),
    Rules(players=3, target=50),
    Rules(players=5, target=50),
    Rules(players=2, variant="two_player", target=60),
    Rules(players=4, variant="complex", target=40),
    Rules(players=4, bonus_card="JD", moon="add_to_others", target=60),
    Rules(players=4, pass_cycle=HOLD, target=60),
]


def random_move(game: Game, rng: random.Random) -> Move:
    if game.phase == "pass":
        seat = rng.choice(game.waiting_for())
        return Move.pass_cards(seat, rng.sample(game.hand(seat), 3))
    if game.phase == "play":
        assert game.current_player is not None
        return Move.play(game.current_player, rng.choice(game.legal_plays()))
    shooter = game.moon_shooter
    assert shooter is not None
    return Move.moon(shooter, rng.choice(["add_to_others", "subtract_from_shooter"]))


def played(game: Game, seed: int, stop: int | None = None) -> tuple[list[Move], dict[str, list]]:
    """Random moves on ``game`` (changed), and what the engine said and held along the way."""
    rng = random.Random(seed)
    seen: dict[str, list] = {"deals": [], "received": [], "tricks": [], "scored": []}
    seen["deals"].append([game.hand(s) for s in range(game.rules.players)])
    moves: list[Move] = []
    while game.phase != "over" and (stop is None or len(moves) < stop):
        move = random_move(game, rng)
        hand = game.hand_number
        for event in move.apply(game):
            if isinstance(event, CardsReceived):
                seen["received"].append((hand, event.from_seat, event.seat, event.cards))
            elif isinstance(event, TrickWon):
                seen["tricks"].append((hand, event.seat, event.cards, event.points))
            elif isinstance(event, HandScored) and game.phase != "over":
                seen["deals"].append([game.hand(s) for s in range(game.rules.players)])
        moves.append(move)
    return moves, seen


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.players}-{r.variant}")
def test_every_finished_hand_replays_as_the_engine_played_it(rules: Rules) -> None:
    for seed in range(3):
        start = Game(rules, seed=seed)
        game = start.copy()
        moves, seen = played(game, seed)
        hands = replays(start, moves)
        assert start.to_json() == Game(rules, seed=seed).to_json()  # the start is not changed
        assert [h.hand_number for h in hands] == [r.hand_number for r in game.hand_history]
        for hand, result in zip(hands, game.hand_history, strict=True):
            assert list(hand.deal) == [tuple(h) for h in seen["deals"][hand.hand_number - 1]]
            assert (hand.points, hand.totals) == (result.points, result.totals)
            assert (hand.shooter, hand.moon_choice) == (result.shooter, result.moon_choice)
            assert (hand.dealer, hand.pass_direction) == (result.dealer, result.pass_direction)
            assert hand.dead == result.dead
            passes = sorted((g, r, c) for h, g, r, c in seen["received"] if h == hand.hand_number)
            assert [(p.giver, p.receiver, p.cards) for p in hand.passes] == passes
            if hand.pass_direction == "hold":
                assert hand.passes == ()
            tricks = [(w, c, p) for h, w, c, p in seen["tricks"] if h == hand.hand_number]
            assert [(t.winner, t.plays, t.points) for t in hand.tricks] == tricks
            assert all(t.leader == t.plays[0][0] for t in hand.tricks)
            if hand.shooter is None and rules.variant != "complex":
                assert hand.taken() == hand.points


@pytest.mark.parametrize("rules", VARIANTS[:4], ids=lambda r: f"{r.players}-{r.variant}")
def test_the_frames_walk_the_hand_card_by_card(rules: Rules) -> None:
    start = Game(rules, seed=11)
    moves, _ = played(start.copy(), 11)
    for hand in replays(start, moves)[:3]:
        steps = frames(hand)
        cards = sum(len(t.plays) for t in hand.tricks)
        # In the order every screen shows a hand (♠ ♥ ♣ ♦, low to high).
        assert steps[0].step == "deal" and steps[0].hands == tuple(
            tuple(shown_order(h)) for h in hand.deal
        )
        assert [f.step for f in steps[1:-1]] == (["pass"] if hand.passes else []) + ["card"] * cards
        assert steps[-1].step == "score" and all(h == () for h in steps[-1].hands)
        for before, after in itertools.pairwise(steps):
            if after.step == "card":
                seat, card = after.table[-1]
                assert card in before.hands[seat] and card not in after.hands[seat]
        winners = [f.winner for f in steps if f.winner is not None]
        assert winners == [t.winner for t in hand.tricks]
        assert steps[-1].taken == hand.taken()
        data = hand_data(hand)
        assert len(data["frames"]) == len(steps)
        assert data["deal"] == [[c.code for c in shown_order(h)] for h in hand.deal]


def test_a_moon_is_replayed_with_its_shooter_and_choice() -> None:
    rules = Rules(pass_cycle=HOLD, moon="choose")
    start = Game(rules, deals=[SUITED_DEAL], first_dealer=3)
    game = start.copy()
    moves: list[Move] = []
    while game.phase == "play":
        assert game.current_player is not None
        move = Move.play(game.current_player, game.legal_plays()[0])
        move.apply(game)
        moves.append(move)
    assert game.phase == "moon"
    with pytest.raises(HandNotOver):  # the shooter has not chosen: the hand is not over
        hand_replay(start, moves, 1)
    moves.append(Move.moon(0, "add_to_others"))
    hand = hand_replay(start, moves, 1)
    assert (hand.shooter, hand.moon_choice) == (0, "add_to_others")
    assert hand.taken() == (26, 0, 0, 0) and hand.points == (0, 26, 26, 26)
    assert hand.passes == () and len(hand.tricks) == 13


def test_a_hand_in_progress_is_refused() -> None:
    rules = Rules(players=4, target=100)
    start = Game(rules, seed=5)
    moves, _ = played(start.copy(), 5, stop=70)  # hand 1 over (4 passes, 52 cards), hand 2 not
    assert [h.hand_number for h in replays(start, moves)] == [1]
    assert hand_replay(start, moves, 1).moves == 56
    for number in (2, 3, 0):
        with pytest.raises(HandNotOver):
            hand_replay(start, moves, number)


def test_cards_are_cards() -> None:
    start = Game(Rules(players=4), seed=1)
    moves, _ = played(start.copy(), 1, stop=56)
    hand = hand_replay(start, moves, 1)
    assert all(isinstance(c, Card) for cards in hand.deal for c in cards)
    assert sorted(c.code for cards in hand.deal for c in cards) == sorted(
        c.code for t in hand.tricks for _, c in t.plays
    )
