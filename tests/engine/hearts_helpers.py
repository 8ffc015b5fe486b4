"""Shared helpers for the engine tests: fixed deals, scripted play, random play."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence

import pytest

from engine import Card, Game, IllegalMove, Rules
from engine.events import Event
from engine.rules import PassDirection

HOLD: tuple[PassDirection, ...] = ("hold",)


def hands(*piles: str) -> list[list[str]]:
    """One deal from space-separated card codes, pile by pile."""
    return [pile.split() for pile in piles]


def suit(letter: str, ranks: str = "23456789TJQKA") -> str:
    """Card codes of ``ranks`` in one suit, space-separated."""
    return " ".join(r + letter for r in ranks)


#: Seat 0 all clubs, seat 1 all diamonds, seat 2 all spades, seat 3 all hearts.
SUITED_DEAL = hands(suit("C"), suit("D"), suit("S"), suit("H"))


def codes(cards: Iterable[Card]) -> list[str]:
    return [c.code for c in cards]


Chooser = Callable[[Game, list[Card]], Card]


def lowest(game: Game, legal: list[Card]) -> Card:
    return legal[0]


def prefer(*wanted: str) -> Chooser:
    """Play the first of ``wanted`` that is legal, else the lowest legal card."""

    def choose(game: Game, legal: list[Card]) -> Card:
        for code in wanted:
            card = Card.parse(code)
            if card in legal:
                return card
        return legal[0]

    return choose


def play_hand(game: Game, choose: Chooser = lowest) -> list[Event]:
    """Play the current hand to its end (or to a moon choice, or game over)."""
    number = game.hand_number
    events: list[Event] = []
    while game.phase == "play" and game.hand_number == number:
        seat = game.current_player
        assert seat is not None
        events += game.play(seat, choose(game, game.legal_plays()))
    return events


def pass_all(game: Game, chosen: Sequence[Sequence[str]] | None = None) -> list[Event]:
    """Every seat passes ``chosen[seat]``, or its three lowest cards."""
    events: list[Event] = []
    for seat in range(game.players):
        cards = chosen[seat] if chosen is not None else codes(game.hand(seat)[:3])
        events += game.pass_cards(seat, cards)
    return events


def rejects(game: Game, move: Callable[[], object], reason: str) -> IllegalMove:
    """Assert ``move`` raises IllegalMove with ``reason`` and leaves ``game`` unchanged."""
    before = game.to_json()
    with pytest.raises(IllegalMove) as caught:
        move()
    assert caught.value.reason == reason
    assert caught.value.message
    assert str(caught.value) == caught.value.message
    assert game.to_json() == before
    return caught.value


def random_move(game: Game, rng: random.Random) -> list[Event]:
    """One random legal move in whatever phase the game is in."""
    if game.phase == "pass":
        seat = rng.choice(game.waiting_for())
        return game.pass_cards(seat, rng.sample(game.hand(seat), 3))
    if game.phase == "play":
        player = game.current_player
        assert player is not None
        return game.play(player, rng.choice(game.legal_plays()))
    if game.phase == "moon":
        shooter = game.moon_shooter
        assert shooter is not None
        return game.choose_moon(shooter, rng.choice(["add_to_others", "subtract_from_shooter"]))
    raise AssertionError("the game is over")


def play_game(rules: Rules, seed: int, max_hands: int = 200) -> Game:
    """A whole random game."""
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    while game.phase != "over":
        assert game.hand_number <= max_hands
        random_move(game, rng)
    return game


def with_scores(game: Game, scores: Sequence[object]) -> Game:
    """The same game with these running totals (complex totals as [re, im] pairs)."""
    import json

    data = json.loads(game.to_json())
    data["scores"] = list(scores)
    return Game.from_json(json.dumps(data))


#: Seat 1 takes the J♦ (and no points) on the first trick; seat 0 then takes every trick
#: and with it all the hearts and the Q♠.
SHOOTER_WITHOUT_JD = hands(
    suit("C", "23456789TJQK") + " AD",
    "AC " + suit("D", "23456789TQK") + " 2H",
    "JD " + suit("S", "3456789TJQKA"),
    "2S " + suit("H", "3456789TJQKA"),
)

#: Seat 1 takes the 10♣ (and no points) on the first trick; seat 0 then takes every trick,
#: the J♦ among them.
SHOOTER_WITHOUT_TC = hands(
    suit("C", "23456789JQK") + " AD AS",
    "AC " + suit("D", "23456789TQK") + " 2H",
    "TC JD " + suit("S", "3456789TJQK"),
    "2S " + suit("H", "3456789TJQKA"),
)


def cards_in(value: object) -> set[Card]:
    """Every `Card` reachable from ``value`` through dataclass fields and containers."""
    import dataclasses

    if isinstance(value, Card):
        return {value}
    found: set[Card] = set()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            found |= cards_in(getattr(value, f.name))
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            found |= cards_in(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            found |= cards_in(key) | cards_in(item)
    return found
