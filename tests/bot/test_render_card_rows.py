"""The DM's card buttons: a label with a mark (``[Q♠]`` chosen, ``•Q♠`` received) sits in a
row of at most five, so a phone 360 px wide shows it whole; the rows stay put while cards
are chosen; bare cards keep rows of seven."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from test_live_view import step, table_for

from bot.i18n import translator
from bot.screens.seat_screen import seat_screen
from bot.telegram.draw import MARKED_ROW, MAX_ROW, STRUCK, dm, seat_dm
from engine import Game, Rules


def card_rows(table_: object, seat: int) -> list[list[str]]:
    _, markup = dm(translator("en"), table_, seat)  # type: ignore[arg-type]
    assert markup is not None
    return [
        [b.text for b in row]
        for row in markup.inline_keyboard
        if row and (row[0].callback_data or "").startswith("c:")
    ]


@pytest.mark.parametrize("seed", range(12))
def test_a_marked_label_is_never_in_a_row_of_more_than_five(seed: int) -> None:
    rules = Rules()
    game = Game(rules, seed=seed)
    table = table_for(rules, game)
    rng = random.Random(seed)
    seen_marked = False
    while game.hand_number <= 2 and game.phase != "over":
        for seat in range(rules.players):
            if game.phase == "pass" and not game.has_passed(seat):
                before = [len(r) for r in card_rows(table, seat)]
                table.ui.selections[seat] = [c.code for c in game.hand(seat)[:3]]
                after = [len(r) for r in card_rows(table, seat)]
                assert after == before  # choosing never moves a button
                table.ui.selections.pop(seat)
            rows = card_rows(table, seat)
            marked = [r for r in rows if any(label[0] in "[•" for label in r)]
            seen_marked |= bool(marked)
            assert all(len(r) <= MARKED_ROW for r in marked), rows
            if game.phase == "pass" or not game.tricks:
                assert all(len(r) <= MARKED_ROW for r in rows), rows
                sizes = {}
                for r in rows:
                    sizes.setdefault(r[0][-1], []).append(len(r))
                # Rows of one suit as even as can be: 6 → 3 + 3, never 5 + 1.
                assert all(max(s) - min(s) <= 1 for s in sizes.values()), rows
            else:
                assert all(len(r) <= MAX_ROW for r in rows)
        step(game, rng)
    assert seen_marked


def test_a_long_suit_goes_back_to_rows_of_seven_after_the_first_trick() -> None:
    rules = Rules()
    for seed in range(200):
        game = Game(rules, seed=seed)
        table = table_for(rules, game)
        rng = random.Random(seed)
        while game.phase == "pass" or not game.tricks:
            step(game, rng)
        for seat in range(rules.players):
            suits = [c.suit for c in game.hand(seat)]
            if max(suits.count(s) for s in "SHCD") >= 6:
                rows = card_rows(table, seat)
                assert any(len(r) >= 6 for r in rows), rows
                return
    pytest.fail("no deal with a long suit")


LANGUAGES = ("en", "es", "pt_BR", "ru", "fa", "hi")


def struck_cards(rows: list[list[str]]) -> set[str]:
    """The cards whose labels are struck through (``Q̶♠`` is Q♠), marks and isolation
    taken off."""
    return {
        label.replace(STRUCK, "").strip("•\u2068\u2069")
        for row in rows
        for label in row
        if STRUCK in label
    }


@pytest.mark.parametrize("seed", range(4))
def test_on_your_turn_the_cards_you_may_not_play_are_struck_through(seed: int) -> None:
    """Issue 51, item 3: on the reader's turn every card they may not play has its rank
    struck (``Q̶♠``), as Windows Hearts greys it, and only then; the same labels in every
    language, in the rows the bare cards take (a mark of no width: nothing moves)."""
    rules = Rules()
    game = Game(rules, seed=seed)
    table = table_for(rules, game)
    rng = random.Random(seed)
    turns = barred_turns = 0
    while game.hand_number <= 2 and game.phase != "over":
        for seat in range(rules.players):
            rows = card_rows(table, seat)
            struck = struck_cards(rows)
            if game.phase == "play" and game.current_player == seat:
                turns += 1
                legal = {c.symbol for c in game.legal_plays()}
                held = {c.symbol for c in game.hand(seat)}
                assert struck == held - legal, (rows, legal)
                barred_turns += bool(struck)
                unmarked = replace(
                    seat_screen(table, seat),
                    cards=tuple(replace(c, legal=False) for c in seat_screen(table, seat).cards),
                )
                _, bare = seat_dm(translator("en"), unmarked)
                assert bare is not None
                bare_rows = [
                    [b.text for b in row]
                    for row in bare.inline_keyboard
                    if row and (row[0].callback_data or "").startswith("c:")
                ]
                assert [[x.replace(STRUCK, "") for x in row] for row in rows] == bare_rows
            else:
                assert struck == set(), rows
            for language in LANGUAGES[1:]:
                _, markup = dm(translator(language), table, seat)
                assert markup is not None
                drawn = [
                    [b.text for b in row]
                    for row in markup.inline_keyboard
                    if row and (row[0].callback_data or "").startswith("c:")
                ]
                assert struck_cards(drawn) == struck
                assert [len(row) for row in drawn] == [len(row) for row in rows]
        step(game, rng)
    assert turns and barred_turns


def test_a_lone_card_shares_a_row_rather_than_span_the_chat() -> None:
    """Issue 51, item 13: a suit of one card was a button as wide as the chat. It joins a
    row with room; a row of one is left only where no row beside it has room."""
    rules = Rules()
    lone_seen = 0
    for seed in range(60):
        game = Game(rules, seed=seed)
        table = table_for(rules, game)
        rng = random.Random(seed)
        while game.phase == "pass" or not game.tricks:
            step(game, rng)
        for seat in range(rules.players):
            suits = [c.suit for c in game.hand(seat)]
            if any(suits.count(s) == 1 for s in "SHCD"):
                lone_seen += 1
                rows = card_rows(table, seat)
                for i, row in enumerate(rows):
                    if len(row) == 1:
                        beside = [len(r) for r in rows[max(0, i - 1) : i + 2] if r is not row]
                        assert all(n >= MAX_ROW for n in beside), rows
    assert lone_seen > 0
