"""A game of Hearts: the deal, the pass, the play, the score, hand after hand.

`Game` is the only thing that changes state. Every move checks everything first and
changes nothing when it raises `IllegalMove`, so a rejected move never corrupts a game.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Iterable, Sequence
from typing import Any, Final, Literal, NamedTuple

from . import fair, play_rules, scoring
from .cards import (
    BITS,
    CARDS,
    HEARTS_MASK,
    SUIT_MASKS,
    SUIT_SYMBOLS,
    SUITS,
    Card,
    Mask,
    cards_of,
    codes,
    deck_mask,
    indices,
    lowest,
    mask_of,
    mask_of_codes,
)
from .errors import IllegalMove
from .events import (
    CardPlayed,
    CardsPassed,
    CardsReceived,
    Event,
    GameOver,
    HandScored,
    HandStarted,
    HeartsBroken,
    MoonShot,
    TrickWon,
)
from .records import HandResult, TrickRecord
from .rules import MOON_CHOICES, MoonChoice, PassDirection, Rules
from .scoring import Score
from .view import PublicView, SeatView

Phase = Literal["pass", "play", "moon", "over"]
JSON_FORMAT = 1


# Events and trick entries are immutable, so the ones made for every card are made once:
# a playout then builds no objects per card it plays.
_PLAYED = tuple(tuple(CardPlayed(seat, card) for card in CARDS) for seat in range(6))
_IN_TRICK = tuple(tuple((seat, card) for card in CARDS) for seat in range(6))
_PASSED = tuple(CardsPassed(seat) for seat in range(6))
_new_tuple = tuple.__new__


def shuffled(rng: random.Random, cards: Sequence[int]) -> list[int]:
    """``cards`` in a uniformly random order drawn from ``rng``.

    Each card gets an independent 64-bit random key (a tie has probability about 2^-53)
    and the cards are sorted by key. The keys come from one draw of the generator and the
    sort runs in C: several times cheaper than a swap-by-swap shuffle in Python.

    Stored games replay their deals from the seed, so this must give the same order for
    the same generator state in every version (a test pins a deal).
    """
    n = len(cards)
    keys = memoryview(rng.getrandbits(64 * n).to_bytes(8 * n, "little")).cast("Q")
    return [cards[i] for i in sorted(range(n), key=keys.__getitem__)]


def pass_target(seat: int, direction: PassDirection, players: int) -> int:
    """The seat that receives what ``seat`` passes (left is the next seat in play order)."""
    if direction == "left":
        return (seat + 1) % players
    if direction == "right":
        return (seat - 1) % players
    if direction == "across":
        return (seat + players // 2) % players
    return seat


class _Fixed(NamedTuple):
    """What the rules fix for a whole game, looked up once a game instead of once a card."""

    deck: Mask
    deck_list: tuple[int, ...]
    counted: Mask
    breaking: Mask
    players: int
    next_seat: tuple[int, ...]
    tricks_per_hand: int
    two_player: bool
    zero: Score


@functools.lru_cache(maxsize=64)
def _fixed_by_rules(rules: Rules) -> _Fixed:
    """Made once per rule set, so that a new game starts in microseconds."""
    n = rules.players
    deck = deck_mask(n)
    deck_list = tuple(indices(deck))
    return _Fixed(
        deck=deck,
        deck_list=deck_list,
        counted=scoring.counted_cards(rules),
        breaking=play_rules.breaking_cards(rules),
        players=n,
        next_seat=tuple((seat + 1) % n for seat in range(n)),
        tricks_per_hand=rules.hand_size,
        two_player=rules.variant == "two_player",
        zero=scoring.zero(rules),
    )


_UNSET: Final = object()


class Game:
    """One game at one table, from the first deal to the winner.

    ``deals``, when given, is used hand by hand instead of shuffling: each deal is a list of
    ``players`` hands of card codes (two-player: the two hands, then the dead cards). Past
    the last fixed deal the game shuffles from ``seed``.

    ``deal_key``, when given (32 secret random bytes), deals instead of ``seed``: the first
    dealer and every shuffled hand come from it by the verifiable scheme of `engine.fair`,
    each hand from its own seed (`deal_proof`).
    """

    # Slots: a game has more attributes than CPython shares among instance dictionaries,
    # and slot access is what keeps the per-card path quick.
    __slots__ = (
        "_breaking",
        "_counted",
        "_deal_key",
        "_deals",
        "_deck",
        "_deck_list",
        "_first_lead",
        "_hand_index",
        "_legal",
        "_next_seat",
        "_passes",
        "_players",
        "_received",
        "_rng",
        "_shooter",
        "_trick_cards",
        "_trick_mask",
        "_tricks_per_hand",
        "_two_player",
        "_zero",
        "current_player",
        "dead",
        "dealer",
        "first_dealer",
        "hand_history",
        "hands",
        "hearts_broken",
        "leader",
        "pass_direction",
        "phase",
        "rules",
        "scores",
        "seed",
        "taken",
        "trick",
        "tricks",
        "winners",
    )

    def __init__(
        self,
        rules: Rules | None = None,
        seed: int = 0,
        deals: Sequence[Sequence[Sequence[str | Card]]] | None = None,
        first_dealer: int | None = None,
        deal_key: bytes | None = None,
    ) -> None:
        self.rules = rules if rules is not None else Rules()
        self.seed = seed
        n = self.rules.players
        self._set_derived()
        self._deals = [self._check_deal(d, i) for i, d in enumerate(deals or ())]
        self._rng = random.Random(seed)
        if deal_key is not None and len(deal_key) != fair.KEY_BYTES:
            raise ValueError(f"A deal key has {fair.KEY_BYTES} bytes, not {len(deal_key)}.")
        self._deal_key = deal_key
        if first_dealer is not None and not 0 <= first_dealer < n:
            raise ValueError(f"The first dealer must be a seat from 0 to {n - 1}.")
        # The dealer is drawn even when given, so that a seed deals the same cards whether
        # the first dealer was drawn or named (storage replays games either way).
        drawn = self._rng.randrange(n)
        if deal_key is not None:
            drawn = fair.first_dealer(deal_key, n)
        self.first_dealer = first_dealer if first_dealer is not None else drawn
        self.dealer = self.first_dealer
        self._hand_index = 0
        self.scores: list[Score] = [scoring.zero(self.rules)] * n
        self.hand_history: list[HandResult] = []
        self.winners: tuple[int, ...] = ()
        self._start_hand()

    def _set_derived(self) -> None:
        fixed = _fixed_by_rules(self.rules)
        self._deck = fixed.deck
        self._deck_list = fixed.deck_list
        self._counted = fixed.counted
        self._breaking = fixed.breaking
        self._players = fixed.players
        self._next_seat = fixed.next_seat
        self._tricks_per_hand = fixed.tricks_per_hand
        self._two_player = fixed.two_player
        self._zero = fixed.zero

    # ----------------------------------------------------------------- the deal

    def _check_deal(self, deal: Sequence[Sequence[str | Card]], number: int) -> list[Mask]:
        n = self.rules.players
        want = n + 1 if n == 2 else n
        where = f"Deal {number + 1}"
        if len(deal) != want:
            raise ValueError(f"{where} has {len(deal)} piles; it needs {want}.")
        masks: list[Mask] = []
        seen = 0
        for pile_number, pile in enumerate(deal):
            pile_list = list(pile)
            mask = mask_of_codes(pile_list)
            size = 2 if pile_number == n else self.rules.hand_size
            if mask.bit_count() != len(pile_list) or mask & seen:
                raise ValueError(f"{where} gives a card twice.")
            if len(pile_list) != size:
                raise ValueError(
                    f"{where}: pile {pile_number + 1} has {len(pile_list)} cards, not {size}."
                )
            if mask & ~self._deck:
                stray = ", ".join(codes(mask & ~self._deck))
                raise ValueError(f"{where} uses cards that are not in this deck: {stray}.")
            seen |= mask
            masks.append(mask)
        return masks

    def _deal(self) -> tuple[list[Mask], Mask]:
        n = self.rules.players
        if self._hand_index < len(self._deals):
            deal = self._deals[self._hand_index]
            return list(deal[:n]), deal[n] if n == 2 else 0
        if self._deal_key is not None:
            seed = fair.hand_seed(self._deal_key, self._hand_index + 1)
            return fair.deal(seed, n, self.dealer)
        deck = self._shuffled()
        dead = 0
        if n == 2:
            # One card to the dead pile, thirteen each one at a time, the last one dead.
            dead = BITS[deck[0]] | BITS[deck[-1]]
            deck = deck[1:-1]
        # Card i goes to the seat i+1 places left of the dealer: every n-th card, summed
        # as bits (the cards are distinct, so + is |).
        hands = [0] * n
        for k in range(n):
            hands[(self.dealer + 1 + k) % n] = sum(map(BITS.__getitem__, deck[k::n]))
        return hands, dead

    def _shuffled(self) -> list[int]:
        return shuffled(self._rng, self._deck_list)

    def _start_hand(self) -> list[Event]:
        n = self.rules.players
        self.phase: Phase = "pass"
        self._legal: Mask = 0
        """The cards the player on turn may play: 0 whenever no card may be played."""
        self._first_lead = 0
        self.hands, self.dead = self._deal()
        self.pass_direction: PassDirection = self.rules.pass_direction(self._hand_index)
        self._passes: list[Mask | None] = [None] * n
        self._received: list[Mask | None] = [None] * n
        self.trick: list[tuple[int, Card]] = []
        self._trick_cards: list[int] = []
        self._trick_mask = 0
        self.tricks: list[TrickRecord] = []
        self.taken: list[Mask] = [0] * n
        self.hearts_broken = False
        self.current_player: int | None = None
        self.leader: int | None = None
        self._shooter: int | None = None
        events: list[Event] = [
            _new_tuple(
                HandStarted,
                (self._hand_index + 1, self.dealer, self.pass_direction, "hand_started"),
            )
        ]
        if self.pass_direction == "hold":
            events.extend(self._begin_play())
        return events

    def _begin_play(self) -> list[Event]:
        self.phase = "play"
        self._first_lead = lowest(self._deck & ~self.dead & SUIT_MASKS[0])
        lead_bit = BITS[self._first_lead]
        holder = next(s for s, h in enumerate(self.hands) if h & lead_bit)
        self.leader = self.current_player = holder
        events = self._two_player_only_hearts() if self._two_player else []
        self._legal = self._legal_for(holder)
        return events

    # ----------------------------------------------------------------- what one sees

    @property
    def hand_number(self) -> int:
        """The hand being played, counted from 1."""
        return self._hand_index + 1

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def fixed_deals(self) -> list[list[list[str]]]:
        """The fixed deals the game was created with, as card codes (for replay)."""
        return [[codes(m) for m in deal] for deal in self._deals]

    @property
    def deal_key(self) -> bytes | None:
        """The secret the hands are dealt from (None: dealt from ``seed`` or fixed)."""
        return self._deal_key

    def deal_proof(self, hand_number: int | None = None) -> fair.DealProof | None:
        """Hand ``hand_number``'s (default: this hand's) seed text and commitment, for a
        hand dealt from the deal key; None for a fixed deal or a game without a key.

        The seed must stay secret until the hand is over: it gives the hand's every card.
        """
        number = self.hand_number if hand_number is None else hand_number
        if self._deal_key is None or number <= len(self._deals) or number < 1:
            return None
        dealer = (self.first_dealer + number - 1) % self.rules.players
        return fair.proof(self._deal_key, number, self.rules.players, dealer)

    def hand(self, seat: int) -> list[Card]:
        """The cards ``seat`` holds, in display order."""
        self._check_seat(seat)
        return cards_of(self.hands[seat])

    def legal_plays(self) -> list[Card]:
        """The cards the current player may play; empty outside the play phase."""
        return cards_of(self._legal)

    def legal_mask(self, seat: int) -> Mask:
        """The cards ``seat`` could legally play now if it were their turn."""
        if seat == self.current_player and self.phase == "play":
            return self._legal
        return self._legal_for(seat)

    def _legal_for(self, seat: int) -> Mask:
        return play_rules.legal_mask(
            self.rules,
            self.hands[seat],
            self._trick_cards,
            not self.tricks,
            self.hearts_broken,
            self._first_lead,
        )

    def waiting_for(self) -> list[int]:
        """The seats whose move the game waits for now."""
        if self.phase == "pass":
            return [s for s, p in enumerate(self._passes) if p is None]
        if self.phase in ("play", "moon") and self.current_player is not None:
            return [self.current_player]
        return []

    def has_passed(self, seat: int) -> bool:
        return self._passes[seat] is not None

    def pass_target(self, seat: int) -> int:
        return pass_target(seat, self.pass_direction, self.rules.players)

    def pass_source(self, seat: int) -> int:
        n = self.rules.players
        return next(s for s in range(n) if self.pass_target(s) == seat)

    def points_taken(self) -> tuple[Score, ...]:
        """What each seat's tricks are worth so far this hand, before any moon."""
        return tuple(scoring.cards_points(self.rules, pile) for pile in self.taken)

    @property
    def moon_shooter(self) -> int | None:
        """The seat that must choose its moon option, while the phase is ``moon``."""
        return self._shooter if self.phase == "moon" else None

    def default_moon_choice(self) -> MoonChoice:
        """What the shooter gets when they do not choose in time (RULES.md §5, ruling)."""
        if self._shooter is None:
            raise IllegalMove("no_moon", "Nobody has shot the moon.")
        return scoring.best_moon_choice(self.rules, self.scores, self.taken, self._shooter)

    def view(self, seat: int) -> SeatView:
        """Everything ``seat`` may know, and nothing more."""
        self._check_seat(seat)
        my_turn_to_play = self.phase == "play" and self.current_player == seat
        legal_mask = self.legal_mask(seat) if my_turn_to_play else 0
        passes = self._passes[seat]
        received = self._received[seat]
        return SeatView(
            seat=seat,
            rules=self.rules,
            hand_number=self.hand_number,
            dealer=self.dealer,
            phase=self.phase,
            current_player=self.current_player,
            pass_direction=self.pass_direction,
            pass_to=self.pass_target(seat),
            pass_from=self.pass_source(seat),
            hand=tuple(cards_of(self.hands[seat])),
            hand_mask=self.hands[seat],
            passed=None if passes is None else tuple(cards_of(passes)),
            received=None if received is None else tuple(cards_of(received)),
            waiting_for=tuple(self.waiting_for()),
            trick=tuple(self.trick),
            leader=self.leader,
            tricks=tuple(self.tricks),
            hearts_broken=self.hearts_broken,
            points_taken=self.points_taken(),
            hand_sizes=tuple(h.bit_count() for h in self.hands),
            scores=tuple(self.scores),
            hand_history=tuple(self.hand_history),
            legal=tuple(cards_of(legal_mask)),
            legal_mask=legal_mask,
            moon_shooter=self.moon_shooter,
            winners=self.winners,
            first_lead=self._first_lead_seen_by(seat),
        )

    def public_view(self) -> PublicView:
        """What anyone watching the table may know: no card of any hand (of a hand held,
        chosen to pass or dead), only the cards played and how many each seat holds."""
        return PublicView(
            rules=self.rules,
            hand_number=self.hand_number,
            dealer=self.dealer,
            phase=self.phase,
            current_player=self.current_player,
            pass_direction=self.pass_direction,
            waiting_for=tuple(self.waiting_for()),
            trick=tuple(self.trick),
            tricks=tuple(self.tricks),
            hearts_broken=self.hearts_broken,
            points_taken=self.points_taken(),
            hand_sizes=tuple(h.bit_count() for h in self.hands),
            scores=tuple(self.scores),
            hand_history=tuple(self.hand_history),
            moon_shooter=self.moon_shooter,
            winners=self.winners,
        )

    def _first_lead_seen_by(self, seat: int) -> Card | None:
        """The card that leads the hand, once ``seat`` may know it: it holds it, or it has
        been played. (In two-player Hearts it would otherwise tell whether 2♣ is dead.)"""
        if self.phase == "pass":
            return None
        index = self._first_lead
        if self.hands[seat] >> index & 1 or self.tricks or self.trick:
            return CARDS[index]
        return None

    # ----------------------------------------------------------------- moves

    def pass_cards(self, seat: int, cards: Iterable[Card | str]) -> list[Event]:
        """Choose the three cards ``seat`` passes. When all have chosen, they change hands."""
        self._check_seat(seat)
        if self.phase != "pass":
            raise self._wrong_phase("pass cards")
        if self._passes[seat] is not None:
            raise IllegalMove("already_passed", "You have already chosen your cards to pass.")
        chosen: list[Card] = []
        mask = 0
        for c in cards:
            if type(c) is not Card:
                try:
                    c = Card.parse(c)  # type: ignore[arg-type]
                except (ValueError, AttributeError) as error:
                    raise IllegalMove("not_a_card", str(error)) from None
            chosen.append(c)
            mask |= BITS[c.index]
        if len(chosen) != 3 or mask.bit_count() != 3:
            raise IllegalMove("pass_three", "Choose exactly 3 different cards to pass.")
        if mask & ~self.hands[seat]:
            missing = next(c for c in chosen if not self.hands[seat] >> c.index & 1)
            raise IllegalMove(
                "not_in_hand", f"You don't have {missing.symbol}.", card=missing.symbol
            )
        self._passes[seat] = mask
        events: list[Event] = [_PASSED[seat]]
        if None not in self._passes:
            events.extend(self._exchange())
        return events

    def _exchange(self) -> list[Event]:
        n = self.rules.players
        events: list[Event] = []
        passes = [p or 0 for p in self._passes]
        for seat in range(n):
            self.hands[seat] &= ~passes[seat]
        direction = self.pass_direction
        for seat in range(n):
            to = pass_target(seat, direction, n)
            self.hands[to] |= passes[seat]
            self._received[to] = passes[seat]
            received = (to, seat, tuple(cards_of(passes[seat])), "cards_received")
            events.append(_new_tuple(CardsReceived, received))
        events.extend(self._begin_play())
        return events

    def play(self, seat: int, card: Card | str) -> list[Event]:
        """Play ``card`` from ``seat`` to the trick."""
        # The common case, a legal card from the player on turn, is checked in one go and
        # played here; anything else takes the long way, which finds the reason to give.
        if seat != self.current_player or type(seat) is not int or type(card) is not Card:
            return self._check_then_play(seat, card)
        index = card.index
        if not self._legal >> index & 1:
            return self._check_then_play(seat, card)
        self._legal = 0  # until the next player is known
        bit = BITS[index]
        self.hands[seat] ^= bit
        self.trick.append(_IN_TRICK[seat][index])
        trick_cards = self._trick_cards
        trick_cards.append(index)
        self._trick_mask |= bit
        events: list[Event] = [_PLAYED[seat][index]]
        if not self.hearts_broken and (
            bit & self._breaking or (self._two_player and self._two_player_breaks(index))
        ):
            self.hearts_broken = True
            events.append(HeartsBroken(seat))
        if len(trick_cards) < self._players:
            seat = self.current_player = self._next_seat[seat]
            if self._two_player:
                events.extend(self._two_player_only_hearts())
            # `_legal_for`, written out: this is the hottest line of a playout.
            self._legal = play_rules.legal_mask(
                self.rules,
                self.hands[seat],
                trick_cards,
                not self.tricks,
                self.hearts_broken,
                self._first_lead,
            )
            return events
        events.extend(self._finish_trick())
        return events

    def _two_player_breaks(self, index: int) -> bool:
        """Whether the card just played breaks hearts by two-player Hearts' own rule."""
        trick_cards = self._trick_cards
        led_suit = trick_cards[0] // 13 if len(trick_cards) > 1 else None
        return play_rules.breaks_hearts(self.rules, index, led_suit)

    def _check_then_play(self, seat: int, card: Card | str) -> list[Event]:
        """Raise the `IllegalMove` that explains a refused card, or play a legal one."""
        self._check_seat(seat)
        if self.phase != "play":
            raise self._wrong_phase("play a card")
        if seat != self.current_player:
            raise IllegalMove("not_your_turn", "It is not your turn.")
        if not isinstance(card, Card):
            try:
                card = Card.parse(card)
            except ValueError as error:
                raise IllegalMove("not_a_card", str(error)) from None
        if not self.hands[seat] >> card.index & 1:
            raise IllegalMove("not_in_hand", f"You don't have {card.symbol}.", card=card.symbol)
        if not self.legal_mask(seat) >> card.index & 1:
            raise self._why_illegal(seat, card)
        # Now a plain int seat and a Card known to be legal: the quick way plays it.
        return self.play(int(seat), card)

    def _two_player_only_hearts(self) -> list[Event]:
        # Two-player ruling: hearts break once a player holds nothing but hearts.
        if self.rules.variant != "two_player" or self.hearts_broken:
            return []
        for s, hand in enumerate(self.hands):
            if hand and not hand & ~HEARTS_MASK:
                self.hearts_broken = True
                return [HeartsBroken(s)]
        return []

    def _finish_trick(self) -> list[Event]:
        rules = self.rules
        mask = self._trick_mask
        leader = self.leader
        assert leader is not None
        position = play_rules.trick_winner_position(rules, self._trick_cards, mask)
        winner = (leader + position) % self._players
        plays = tuple(self.trick)
        # tuple.__new__ builds the named tuples without their Python-level __new__.
        self.tricks.append(_new_tuple(TrickRecord, (leader, plays, winner)))
        self.taken[winner] |= mask
        points = scoring.cards_points(rules, mask) if mask & self._counted else self._zero
        events: list[Event] = [_new_tuple(TrickWon, (winner, plays, points, "trick_won"))]
        self.trick = []
        self._trick_cards = []
        self._trick_mask = 0
        self.leader = self.current_player = winner
        if len(self.tricks) < self._tricks_per_hand:
            if self._two_player:
                events.extend(self._two_player_only_hearts())
            self._legal = self._legal_for(winner)
            return events
        events.extend(self._end_hand())
        return events

    def _end_hand(self) -> list[Event]:
        shooter = scoring.moon_shooter(self.rules, self.taken, self.dead)
        if shooter is None:
            return self._score_hand(None, None)
        if self.rules.variant == "two_player":
            return [MoonShot(shooter, None), *self._score_hand(shooter, None)]
        if self.rules.moon == "choose":
            self.phase = "moon"
            self._shooter = self.current_player = shooter
            return [MoonShot(shooter, None)]
        choice: MoonChoice = self.rules.moon
        return [MoonShot(shooter, choice), *self._score_hand(shooter, choice)]

    def choose_moon(self, seat: int, choice: str) -> list[Event]:
        """The shooter's choice: ``"subtract_from_shooter"`` or ``"add_to_others"``."""
        self._check_seat(seat)
        if self.phase != "moon":
            raise self._wrong_phase("choose a moon option")
        if seat != self._shooter:
            raise IllegalMove(
                "not_your_turn", "Only the player who shot the moon chooses.", phase="moon"
            )
        if choice not in MOON_CHOICES:
            raise IllegalMove("bad_moon_choice", "Choose subtract_from_shooter or add_to_others.")
        moon_choice: MoonChoice = choice  # type: ignore[assignment]
        return [MoonShot(seat, moon_choice), *self._score_hand(seat, moon_choice)]

    def _score_hand(self, shooter: int | None, choice: MoonChoice | None) -> list[Event]:
        rules = self.rules
        points = scoring.hand_points(rules, self.taken, shooter, choice)
        self.scores = [t + p for t, p in zip(self.scores, points, strict=True)]
        totals = tuple(self.scores)
        self.hand_history.append(
            HandResult(
                self.hand_number,
                self.dealer,
                self.pass_direction,
                points,
                totals,
                shooter,
                choice,
                tuple(cards_of(self.dead)),
            )
        )
        events: list[Event] = [HandScored(self.hand_number, points, totals, shooter)]
        winners = scoring.game_winners(rules, self.scores)
        if rules.hands is not None:
            winners = (
                scoring.lowest(rules, self.scores) if self.hand_number >= rules.hands else None
            )
        if winners is not None:
            self.winners = winners
            self.phase = "over"
            self.current_player = None
            self._shooter = None
            return [*events, GameOver(winners, totals)]
        self._hand_index += 1
        self.dealer = (self.dealer + 1) % rules.players
        return events + self._start_hand()

    # ----------------------------------------------------------------- errors

    def _check_seat(self, seat: int) -> None:
        if type(seat) is int and 0 <= seat < self._players:
            return
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise IllegalMove("no_such_seat", f"There is no seat {seat!r} at this table.")
        if not 0 <= seat < self.rules.players:
            raise IllegalMove("no_such_seat", f"There is no seat {seat} at this table.")

    def _wrong_phase(self, action: str) -> IllegalMove:
        now = {
            "pass": "everyone is choosing cards to pass",
            "play": "cards are being played",
            "moon": "the moon shooter is choosing",
            "over": "the game is over",
        }[self.phase]
        if self.phase == "over":
            return IllegalMove("game_over", "The game is over.")
        return IllegalMove("wrong_phase", f"You can't {action} now: {now}.", phase=self.phase)

    def _why_illegal(self, seat: int, card: Card) -> IllegalMove:
        hand = self.hands[seat]
        if not self.trick:
            if not self.tricks:
                first = CARDS[self._first_lead]
                return IllegalMove(
                    "must_lead_lowest_club",
                    f"The first trick must be led with {first.symbol}.",
                    card=first.symbol,
                )
            return IllegalMove("hearts_not_broken", "Hearts are not broken yet.")
        led = self._trick_cards[0] // 13
        if hand & SUIT_MASKS[led]:
            suit = SUIT_SYMBOLS[SUITS[led]]
            return IllegalMove("must_follow_suit", f"You must follow {suit}.", suit=suit)
        return IllegalMove("points_on_first_trick", "No hearts and no Q♠ on the first trick.")

    # ----------------------------------------------------------------- JSON

    def to_json(self) -> str:
        """The whole game as JSON, random state included: `from_json` restores it exactly."""
        variant_complex = self.rules.variant == "complex"

        def score(value: Score) -> Any:
            if variant_complex:
                assert isinstance(value, complex)
                return [round(value.real), round(value.imag)]
            return value

        data: dict[str, Any] = {
            "format": JSON_FORMAT,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "rng": _rng_state_to_json(self._rng.getstate()),
            "deals": self.fixed_deals,
            **({} if self._deal_key is None else {"deal_key": self._deal_key.hex()}),
            "first_dealer": self.first_dealer,
            "dealer": self.dealer,
            "hand_index": self._hand_index,
            "phase": self.phase,
            "pass_direction": self.pass_direction,
            "hands": [codes(h) for h in self.hands],
            "dead": codes(self.dead),
            "passes": [None if p is None else codes(p) for p in self._passes],
            "received": [None if p is None else codes(p) for p in self._received],
            "first_lead": CARDS[self._first_lead].code if self.phase != "pass" else None,
            "trick": [[s, c.code] for s, c in self.trick],
            "leader": self.leader,
            "current_player": self.current_player,
            "tricks": [
                [t.leader, [[s, c.code] for s, c in t.plays], t.winner] for t in self.tricks
            ],
            "taken": [codes(m) for m in self.taken],
            "hearts_broken": self.hearts_broken,
            "shooter": self._shooter,
            "scores": [score(s) for s in self.scores],
            "history": [
                {
                    "hand_number": h.hand_number,
                    "dealer": h.dealer,
                    "pass_direction": h.pass_direction,
                    "points": [score(p) for p in h.points],
                    "totals": [score(t) for t in h.totals],
                    "shooter": h.shooter,
                    "moon_choice": h.moon_choice,
                    "dead": [c.code for c in h.dead],
                }
                for h in self.hand_history
            ],
            "winners": list(self.winners),
        }
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Game:
        """Restore a game saved by `to_json`. Raises `ValueError` on anything unreadable."""
        try:
            data = json.loads(text)
            return cls._from_data(data)
        except (KeyError, TypeError, IndexError, AttributeError) as error:
            raise ValueError(f"Not a saved game: {error!r}") from None

    @classmethod
    def _from_data(cls, data: dict[str, Any]) -> Game:
        if data.get("format") != JSON_FORMAT:
            raise ValueError(f"Unknown saved game format {data.get('format')!r}.")
        rules = Rules.from_dict(data["rules"])
        game = cls.__new__(cls)
        game.rules = rules
        game.seed = data["seed"]
        game._set_derived()
        game._deals = [game._check_deal(d, i) for i, d in enumerate(data["deals"])]
        game._rng = random.Random()
        game._rng.setstate(_rng_state_from_json(data["rng"]))
        key = data.get("deal_key")
        game._deal_key = None if key is None else bytes.fromhex(key)
        if game._deal_key is not None and len(game._deal_key) != fair.KEY_BYTES:
            raise ValueError("Saved game has a deal key of the wrong length.")
        game.first_dealer = data["first_dealer"]
        game.dealer = data["dealer"]
        game._hand_index = data["hand_index"]
        game.phase = data["phase"]
        game.pass_direction = data["pass_direction"]
        game.hands = [mask_of_codes(h) for h in data["hands"]]
        game.dead = mask_of_codes(data["dead"])
        game._passes = [None if p is None else mask_of_codes(p) for p in data["passes"]]
        game._received = [None if p is None else mask_of_codes(p) for p in data["received"]]
        first_lead = data["first_lead"]
        game._first_lead = Card.parse(first_lead).index if first_lead else 0
        game.trick = [(s, Card.parse(c)) for s, c in data["trick"]]
        game._trick_cards = [c.index for _, c in game.trick]
        game._trick_mask = mask_of(game._trick_cards)
        game.leader = data["leader"]
        game.current_player = data["current_player"]
        game.tricks = [
            TrickRecord(leader, tuple((s, Card.parse(c)) for s, c in plays), winner)
            for leader, plays, winner in data["tricks"]
        ]
        game.taken = [mask_of_codes(t) for t in data["taken"]]
        game.hearts_broken = data["hearts_broken"]
        game._shooter = data["shooter"]

        def score(value: Any) -> Score:
            if rules.variant == "complex":
                re, im = value
                return complex(int(re), int(im))
            return int(value)

        game.scores = [score(s) for s in data["scores"]]
        game.hand_history = [
            HandResult(
                h["hand_number"],
                h["dealer"],
                h["pass_direction"],
                tuple(score(p) for p in h["points"]),
                tuple(score(t) for t in h["totals"]),
                h["shooter"],
                h["moon_choice"],
                tuple(Card.parse(c) for c in h["dead"]),
            )
            for h in data["history"]
        ]
        game.winners = tuple(data["winners"])
        game._check_consistent()
        game._legal = 0
        if game.phase == "play" and game.current_player is not None:
            game._legal = game._legal_for(game.current_player)
        return game

    def _check_consistent(self) -> None:
        n = self.rules.players
        if self.phase not in ("pass", "play", "moon", "over"):
            raise ValueError(f"Saved game has an unknown phase {self.phase!r}.")
        if not (len(self.hands) == len(self.taken) == len(self.scores) == n):
            raise ValueError("Saved game has the wrong number of seats.")
        total = self._trick_mask | self.dead
        for m in (*self.hands, *self.taken):
            if m & total:
                raise ValueError("Saved game has a card in two places.")
            total |= m
        if self.phase != "over" and total != self._deck:
            raise ValueError("Saved game has lost or gained cards.")

    def copy(self) -> Game:
        """An independent copy, cheap enough to take before every move (the bot keeps one
        to roll back a move whose saving failed) and for search and what-ifs.

        Every list is copied; what the lists hold (ints, cards, tuples) is immutable, so
        nothing is shared that a move could change. The shuffle's state is copied too.
        """
        twin = object.__new__(Game)
        for name in Game.__slots__:
            value = getattr(self, name, _UNSET)
            if value is _UNSET:
                continue
            setattr(twin, name, value.copy() if type(value) is list else value)
        twin._rng = random.Random()
        twin._rng.setstate(self._rng.getstate())
        return twin

    def take(self, other: Game) -> None:
        """Become `other`: its state moved into this game, which keeps its identity for
        whoever holds it (the bot moves a game decided on a copy into the one its table
        holds, once the move is stored). `other` is not to be changed afterwards: the two
        share their lists."""
        for name in Game.__slots__:
            value = getattr(other, name, _UNSET)
            if value is _UNSET:
                if hasattr(self, name):
                    delattr(self, name)
                continue
            setattr(self, name, value)

    def __repr__(self) -> str:
        return (
            f"<Game {self.rules.variant} {self.rules.players}p hand {self.hand_number} "
            f"{self.phase} scores={self.scores}>"
        )


def _rng_state_to_json(state: tuple[Any, ...]) -> list[Any]:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _rng_state_from_json(data: list[Any]) -> tuple[Any, ...]:
    version, internal, gauss = data
    return (version, tuple(internal), gauss)
