"""The `expert`'s moon-aware playouts (`engine.players.shooting`): who is the runner, how
the runner and the others play, and the `expert` stopping a moon that plain playouts do
not see coming."""

from __future__ import annotations

import random

from hearts_helpers import HOLD, hands

from engine import Card, Game, Rules, TrickWon
from engine.cards import CARDS, mask_of_codes
from engine.players import ExpertPlayer
from engine.players.knowledge import Knowledge
from engine.players.playout import final_points, play_out
from engine.players.sampling import evaluate_outcomes
from engine.players.shooting import (
    RUN_CHANCE,
    play_out_moon,
    runner,
    runner_card,
    stopper_card,
    threat,
)
from engine.players.smart import smart_card


def mask(text: str) -> int:
    return mask_of_codes(text.split())


def trick(text: str) -> list[int]:
    return [Card.parse(c).index for c in text.split()]


# ----------------------------------------------------------------- the runner


def test_the_runner_took_every_point_so_far_and_enough_of_them() -> None:
    assert runner([0, mask("2H 3H 4H 5H 9C"), mask("AC"), 0]) == 1
    # The Q♠ counts two hearts.
    assert runner([mask("QS 2H 3H"), 0, 0, 0]) == 0
    # Too few points yet: nobody runs.
    assert runner([0, 0, mask("2H 3H QC"), 0]) is None
    assert runner([0, 0, mask("QS"), 0]) is None
    # Points split between two seats: nobody can shoot.
    assert runner([mask("2H 3H 4H 5H"), mask("6H"), 0, 0]) is None
    assert runner([0, 0, 0, 0]) is None


def test_the_runner_leads_high_takes_what_it_can_and_gives_no_point_away() -> None:
    rules = Rules()
    assert CARDS[runner_card(rules, mask("AH 3H 4C"), [])].code == "AH"
    # Not last: its highest card of the suit; last: the lowest that takes the trick.
    assert CARDS[runner_card(rules, mask("AD JD 3D"), trick("TD"))].code == "AD"
    assert CARDS[runner_card(rules, mask("AD JD 3D"), trick("TD 2D 4H"))].code == "JD"
    # Cannot take it: the lowest of the suit.
    assert CARDS[runner_card(rules, mask("9D 3D"), trick("TD"))].code == "3D"
    # Void: the lowest card that is not a point card.
    assert CARDS[runner_card(rules, mask("QS KH 8D 5D"), trick("TC"))].code == "5D"


def test_the_others_take_a_trick_with_points_the_runner_is_winning() -> None:
    rules = Rules()
    # Seat 1 runs and leads the J♥; seat 0, last, takes it with the Q♥ (not the K♥).
    card = stopper_card(rules, mask("2H QH KH"), trick("JH 5H 6H"), 1, 1)
    assert card is not None and CARDS[card].code == "QH"
    # Seat 1's card is not winning: play as usual.
    assert stopper_card(rules, mask("2H QH"), trick("JH AH 6H"), 1, 1) is None
    # The runner has not played yet: play as usual.
    assert stopper_card(rules, mask("2H QH"), trick("JH"), 3, 1) is None
    # Void while the runner wins a trick with no points yet: no point card goes on it.
    card = stopper_card(rules, mask("KH QS 8D"), trick("AC 2C"), 1, 1)
    assert card is not None and CARDS[card].code == "8D"


# ----------------------------------------------------------------- a moon seen coming

#: Seat 1 wins the first nine tricks with its clubs and diamonds and is fed the Q♠ and
#: seven hearts; it then holds A♥ K♥ J♥ 3♥, seat 0 the Q♥ and 2♥.
RUN_DEAL = hands(
    "3C 2D 3D 2S 3S 4S 5S 6S 7S 8S 9S 2H QH",
    "AC KC QC JC TC 9C 8C AD KD AH KH JH 3H",
    "2C 4C 5C 4D 5D 6D 7D TS JS 4H 5H 6H 7H",
    "6C 7C 8D 9D TD JD QD QS KS AS 8H 9H TH",
)
RUN_PLAYS = (
    "2C 6C 3C AC",
    "KC 4C 7C 2S",
    "QC 5C QS 3S",
    "JC 4H 8H 4S",
    "TC 5H 9H 5S",
    "9C 6H TH 6S",
    "8C 7H KS 7S",
    "AD 4D 8D 2D",
    "KD 5D 9D 3D",
    "JH 6D TD",  # seat 1 leads the J♥; seats 2 and 3 show they have no heart left
)


def run_position() -> Game:
    """Seat 0 to play last to the tenth trick: Q♥ takes it, 2♥ lets seat 1 run."""
    game = Game(Rules(pass_cycle=HOLD, moon="add_to_others"), deals=[RUN_DEAL])
    for line in RUN_PLAYS:
        for code in line.split():
            seat = game.current_player
            assert seat is not None
            game.play(seat, code)
    assert game.current_player == 0
    return game


def after_ducking(game: Game, playout: object) -> tuple[int, ...]:
    """Seat 0's duck with the 2♥, then the hand played out from seat 0's knowledge of
    the real hands: each seat's points."""
    rules = game.rules
    know = Knowledge.from_view(game.view(0))
    hs = [mask(" ".join(c.code for c in game.hand(s))) for s in range(4)]
    hs[0] &= ~mask("2H")
    taken = list(know.taken)
    taken[1] |= mask("JH 6D TD 2H")
    assert callable(playout)
    playout(
        rules,
        hs,
        [],
        1,
        False,
        True,
        know.first_lead,
        taken,
        know.played | mask("2H"),
        [smart_card] * 4,
    )
    return tuple(int(p) for p in final_points(rules, taken, 0, (0, 0, 0, 0)))  # type: ignore[arg-type]


def test_plain_playouts_miss_the_moon_and_moon_aware_ones_see_it() -> None:
    game = run_position()
    # Plain: seat 1 leads its 3♥ and seat 0's Q♥ takes it, so ducking looks cheap.
    assert after_ducking(game, play_out)[0] < 26
    # Moon-aware: seat 1 cashes A♥ K♥ first, the Q♥ falls under them, and it shoots.
    assert after_ducking(game, play_out_moon) == (26, 0, 26, 26)


def test_expert_takes_the_trick_that_stops_a_moon() -> None:
    game = run_position()
    view = game.view(0)
    evaluation = ExpertPlayer(seed=1, moon_playouts=True).evaluate_play(view, 300)
    assert evaluation.card.code == "QH"
    assert evaluation.costs[Card.parse("2H")] > evaluation.costs[Card.parse("QH")] + 10


# ----------------------------------------------------------------- the rules hold


def test_moon_playouts_play_the_hand_as_game_does() -> None:
    """Driven card by card through `Game` (which refuses an illegal card), the runner's
    and the stoppers' choices give the same tricks as `play_out_moon`."""
    for seed in range(6):
        game = Game(Rules(pass_cycle=HOLD), seed=seed)
        hands_before = list(game.hands)
        leader = game.current_player
        assert leader is not None
        first_lead = game.legal_plays()[0].index
        taken = play_out_moon(
            game.rules,
            hands_before,
            [],
            leader,
            True,
            False,
            first_lead,
            [0] * 4,
            0,
            [smart_card] * 4,
        )
        game_taken = [0] * 4
        played = 0
        runs = 0
        while game.phase == "play" and game.hand_number == 1:
            seat = game.current_player
            assert seat is not None
            view = game.view(seat)
            legal = view.legal_mask
            trick_cards = [c.index for _, c in view.trick]
            run = runner(game_taken)
            card: int | None = None
            if run is not None and legal & (legal - 1):
                runs += 1
                if seat == run:
                    card = runner_card(game.rules, legal, trick_cards)
                else:
                    assert view.leader is not None
                    card = stopper_card(game.rules, legal, trick_cards, view.leader, run)
            if card is None:
                card = smart_card(game.rules, legal, trick_cards, view.hand_mask, played)
            played |= 1 << card
            for event in game.play(seat, CARDS[card]):
                if isinstance(event, TrickWon):
                    game_taken[event.seat] |= mask_of_codes(c for _, c in event.cards)
        assert taken == game_taken
    assert runs > 0


def test_only_the_named_stopper_defends() -> None:
    # Seat 1 runs and leads the 9♥; seat 3, second after seat 2's discard, holds J♥ 2♥.
    rules = Rules(pass_cycle=HOLD)
    taken = [0, mask("3H 4H 5H 6H"), 0, 0]
    hands_now = [mask("7H 6C 7C"), mask("9H 8S 7S"), mask("2C 3C 4C"), mask("JH 2H 5C")]

    def points(stopper: int | None) -> tuple[int, ...]:
        piles = play_out_moon(
            rules, list(hands_now), [], 1, False, True, 0, list(taken),
            mask("3H 4H 5H 6H"), [smart_card] * 4, stopper,
        )  # fmt: skip
        return tuple(int(p) for p in final_points(rules, piles, 0, (0, 0, 0, 0)))  # type: ignore[arg-type]

    # Every seat stops: seat 3 takes the 9♥ with its J♥.
    assert points(None)[3] > 0
    # Seat 0 alone stops (and cannot: its 7♥ is lower): seat 3 ducks with the 2♥ as usual.
    assert points(0)[3] == 0


def test_moon_playouts_are_off_by_default_as_measured() -> None:
    # README, "Strength": no gain measured yet, so the default `expert` plays plain
    # playouts (here without its watch for the moon, below) and does not see this moon
    # (the duck looks as cheap as the take).
    view = run_position().view(0)
    plain = ExpertPlayer(seed=1, moon_watch=False).evaluate_play(view, 300)
    assert plain.costs[Card.parse("2H")] < 10
    aware = ExpertPlayer(seed=1, moon_playouts=True).evaluate_play(view, 300)
    assert aware.costs[Card.parse("2H")] > 20


def plain_and_aware(game: Game, taken: list[int], defend_only: bool) -> tuple[list[int], list[int]]:
    """The first hand of ``game`` played out plain and moon-aware (seat 0 the stopper)."""
    leader = game.current_player
    assert leader is not None
    first = game.legal_plays()[0].index
    policies = [smart_card] * 4
    plain = play_out(
        game.rules, list(game.hands), [], leader, True, False, first, list(taken), 0, policies
    )
    aware = play_out_moon(
        game.rules, list(game.hands), [], leader, True, False, first, list(taken), 0, policies,
        0, defend_only,
    )  # fmt: skip
    return plain, aware


def test_a_defending_stopper_never_runs_itself() -> None:
    # Seat 0 has taken every point so far: it would run, but defend_only keeps its own
    # play as usual, so with nobody else running the hand goes as a plain playout. (Only
    # the runner test reads these piles: their cards may still be in the hands.)
    taken = [mask("2H 3H 4H 5H"), 0, 0, 0]
    for seed in range(4):
        game = Game(Rules(pass_cycle=HOLD), seed=seed)
        plain, aware = plain_and_aware(game, taken, defend_only=True)
        assert aware == plain
    plain, aware = plain_and_aware(Game(Rules(pass_cycle=HOLD), seed=0), taken, False)
    assert aware != plain


# ----------------------------------------------------------------- the watch for a moon


def test_a_threat_is_another_seat_holding_every_point_taken() -> None:
    # Seat 1 holds the Q♠ and seven hearts (20 points) after 9 tricks: the last row of
    # RUN_CHANCE but one, its last column.
    taken = [0, mask("QS 4H 5H 6H 7H 8H 9H TH AC"), mask("2C 3C"), 0]
    assert threat(taken, 9, 0) == (1, RUN_CHANCE[2][4])
    # One heart after two tricks: the first row, the first column.
    assert threat([mask("2H 4C"), 0, 0, 0], 2, 3) == (0, RUN_CHANCE[0][0])
    # 13 points (the Q♠ alone) after 10 tricks.
    assert threat([0, 0, mask("QS"), 0], 10, 1) == (2, RUN_CHANCE[3][3])
    # This seat holds them: nothing to stop. Points split, or none taken: no threat.
    assert threat(taken, 9, 1) is None
    assert threat([mask("2H"), mask("3H"), 0, 0], 5, 2) is None
    assert threat([mask("2C 3C 4C 5C"), 0, 0, 0], 1, 2) is None
    # The chance grows with the points held and with the tricks played.
    for row in RUN_CHANCE:
        assert all(0 < x <= 1 for x in row)
    for later, earlier in zip(RUN_CHANCE[1:], RUN_CHANCE, strict=False):
        assert all(a >= b for a, b in zip(later, earlier, strict=True))


def test_the_expert_watching_for_the_moon_takes_the_trick_that_stops_it() -> None:
    view = run_position().view(0)
    watching = ExpertPlayer(seed=1).evaluate_play(view, 300)
    assert watching.card.code == "QH"
    # Ducking lets seat 1 run in the share of the deals it is likely to be running in.
    assert watching.costs[Card.parse("2H")] > watching.costs[Card.parse("QH")] + 8
    blind = ExpertPlayer(seed=1, moon_watch=False, moon_stop=False).evaluate_play(view, 300)
    assert blind.card.code == "2H"


def test_the_watch_changes_nothing_while_no_other_seat_holds_every_point() -> None:
    """Along whole hands, wherever no other seat holds every point taken, the `expert`'s
    figures are the same with the watch as without, to the last digit."""
    compared = watched = 0
    for seed in range(3):
        game = Game(Rules(pass_cycle=HOLD, moon="add_to_others"), seed=seed)
        while game.phase == "play" and game.hand_number == 1:
            seat = game.current_player
            assert seat is not None
            view = game.view(seat)
            on = ExpertPlayer(seed=seed, deals=40, steady=True)
            off = ExpertPlayer(seed=seed, deals=40, steady=True, moon_watch=False)
            know = Knowledge.from_view(view)
            a, b = on.evaluate_play(view), off.evaluate_play(view)
            if threat(know.taken, len(view.tricks), seat) is None:
                assert a == b
                compared += 1
            else:
                watched += 1
            game.play(seat, b.card)
    assert compared > 40 and watched > 0


def test_a_share_of_the_deals_is_played_out_by_the_other_playout() -> None:
    view = run_position().view(0)
    know = Knowledge.from_view(view)
    rules = view.rules

    def figures(playout: object = play_out, alternative: object = None) -> object:
        return evaluate_outcomes(
            rules, know, view.legal_mask, random.Random(5), 60,
            [smart_card] * 4, lambda p: (float(p[0]),), float("inf"),
            playout=playout, alternative=alternative,  # type: ignore[arg-type]
        )  # fmt: skip

    other = play_out_moon
    rng = random.Random
    assert figures(alternative=(other, 0.0, rng(1))) == figures()
    assert figures(alternative=(other, 1.0, rng(1))) == figures(other)
    half = figures(alternative=(other, 0.5, rng(1)))
    assert half != figures() and half != figures(other)


def test_the_watch_is_for_four_players_in_standard_hearts() -> None:
    """After one trick, with the next seat made to hold the Q♠ and two hearts, the watch
    sees a threat in four-player standard Hearts only, where it was measured."""

    def watched(rules: Rules) -> bool:
        game = Game(rules, seed=2)
        while game.phase == "pass":
            for s in game.waiting_for():
                game.pass_cards(s, game.hand(s)[:3])
        for _ in range(rules.players):
            seat = game.current_player
            assert seat is not None
            game.play(seat, game.legal_plays()[0])
        seat = game.current_player
        assert seat is not None
        view = game.view(seat)
        know = Knowledge.from_view(view)
        know.taken = [0] * rules.players
        know.taken[(seat + 1) % rules.players] = mask("QS 2H 3H")
        return ExpertPlayer(seed=1)._watch(view, know) is not None

    assert watched(Rules())
    for rules in (
        Rules(players=3),
        Rules(players=5),
        Rules(bonus_card="JD"),
        Rules(variant="complex"),
    ):
        assert not watched(rules)
    assert not ExpertPlayer(seed=1, moon_watch=False)._watch(
        run_position().view(0), Knowledge.from_view(run_position().view(0))
    )
