"""Which decision a hint answers, and the hint's stored form."""

from __future__ import annotations

from bot.tables.coach_words import decision_key, hint_from_dict, hint_to_dict
from engine import Card, Game, Rules
from engine.coach import pass_hint


def test_a_hint_answers_the_pass_or_the_seats_own_turn_and_nothing_else() -> None:
    game = Game(Rules(), seed=4)
    assert decision_key(game.view(0)) == "p1"
    for seat in range(4):
        game.pass_cards(seat, game.hand(seat)[:3])
    leader = game.current_player
    assert leader is not None
    assert decision_key(game.view(leader)) == "t1.0.0"
    others = [s for s in range(4) if s != leader]
    assert all(decision_key(game.view(s)) is None for s in others)  # not their turn
    game.play(leader, game.legal_plays()[0])
    assert decision_key(game.view(leader)) is None
    assert decision_key(game.view((leader + 1) % 4)) == "t1.0.1"


def test_a_stored_hint_reads_back_as_it_was() -> None:
    game = Game(Rules(), seed=4)
    found = pass_hint(game.view(0), seed=1, deals=50)
    again = hint_from_dict(hint_to_dict(found))
    assert again.best.cards == found.best.cards
    assert [o.cards for o in again.others] == [o.cards for o in found.others]
    assert again.facts == found.facts
    assert all(isinstance(c, Card) for c in again.best.cards)
