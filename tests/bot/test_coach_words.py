"""Which decision a hint answers, and the hint's stored form."""

from __future__ import annotations

from dataclasses import replace

from bot.computers.coach_words import (
    decision_key,
    hint_from_dict,
    hint_sentences,
    hint_to_dict,
    review_lines,
)
from bot.i18n import ENGLISH, Tr, translator
from bot.telegram import draw
from engine import Card, Game, Rules
from engine.coach import Finding, Hint, Option, pass_hint


def hint_lines(tr: Tr, names: list[str], found: Hint) -> list[str]:
    """The hint as the DM shows it (drawn by the Telegram adapter)."""
    return [draw.lines(tr, [line]) for line in hint_sentences(names, found)]


def review_text(tr: Tr, names: list[str], hand: int, decided: bool, findings: list[Finding]) -> str:
    """The review as the DM shows it (drawn by the Telegram adapter)."""
    return draw.lines(tr, review_lines(names, hand, decided, findings))


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
    found = pass_hint(game.view(0), seed=1)
    again = hint_from_dict(hint_to_dict(found))
    assert again.best.cards == found.best.cards
    assert [o.cards for o in again.others] == [o.cards for o in found.others]
    assert again.facts == found.facts
    assert all(isinstance(c, Card) for c in again.best.cards)


def _option(cards: str, points: float, lose: float = 0.0, win: float = 0.0) -> Option:
    return Option(tuple(Card.parse(c) for c in cards.split()), points, lose, win)


NAMES = ["Ann", "Bob", "Cid", "Dan"]


def test_a_hint_shows_points_and_says_apart_a_lighter_choice_the_games_end_rules_out() -> None:
    # Q♠ would take fewer points than the A♠ but loses the game far more often.
    found = Hint(
        "play",
        _option("AS", 6.2, lose=0.10),
        (_option("KS", 7.0, lose=0.10),),
        (),
        rival=_option("QS", 3.1, lose=0.40),
    )
    lines = hint_lines(translator(ENGLISH), NAMES, found)
    assert lines[1] == "Expected points this hand: A♠ 6.2 · K♠ 7.0"
    assert lines[2] == "For the game's end: Q♠ risks losing the game (40% against 10%)."
    again = hint_from_dict(hint_to_dict(found))
    assert again == found


def test_a_hint_stored_before_points_and_the_games_end_were_apart_reads_as_points() -> None:
    stored = {
        "kind": "play",
        "forced": False,
        "best": {"cards": ["AS"], "cost": 4.9},
        "others": [{"cards": ["KS"], "cost": 5.5}],
        "facts": [],
    }
    found = hint_from_dict(stored)
    assert found.best == _option("AS", 4.9) and found.rival is None
    assert "A♠ 4.9 · K♠ 5.5" in hint_lines(translator(ENGLISH), NAMES, found)[1]


def test_a_review_shows_points_as_points_and_the_games_end_apart() -> None:
    tr = translator(ENGLISH)
    # Near the end of a game: the expert's choice takes more points but keeps the game.
    about_game = Finding(5, _option("QS", 7.4, lose=0.6), _option("AS", 9.0, lose=0.1), ())
    text = review_text(tr, NAMES, 7, True, [about_game])
    assert (
        "Trick 5: you played Q♠; the expert would play <b>A♠</b>. Expected points 7.4 "
        "against 9.0, but the game's end counts more. For the game's end: Q♠ risks losing "
        "the game (60% against 10%)."
    ) in text
    # A choice that cost points, and made winning the game less likely too.
    both = Finding(3, _option("KH", 8.0, win=0.05), _option("2H", 5.0, win=0.30), ())
    text = review_text(tr, NAMES, 7, True, [both])
    assert "Expected points 8.0 against 5.0: 3.0 more." in text
    assert "For the game's end: K♥ misses a chance to win the game (5% against 30%)." in text
    # Points alone: no word of the game.
    plain = Finding(2, _option("KC", 4.0), _option("QS", 1.5), ())
    text = review_text(tr, NAMES, 7, True, [plain])
    assert "Expected points 4.0 against 1.5: 2.5 more." in text and "game" not in text


def test_options_within_the_searchs_margin_of_error_are_said_as_good_in_words() -> None:
    # Issue 51: the options were shown as "5.2 · 5.2 · 5.2", which tells the player
    # nothing. Those the search cannot tell from its choice are said to do as well.
    found = Hint(
        "pass",
        _option("7C 4D JD", 5.21),
        (
            replace(_option("5C 7C AC", 5.24), even=True),
            _option("QS KS AS", 7.0),
        ),
        (),
    )
    lines = hint_lines(translator(ENGLISH), NAMES, found)
    assert lines[0] == "💡 The expert would pass <b>7♣ 4♦ J♦</b>."
    assert lines[1] == "5♣ 7♣ A♣ would do as well, as far as the expert can tell."
    assert lines[2] == "Expected points this hand: 7♣ 4♦ J♦ 5.2 · Q♠ K♠ A♠ 7.0"
    assert hint_from_dict(hint_to_dict(found)) == found
    both = Hint("pass", found.best, tuple(replace(o, even=True) for o in found.others), ())
    lines = hint_lines(translator(ENGLISH), NAMES, both)
    assert lines[1] == "5♣ 7♣ A♣ · Q♠ K♠ A♠ would each do as well, as far as the expert can tell."
    assert lines[2] == "Expected points this hand: 7♣ 4♦ J♦ 5.2"
