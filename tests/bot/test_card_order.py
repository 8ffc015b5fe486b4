"""Cards in one order everywhere (issue 51, item 7): the DM's buttons, the table page, a
replay's frames and words, and "You received" all show a hand as `shown_order` does
(♠ ♥ ♣ ♦, each suit low to high); a pass's arrow points to its receiver whatever the
direction ("Pass 3 cards ← Grace" read as "from Grace")."""

from __future__ import annotations

import random
import re

from test_live_view import step, table_for

from bot.i18n import translator
from bot.live.view import seat_state
from bot.replays.replays import cards_text
from bot.telegram.draw import STRUCK, dm
from engine import Card, Game, Move, Rules
from engine.cards import SHOWN_SUITS, cards_of, shown_order
from engine.replay import frames, replays

EN = translator("en")


def button_cards(table: object, seat: int) -> list[str]:
    _, markup = dm(EN, table, seat)  # type: ignore[arg-type]
    assert markup is not None
    return [
        b.text.strip("[]•").replace(STRUCK, "")  # a card not playable now is struck
        for row in markup.inline_keyboard
        for b in row
        if str(b.callback_data or "").startswith("c:")
    ]


def test_shown_order_is_spades_hearts_clubs_diamonds_low_to_high() -> None:
    cards = [Card.parse(c) for c in ("AD", "KS", "KH", "2S", "3C", "10H")]
    assert [c.symbol for c in shown_order(cards)] == ["2♠", "K♠", "10♥", "K♥", "3♣", "A♦"]
    assert SHOWN_SUITS == "SHCD"
    assert cards_text(cards) == "2♠ K♠ · 10♥ K♥ · 3♣ · A♦"


def test_the_dm_the_page_and_you_received_show_one_order() -> None:
    rules = Rules()
    game = Game(rules, seed=5)
    table = table_for(rules, game)
    seat = 0
    hand = [c.symbol for c in shown_order(game.hand(seat))]
    assert button_cards(table, seat) == hand
    page = seat_state(EN, table, seat, version=1)["cards"]
    assert [c["rank"] + {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}[c["suit"]] for c in page] == hand
    # The pass, to the left: the sentence's arrow points to whom the cards go.
    text, _ = dm(EN, table, seat)
    assert re.search(r"Pass 3 cards → <b>", text), text
    rng = random.Random(5)
    while game.phase == "pass":
        step(game, rng)
    text, _ = dm(EN, table, seat)
    received = re.search(r"You received (.*?) from", text)
    assert received is not None, text
    symbols = re.findall(r"<b>(.*?)</b>", received[1])
    assert symbols == [c.symbol for c in shown_order(Card.parse(_code(s)) for s in symbols)]
    assert button_cards(table, seat) == [c.symbol for c in shown_order(game.hand(seat))]


def _code(symbol: str) -> str:
    return symbol[:-1].replace("10", "T") + {"♠": "S", "♥": "H", "♣": "C", "♦": "D"}[symbol[-1]]


def test_the_pass_arrow_points_to_the_receiver_on_a_pass_right() -> None:
    rules = Rules()
    game = Game(rules, seed=9)
    rng = random.Random(9)
    while game.pass_direction != "right" or game.phase != "pass":
        step(game, rng)
    table = table_for(rules, game)
    text, _ = dm(EN, table, 0)
    assert "←" not in text and re.search(r"Pass 3 cards → <b>", text), text


def test_a_replays_frames_and_its_deal_run_in_the_shown_order() -> None:
    start = Game(Rules(), seed=11)
    game, rng, moves = start.copy(), random.Random(11), []
    while not game.hand_history:
        if game.phase == "pass":
            seat = game.waiting_for()[0]
            move = Move.pass_cards(seat, rng.sample(game.hand(seat), 3))
        elif game.phase == "moon":
            move = Move.moon(game.waiting_for()[0], "add_to_others")
        else:
            assert game.current_player is not None
            move = Move.play(game.current_player, rng.choice(game.legal_plays()))
        move.apply(game)
        moves.append(move)
    hand = replays(start, moves)[0]
    for frame in frames(hand):
        for cards in frame.hands:
            assert list(cards) == shown_order(cards)
    assert list(frames(hand)[0].hands[0]) == shown_order(cards_of(start.hands[0]))
