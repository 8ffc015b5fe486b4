"""Computer players: legal choices in every variant, the view-only rule, determinism,
the time budget, and the fast playout agreeing with `Game`."""

from __future__ import annotations

import time

import pytest

from engine import Card, Game, Rules, TrickWon
from engine.cards import codes, mask_of_codes
from engine.players import LEVELS, ExpertPlayer, Player, ProPlayer, make_player
from engine.players.playout import final_points, play_out, standard_policy

VARIANTS = [
    Rules(players=2, variant="two_player"),
    Rules(players=3),
    Rules(players=4),
    Rules(players=4, bonus_card="JD", moon="choose"),
    Rules(players=4, variant="complex"),
    Rules(players=5, moon="add_to_others"),
    Rules(players=6, pass_cycle=("across",), moon="subtract_from_shooter"),
]


def fast(level: str, seed: int) -> Player:
    """Players with few deals, so the tests are quick."""
    if level == "pro":
        return ProPlayer(seed, deals=3)
    if level == "expert":
        return ExpertPlayer(seed, deals=3)
    return make_player(level, seed)


PASS_MS = 60.0
"""A pass's budget where only its legality is looked at: the `expert`'s search at its
fewest deals (a fifth of its usual, `passing.PASS_BUDGET_MS`)."""


def play_hands(game: Game, players: list[Player], hands: int) -> None:
    """Play ``hands`` hands, checking every decision is legal."""
    start = game.hand_number
    while game.phase != "over" and game.hand_number < start + hands:
        if game.phase == "pass":
            for seat in game.waiting_for():
                view = game.view(seat)
                cards = players[seat].choose_pass(view, PASS_MS)
                assert len(set(cards)) == 3 and set(cards) <= set(view.hand)
                game.pass_cards(seat, cards)
            continue
        seat = game.current_player
        assert seat is not None
        view = game.view(seat)
        if game.phase == "moon":
            choice = players[seat].choose_moon(view, 300)
            assert choice in ("add_to_others", "subtract_from_shooter")
            game.choose_moon(seat, choice)
            continue
        card = players[seat].choose_play(view, 300)
        assert card in view.legal
        game.play(seat, card)


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.variant}-{r.players}")
def test_every_level_makes_legal_choices(rules: Rules) -> None:
    n = rules.players
    for seed in range(2):
        levels = [LEVELS[(seed + s) % len(LEVELS)] for s in range(n)]
        game = Game(rules, seed=seed)
        play_hands(game, [fast(levels[s], seed + s) for s in range(n)], 2)


def test_a_whole_game_of_standard_players_ends() -> None:
    game = Game(Rules(), seed=5)
    play_hands(game, [make_player("standard", s) for s in range(4)], 1000)
    assert game.phase == "over"


def test_unknown_level_is_an_error() -> None:
    with pytest.raises(ValueError, match="grandmaster"):
        make_player("grandmaster", 0)


# ----------------------------------------------------------------- the view-only rule

SEAT0 = ["3C", "5C", "9C", "KC", "4D", "8D", "QD", "6S", "TS", "AS", "2H", "9H", "KH"]


def _other_hands(order: int) -> list[list[str]]:
    rest = [c for c in codes((1 << 52) - 1) if c not in SEAT0 and c != "2C"]
    if order:
        rest = rest[order:] + rest[:order]  # a different hiding of the same cards
    # Seat 3 holds the 2♣ and leads it; seat 0 plays next.
    return [rest[0:13], rest[13:26], ["2C", *rest[26:38]]]


@pytest.mark.parametrize("level", LEVELS)
def test_decisions_depend_only_on_what_the_seat_sees(level: str) -> None:
    rules = Rules(pass_cycle=("hold",))
    decisions = []
    for order in (0, 7, 20):
        b, c, d = _other_hands(order)
        game = Game(rules, deals=[[SEAT0, b, c, d]], first_dealer=0)
        game.play(3, "2C")
        view = game.view(0)
        decisions.append(fast(level, 42).choose_play(view, 300))
    assert decisions[0] == decisions[1] == decisions[2]


@pytest.mark.usefixtures("pass_clock_off")  # two searched passes compared: all their deals
@pytest.mark.parametrize("level", LEVELS)
def test_pass_depends_only_on_own_hand(level: str) -> None:
    decisions = []
    for order in (0, 11):
        b, c, d = _other_hands(order)
        game = Game(Rules(), deals=[[SEAT0, b, c, d]], first_dealer=0)
        decisions.append(fast(level, 3).choose_pass(game.view(0), 300))
    assert decisions[0] == decisions[1]


@pytest.mark.parametrize("level", LEVELS)
def test_two_player_dead_cards_stay_hidden(level: str) -> None:
    rules = Rules(players=2, variant="two_player")
    deck = codes(sum(1 << Card.parse(f"{r}{s}").index for r in "2468TQA" for s in "CDSH"))
    mine = ["4C", "8C", "QC", "AC", "2D", "6D", "TD", "4S", "QS", "AS", "2H", "8H", "AH"]
    others = [c for c in deck if c not in mine and c != "2C"]
    decisions = []
    for shift in (0, 3, 9):
        rest = others[shift:] + others[:shift]
        dead, theirs = rest[:2], ["2C", *rest[2:]]
        game = Game(rules, deals=[[mine, theirs, dead]], first_dealer=0)
        game.play(1, "2C")
        decisions.append(fast(level, 9).choose_play(game.view(0), 300))
    assert len(set(decisions)) == 1


# ----------------------------------------------------------------- determinism and time


@pytest.mark.parametrize("level", LEVELS)
def test_same_view_and_seed_same_decision(level: str) -> None:
    game = Game(Rules(pass_cycle=("hold",)), seed=8)
    for _ in range(6):
        seat = game.current_player
        assert seat is not None
        game.play(seat, make_player("standard", 0).choose_play(game.view(seat)))
    seat = game.current_player
    assert seat is not None
    view = game.view(seat)
    first = fast(level, 77).choose_play(view, 300)
    assert all(fast(level, 77).choose_play(view, 300) == first for _ in range(3))


@pytest.mark.alone
@pytest.mark.parametrize("cls", [ProPlayer, ExpertPlayer])
def test_time_budget_is_respected(cls: type[ProPlayer] | type[ExpertPlayer]) -> None:
    game = Game(Rules(pass_cycle=("hold",)), seed=4)
    for _ in range(5):
        seat = game.current_player
        assert seat is not None
        game.play(seat, make_player("standard", 0).choose_play(game.view(seat)))
    seat = game.current_player
    assert seat is not None
    player = cls(1, deals=1_000_000)
    start = time.perf_counter()
    card = player.choose_play(game.view(seat), budget_ms=60)
    assert time.perf_counter() - start < 0.1
    assert card in game.view(seat).legal


# ----------------------------------------------------------------- the playout


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.variant}-{r.players}")
def test_playout_plays_the_hand_as_game_does(rules: Rules) -> None:
    for seed in range(3):
        game = Game(rules.__class__(**{**rules.to_dict(), "pass_cycle": ("hold",)}), seed=seed)
        n = rules.players
        hands = list(game.hands)
        first_lead = game.legal_plays()[0].index
        leader = game.current_player
        assert leader is not None
        taken = play_out(
            game.rules,
            hands,
            [],
            leader,
            True,
            False,
            first_lead,
            [0] * n,
            0,
            [standard_policy] * n,
        )
        dead = game.dead
        standard = make_player("standard", 0)
        game_taken = [0] * n
        while game.phase == "play" and game.hand_number == 1:
            seat = game.current_player
            assert seat is not None
            for event in game.play(seat, standard.choose_play(game.view(seat))):
                if isinstance(event, TrickWon):
                    game_taken[event.seat] |= mask_of_codes(c for _, c in event.cards)
        assert taken == game_taken
        if game.phase != "moon" and game.hand_history:
            points = final_points(game.rules, taken, dead, [0] * n)
            assert points == game.hand_history[-1].points
