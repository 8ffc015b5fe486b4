"""What the table page is sent for one seat (`bot.live.view.seat_state`), over whole random
games of every variant: never a card another seat holds, and every phase's own parts (the
pass, the moon choice, the hand's results, the game-end chart)."""

from __future__ import annotations

import json
import random

import pytest

from bot.core.phases import Phase
from bot.i18n import translator
from bot.live.view import seat_state, words
from bot.tables.model import Seat, Table, TableOptions
from engine import Game, Rules


def table_for(rules: Rules, game: Game) -> Table:
    seats: list[Seat | None] = [
        Seat("human", f"P{n}", user_id=100 + n) for n in range(rules.players)
    ]
    return Table(
        id=7,
        chat_id=-5,
        thread_id=None,
        chat_title="T",
        creator_id=100,
        creator_name="P0",
        rules=rules,
        options=TableOptions(),
        seats=seats,
        phase=Phase.DEALT,
        game=game,
    )


def step(game: Game, rng: random.Random) -> None:
    if game.phase == "pass":
        seat = rng.choice(game.waiting_for())
        game.pass_cards(seat, rng.sample(game.hand(seat), 3))
    elif game.phase == "play":
        assert game.current_player is not None
        game.play(game.current_player, rng.choice(game.legal_plays()))
    else:
        assert game.moon_shooter is not None
        game.choose_moon(game.moon_shooter, "add_to_others")


@pytest.mark.parametrize(
    "rules",
    [Rules(), Rules(players=3), Rules(variant="complex"), Rules(players=2, variant="two_player")],
    ids=["standard", "three", "complex", "two_player"],
)
def test_a_seat_is_never_sent_a_card_another_seat_holds(rules: Rules) -> None:
    tr = translator("en")
    game = Game(rules, seed=3)
    table = table_for(rules, game)
    rng = random.Random(3)
    phases = set()
    while game.phase != "over":
        for seat in range(rules.players):
            state = seat_state(tr, table, seat, version=1)
            text = json.dumps(state)
            held = {c.code for s in range(rules.players) if s != seat for c in game.hand(s)}
            sent = {c["code"] for c in state["cards"]}
            assert sent == {c.code for c in game.hand(seat)}
            assert not any(f'"code": "{code}"' in text for code in held)
            phases.add(state["phase"])
            if state["pass"]:
                assert state["pass"]["button"].startswith("Pass ")
            if state["moon"]:
                assert game.moon_shooter == seat and len(state["moon"]) == 2
        step(game, rng)
    over = seat_state(tr, table, 0, version=2)
    assert over["over"]["winners"] == list(game.winners)
    hands = over["history"]["hands"]
    assert len(hands) == len(game.hand_history) and all(
        len(h["values"]) == rules.players for h in hands
    )
    assert over["status"].startswith("🏁 Game over.") and "<b>" not in over["status"]
    assert "play" in phases and over["phase"] == "over" and over["ended"] == "finished"


def test_the_pages_words_come_in_the_readers_language() -> None:
    assert words(translator("es"))["reconnecting"] == "Reconectando…"
    assert words(translator("ru"))["total"] == "Итого"
    assert all(words(translator("fa")).values())


@pytest.mark.parametrize("language", ["en", "fa"])
def test_the_page_gets_every_name_isolated_and_without_bidi_controls(language: str) -> None:
    """Issue 29.6: the page shows names as text too (joined into lines by table.js)."""
    rules = Rules()
    game = Game(rules, seed=3)
    table = table_for(rules, game)
    table.seats[1] = Seat("human", "Mallory\u202e", user_id=101)
    table.seats[2] = Seat("human", "\u2067Eve\u202b", user_id=102)
    state = seat_state(translator(language), table, 0, 1)
    names = [seat["name"] for seat in state["seats"]]
    assert names == ["\u2068P0\u2069", "\u2068Mallory\u2069", "\u2068Eve\u2069", "\u2068P3\u2069"]
    said = json.dumps(state, ensure_ascii=False)
    assert not set(said) & {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2067"}


def test_a_cancelled_game_says_so_and_offers_nothing_to_press() -> None:
    tr = translator("en")
    rules = Rules()
    game = Game(rules, seed=5)
    table = table_for(rules, game)
    rng = random.Random(5)
    while game.phase == "pass" or len(game.tricks) < 2 or not game.trick:
        step(game, rng)
    table.deadline = 1e12
    playing = seat_state(tr, table, game.current_player or 0, version=1)
    assert playing["ended"] is None and playing["deadline"] is not None
    assert any(c["legal"] for c in playing["cards"]) and playing["hint"] is not None
    table.phase = Phase.CANCELLED
    for seat in range(rules.players):
        state = seat_state(tr, table, seat, version=2)
        assert state["ended"] == "cancelled" and state["status"] == "♥ This table was cancelled."
        assert state["deadline"] is None and state["hint"] is None and state["over"] is None
        assert not any(c["legal"] or c["chosen"] for c in state["cards"])
        assert not any(s["turn"] or s["waiting"] for s in state["seats"])


@pytest.mark.parametrize("where", ["hints off", "tournament"])
def test_no_hint_on_the_page_where_the_dm_has_none(where: str) -> None:
    tr = translator("en")
    rules = Rules()
    game = Game(rules, seed=5)
    table = table_for(rules, game)
    assert seat_state(tr, table, 0, version=1)["hint"] == {"button": "💡 Hint", "lines": []}
    if where == "hints off":
        table.options.hints = False
    else:
        table.tournament_id = 3
    assert seat_state(tr, table, 0, version=1)["hint"] is None


def test_the_page_shows_a_name_as_it_was_typed_and_no_markup() -> None:
    """The page's sentences are written as text, not made as Telegram's HTML and
    stripped: a name that looks like markup is shown as typed, a sentence's emphasis is
    left out, and nothing is escaped."""
    rules = Rules()
    game = Game(rules, seed=3)
    table = table_for(rules, game)
    table.seats[1] = Seat("human", "<b>Ann</b> & Co", user_id=101)
    waiting = next(s for s in range(rules.players) if s != 1)
    for seat in range(rules.players):
        if seat not in (1, waiting):
            game.pass_cards(seat, game.hand(seat)[:3])
    state = seat_state(translator("en"), table, waiting, 1)
    assert state["seats"][1]["name"] == "\u2068<b>Ann</b> & Co\u2069"
    assert 1 in game.waiting_for()
    game.pass_cards(waiting, game.hand(waiting)[:3])
    status = seat_state(translator("en"), table, waiting, 1)["status"]
    assert status.startswith("You passed ") and status.endswith(
        "Waiting for: \u2068<b>Ann</b> & Co\u2069."
    )
    assert "&amp;" not in json.dumps(state) and "<b>Pass" not in status
