"""The computer players decide exactly as they did before their hot path was made faster.

Each level's decisions (and the `expert`'s costs, to the last bit of each float) over a
fixed set of positions in every variant are hashed; the hash was computed on the code
before the speed work (commit 4548557) and is pinned here. Fixed deal counts and no
deadline that can fire keep the clock out of every decision, so the hash is the same on
any machine at any load. A change that moves any decision, or any cost, changes it: if a
change to the players' *logic* is meant to, recompute the hash and say why in the commit.
"""

from __future__ import annotations

import hashlib
import math
import random
from functools import partial

from engine import Game, Rules
from engine.players import ExpertPlayer, ProPlayer, StandardPlayer
from engine.players.expert import _danger_in, expert_pass
from engine.players.knowledge import Knowledge, decision_rng
from engine.players.passing import PassSearch, keep_mask, ranked_passes
from engine.players.playout import play_out
from engine.players.shooting import play_out_moon
from engine.players.smart import smart_card
from engine.players.standard import standard_card
from engine.view import SeatView

VARIANTS = (
    Rules(),
    Rules(players=3),
    Rules(players=5),
    Rules(players=6),
    Rules(bonus_card="JD"),
    Rules(variant="complex"),
    Rules(players=2, variant="two_player"),
    Rules(moon="subtract_from_shooter", queen_breaks_hearts=False, target=40),
    Rules(no_points_on_first_trick=False, bonus_card="TD", target=50),
)
PLAYS_PER_VARIANT = 8
DEALS = 16
"""Deals per `pro` and `expert` play decision: few, so the test stays fast."""


def decision_views(rules: Rules, seed: int) -> tuple[list[SeatView], SeatView]:
    """Play decisions (more than one legal card) of a random game, and its first pass."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    plays: list[SeatView] = []
    first_pass: SeatView | None = None
    while game.phase != "over" and len(plays) < PLAYS_PER_VARIANT:
        if game.phase == "pass":
            if first_pass is None:
                first_pass = game.view(game.waiting_for()[0])
            for seat in game.waiting_for():
                game.pass_cards(seat, rng.sample(game.hand(seat), 3))
        elif game.phase == "play":
            player = game.current_player
            assert player is not None
            legal = game.legal_plays()
            if len(legal) > 1 and rng.random() < 0.12:
                plays.append(game.view(player))
            game.play(player, rng.choice(legal))
        else:
            shooter = game.moon_shooter
            assert shooter is not None
            game.choose_moon(shooter, "add_to_others")
    if first_pass is None:  # two-player games may hold the first hand's pass
        first_pass = Game(rules, seed=seed + 1).view(0)
    return plays, first_pass


def playouts(view: SeatView, rng: random.Random) -> list[object]:
    """Raw playouts from sampled deals of ``view``, with both policies and both loops."""
    know = Knowledge.from_view(view)
    n = view.players
    out: list[object] = []
    for policy in (smart_card, lambda r, legal, t, h, p: standard_card(r, legal, t)):
        for way in (play_out, partial(play_out_moon, stopper=view.seat), play_out_moon):
            hands = know.sample(rng)
            out.append(hands)
            out.append(
                way(
                    view.rules,
                    hands[:n],
                    list(know.trick),
                    know.leader,
                    know.first_trick,
                    know.hearts_broken,
                    know.first_lead,
                    list(know.taken),
                    know.played,
                    [policy] * n,
                )
            )
    return out


def decisions() -> list[object]:
    record: list[object] = []
    expert = ExpertPlayer(seed=3, deals=DEALS, steady=True)
    moon_expert = ExpertPlayer(seed=4, deals=DEALS, steady=True, moon_playouts=True)
    pro = ProPlayer(seed=5, deals=DEALS)
    standard = StandardPlayer(seed=6)
    rng = random.Random(7)
    for number, rules in enumerate(VARIANTS):
        plays, first_pass = decision_views(rules, 100 + number)
        for view in plays:
            record.append(str(standard.choose_play(view)))
            record.append(str(pro.choose_play(view, budget_ms=1e9)))
            for player in (expert, moon_expert):
                evaluation = player.evaluate_play(view)
                costs = sorted((str(c), v.hex()) for c, v in evaluation.costs.items())
                record.append((str(evaluation.card), evaluation.deals, costs))
            record.append(playouts(view, rng))
        hand = first_pass.hand_mask
        search = PassSearch.start(
            rules, hand, expert_pass(rules, hand), partial(_danger_in, hand, keep_mask(rules)), 60
        )
        ranked = ranked_passes(
            rules,
            first_pass.seat,
            hand,
            first_pass.pass_to,
            first_pass.scores,
            decision_rng(3, first_pass, "expert-pass"),
            search,
            expert_pass,
            math.inf,
        )
        record.append([(m, v.hex()) for m, v in ranked])
        record.append([str(c) for c in standard.choose_pass(first_pass)])
    return record


PINNED = "d36395358f000ee58f6ee4497a6653ed2d52b2868174f5f61e993096fa9ea900"
"""The decisions of the code before the speed work (first pinned as 6e6ecf16… on 4548557),
as they are since the `expert`'s moon guard (defence.py) changed some of its plays: computed
on the merge of that guard without the speed work, and equal after it. A change that means
to change a decision pins the new hash in its own commit, saying why."""


def test_decisions_are_those_of_the_code_before_the_speed_work() -> None:
    digest = hashlib.sha256(repr(decisions()).encode()).hexdigest()
    assert digest == PINNED
