"""The `expert`'s pass chosen by playing the hand out (`engine.players.passing`): its
candidates, its determinism and time limit, every variant, and that it is worth it."""

from __future__ import annotations

import random
import time
from functools import partial

import pytest

from engine import Game, Rules
from engine.cards import SUIT_MASKS, mask_of_codes
from engine.players import ExpertPlayer, passing
from engine.players.expert import _danger_in, expert_pass
from engine.players.passing import keep_mask, pass_costs, pass_options
from engine.players.shooting import play_out_moon

VARIANTS = [
    Rules(),
    Rules().with_players(3),
    Rules().with_players(5),
    Rules().with_players(6),
    Rules(bonus_card="JD"),
    Rules().with_variant("complex"),
]


def options(hand: str, rules: Rules | None = None) -> list[int]:
    rules = rules or Rules()
    mask = mask_of_codes(hand.split())
    rule = expert_pass(rules, mask)
    return pass_options(rules, mask, rule, partial(_danger_in, mask, keep_mask(rules)))


def test_the_candidates_start_with_the_rules_pass_and_are_three_cards_of_the_hand() -> None:
    hand = "QS 3S 2C 3C 4C 5D 6D 7D 8H 9H TH JH QH"
    found = options(hand)
    assert found[0] == expert_pass(Rules(), mask_of_codes(hand.split()))
    assert len(found) == len(set(found)) >= 35  # every three of the seven most dangerous
    assert all(m.bit_count() == 3 and m & ~mask_of_codes(hand.split()) == 0 for m in found)


def test_the_candidates_include_emptying_a_short_suit() -> None:
    # Three low diamonds: the rule keeps them (low cards stay), the search weighs a void.
    hand = "2D 4D 6D AS KS 3S 2C 9C JC QC 8H JH KH"
    diamonds = mask_of_codes(["2D", "4D", "6D"])
    assert diamonds in options(hand)


def test_a_bonus_card_is_never_a_candidate() -> None:
    # Omnibus: the J♦ is worth −10 to whoever takes it; the short diamonds are not emptied
    # by passing it.
    rules = Rules(bonus_card="JD")
    found = options("JD 3D QS AS KS 2C 3C 4C 9H TH JH QH KH", rules)
    jd = mask_of_codes(["JD"])
    assert not any(m & jd for m in found)


@pytest.mark.parametrize(
    "rules", VARIANTS, ids=lambda r: f"{r.players}p-{r.variant}-{r.bonus_card}"
)
@pytest.mark.usefixtures("pass_clock_off")
def test_the_expert_searches_its_pass_in_every_variant_and_repeats_itself(rules: Rules) -> None:
    game = Game(rules, seed=11)
    seat = next(s for s in range(rules.players) if s in game.waiting_for())
    view = game.view(seat)
    cards = ExpertPlayer(5).choose_pass(view, 100)
    assert len(set(cards)) == 3 and set(cards) <= set(view.hand)
    assert ExpertPlayer(5).choose_pass(view, 100) == cards  # the same view and seed
    if rules.bonus_card or rules.variant == "complex":
        assert not mask_of_codes(cards) & keep_mask(rules)


def test_a_steady_expert_passes_the_same_whatever_the_budget() -> None:
    # The daily deal's computers: a fixed number of deals, whatever the clock says.
    view = Game(Rules(), seed=4).view(2)
    steady = ExpertPlayer(9, deals=120, steady=True)
    assert steady.choose_pass(view, 20) == steady.choose_pass(view, 3000)


def test_the_pass_search_plays_one_deal_at_least_when_its_time_is_up() -> None:
    hand = Game(Rules(), seed=2).view(0).hand_mask
    sums, done = pass_costs(
        Rules(),
        0,
        hand,
        1,
        (0, 0, 0, 0),
        [hand & SUIT_MASKS[3]],
        random.Random(1),
        50,
        expert_pass,
        deadline=time.perf_counter() - 1,
    )
    assert done == 1 and len(sums) == 1


def test_the_pass_limit_stops_both_rounds_of_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # Round one (every candidate, 120 deals) was not clocked: on a slow enough machine it
    # alone could take the pass past a second. Now `PASS_LIMIT_S` stops either round,
    # after one deal of each.
    view = Game(Rules(), seed=2).view(0)
    played: list[int] = []

    def counted(*args: object, **kwargs: object) -> object:
        played.append(1)
        return play_out_moon(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(passing, "play_out_moon", counted)
    monkeypatch.setattr("engine.players.expert.PASS_LIMIT_S", -1.0)  # the time is up
    player = ExpertPlayer(3)
    search, _ = player.pass_search(view)
    ranked = player.weigh_passes(view)
    assert len(played) == len(search.candidates) + passing.SHORTLIST  # one deal a round
    assert len(ranked) == passing.SHORTLIST


@pytest.mark.usefixtures("pass_clock_off")  # the search plays all its deals under load too
def test_the_searched_pass_takes_fewer_points_than_the_rules_pass_on_fresh_deals() -> None:
    # Judged on deals the search never saw: over these hands (passing left, right and
    # across), the searched passes cost fewer expected points than the rule of thumb's.
    rules = Rules()
    gain = 0.0
    changed = 0
    for k in range(8):
        game = Game(Rules(pass_cycle=(("left", "right", "across")[k % 3],)), seed=k)
        view = game.view(0)
        hand = view.hand_mask
        searched = ExpertPlayer(k).pass_mask(view, 300)
        rule = expert_pass(rules, hand)
        if searched == rule:
            continue
        changed += 1
        sums, done = pass_costs(
            rules,
            0,
            hand,
            view.pass_to,
            view.scores,
            [rule, searched],
            random.Random(10_000 + k),
            1500,
            expert_pass,
        )
        gain += (sums[0] - sums[1]) / done
    assert changed >= 3
    assert gain / 8 > 0.2


def test_handing_over_the_top_hearts_costs_more_when_the_deals_see_moons(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Passing the A♥ K♥ Q♥ to the left gives that seat the cards to shoot with; the
    # moon-aware deals (`MOON_PASS`: a seat on course for the moon runs, the others stop
    # it) count the moons the plain deals do not see, on the same deals.
    rules = Rules()
    hand = mask_of_codes(
        ["AH", "KH", "QH", "2C", "3C", "4C", "5D", "6D", "7D", "2S", "3S", "4S", "5S"]
    )
    top_hearts, low_clubs = mask_of_codes(["AH", "KH", "QH"]), mask_of_codes(["2C", "3C", "4C"])
    for seed in (3, 4):
        extra = {}
        for moon_aware in (False, True):
            monkeypatch.setattr(passing, "MOON_PASS", moon_aware)
            sums, done = pass_costs(
                rules,
                0,
                hand,
                1,
                (0, 0, 0, 0),
                [top_hearts, low_clubs],
                random.Random(seed),
                600,
                expert_pass,
            )
            extra[moon_aware] = (sums[0] - sums[1]) / done
        assert extra[True] > extra[False] + 0.1
