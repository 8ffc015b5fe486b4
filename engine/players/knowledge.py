"""What a seat knows, as masks, and deals of the unseen cards consistent with it.

Everything here is built from a `SeatView` alone, so a player using it cannot learn a
hidden card: the sampler places only `view.unseen_mask`, and only by what the view shows
(hand sizes, shown voids, the cards this seat passed).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from ..cards import SUIT_MASKS, SUITS, Mask
from ..view import SeatView
from .moon import taken_masks


def decision_rng(seed: int, view: SeatView, salt: str = "") -> random.Random:
    """A generator for one decision: the same seed and view give the same numbers."""
    plays = (
        ",".join(f"{s}{c.code}" for t in view.tricks for s, c in t.plays)
        + "|"
        + ",".join(f"{s}{c.code}" for s, c in view.trick)
    )
    key = (
        f"{salt}|{seed}|{view.seat}|{view.hand_number}|{view.phase}|{view.hand_mask}|"
        f"{plays}|{view.scores}|{view.passed}|{view.received}"
    )
    digest = hashlib.blake2b(key.encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


@dataclass
class Knowledge:
    """One seat's knowledge in the play phase, in the form the playouts use."""

    seat: int
    players: int
    hand: Mask
    trick: list[int]
    leader: int
    first_trick: bool
    hearts_broken: bool
    first_lead: int
    taken: list[Mask]
    played: Mask
    unseen: Mask
    need: list[int]
    """How many unseen cards each seat holds (index ``players`` is the dead pile)."""
    known: list[Mask]
    """Cards known to be in each seat's hand (the ones this seat passed), not yet played."""
    allowed: list[Mask]
    """The unseen cards each seat may hold, by its shown voids (and the dead pile: any)."""
    void_suits: list[int] = field(default_factory=list)
    _plans: dict[bool, tuple[list[tuple[int, int]], list[list[int]]]] = field(
        default_factory=dict, repr=False, compare=False
    )
    """`_plan`'s, by ``constrained``: the same for every deal of a decision."""

    @classmethod
    def from_view(cls, view: SeatView) -> Knowledge:
        n = view.players
        played = view.played_mask
        unseen = view.unseen_mask
        known = [0] * n
        if view.passed is not None and view.received is not None:
            passed = 0
            for c in view.passed:
                passed |= 1 << c.index
            known[view.pass_to] = passed & ~played
        voids = view.voids()
        void_suits = [0] * n
        allowed: list[Mask] = []
        for s in range(n):
            mask = unseen
            for suit in voids[s]:
                i = SUITS.index(suit)
                void_suits[s] |= 1 << i
                mask &= ~SUIT_MASKS[i]
            allowed.append(0 if s == view.seat else mask)
        need = [
            0 if s == view.seat else view.hand_sizes[s] - known[s].bit_count() for s in range(n)
        ]
        dead = unseen.bit_count() - sum(need)
        need.append(max(dead, 0))
        allowed.append(unseen)
        trick = [c.index for _, c in view.trick]
        assert view.leader is not None and view.first_lead is not None
        return cls(
            seat=view.seat,
            players=n,
            hand=view.hand_mask,
            trick=trick,
            leader=view.leader,
            first_trick=not view.tricks,
            hearts_broken=view.hearts_broken,
            first_lead=view.first_lead.index,
            taken=taken_masks(view),
            played=played,
            unseen=unseen,
            need=need,
            known=known,
            allowed=allowed,
            void_suits=void_suits,
        )

    def sample(self, rng: random.Random, weights: list[list[float]] | None = None) -> list[Mask]:
        """One deal of the unseen cards: every seat's hand (``players`` masks, this seat's
        own included) and then the dead pile. Shown voids are kept when possible.

        ``weights``, if given, is a weight per seat per card: how likely that seat holds it
        compared with the others (for inferences beyond voids).
        """
        for attempt in range(12):
            constrained = attempt < 10
            hands = self._try_sample(rng, constrained, weights)
            if hands is not None:
                return hands
        raise RuntimeError("no deal fits what this seat knows")  # pragma: no cover

    def _try_sample(
        self, rng: random.Random, constrained: bool, weights: list[list[float]] | None
    ) -> list[Mask] | None:
        n = self.players
        order, seats_of = self._plan(constrained)
        random_ = rng.random
        # The most constrained cards first, ties in random order (`_plan`).
        cards = sorted([(eligible, random_(), c) for eligible, c in order])
        left = list(self.need)
        hands = [*self.known, 0]
        hands[self.seat] = self.hand
        for _, _, c in cards:
            total = 0.0
            options: list[tuple[int, float]] = []
            for s in seats_of[c]:
                k = left[s]
                if k:
                    w = float(k)
                    if weights is not None and s < n:
                        w *= weights[s][c]
                    if w > 0:
                        options.append((s, w))
                        total += w
            if not options:
                return None
            x = random_() * total
            chosen = options[-1][0]
            for s, w in options:
                x -= w
                if x < 0:
                    chosen = s
                    break
            hands[chosen] |= 1 << c
            left[chosen] -= 1
        return hands

    def _plan(self, constrained: bool) -> tuple[list[tuple[int, int]], list[list[int]]]:
        """What every deal of `_try_sample` starts from, built once: each unseen card
        (lowest first) with how many seats may hold it, and the seats that may hold each
        card (by index, lowest seat first; the dead pile is seat ``players``)."""
        plan = self._plans.get(constrained)
        if plan is None:
            n = self.players
            seats = [s for s in range(n + 1) if self.need[s] > 0]
            allowed = [self.allowed[s] if constrained else self.unseen for s in range(n + 1)]
            seats_of: list[list[int]] = [[] for _ in range(52)]
            order = []
            m = self.unseen
            while m:
                low = m & -m
                c = low.bit_length() - 1
                m ^= low
                seats_of[c] = [s for s in seats if allowed[s] >> c & 1]
                order.append((len(seats_of[c]), c))
            plan = self._plans[constrained] = (order, seats_of)
        return plan
