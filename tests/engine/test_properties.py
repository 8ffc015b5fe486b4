"""Random games of every variant and option, checked move by move against RULES.md.

The checks re-derive what is legal, who takes each trick, when hearts break, what each
hand scores and who wins from the cards alone, written here from the rule book rather than
from the engine's code, and compare with what the engine says.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields

import pytest
from hearts_helpers import cards_in, random_move
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Card,
    CardPlayed,
    Game,
    GameOver,
    HandScored,
    HandStarted,
    IllegalMove,
    MoonShot,
    Rules,
    TrickWon,
)
from engine.events import Event

QS = Card.parse("QS")
JD = Card.parse("JD")
TD = Card.parse("TD")
TC = Card.parse("TC")
ALL = [Card(i) for i in range(52)]
MOON_PART = 13 + 13j


def deck(players: int) -> set[Card]:
    if players == 2:
        return {c for c in ALL if c.rank in (2, 4, 6, 8, 10, 12, 14)}
    removed = {3: {"2D"}, 4: set(), 5: {"2D", "2C"}, 6: {"2D", "2C", "3D", "3C"}}[players]
    return {c for c in ALL if c.code not in removed}


@st.composite
def any_rules(draw: st.DrawFn) -> Rules:
    players = draw(st.integers(2, 6))
    variant = "standard"
    if players == 2:
        variant = "two_player"
    elif players == 4:
        variant = draw(st.sampled_from(["standard", "complex"]))
    directions = ["left", "right", "hold"] + (["across"] if players % 2 == 0 else [])
    cycle: tuple[str, ...] | None = None
    if players == 2:
        cycle = draw(st.sampled_from([None, ("hold",)]))
    elif draw(st.booleans()):
        cycle = tuple(draw(st.lists(st.sampled_from(directions), min_size=1, max_size=4)))
    return Rules(
        players=players,
        variant=variant,  # type: ignore[arg-type]
        bonus_card=draw(st.sampled_from([None, "JD", "TD"])) if variant == "standard" else None,
        moon=draw(st.sampled_from(["choose", "add_to_others", "subtract_from_shooter"])),
        queen_breaks_hearts=draw(st.booleans()),
        no_points_on_first_trick=draw(st.booleans()),
        pass_cycle=cycle,  # type: ignore[arg-type]
        target=draw(st.integers(1, 70)),
        ties=draw(st.sampled_from(["play_on", "share"])),
    )


# ----------------------------------------------------------------- the reference rules


def is_point(card: Card) -> bool:
    return card.suit == "H" or card == QS


def reference_legal(
    rules: Rules, hand: set[Card], trick: list[Card], first_trick: bool, broken: bool, lead: Card
) -> set[Card]:
    two = rules.variant == "two_player"
    if not trick:
        if first_trick:
            return {lead}
        if broken:
            return set(hand)
        not_hearts = {c for c in hand if c.suit != "H"}
        if two:
            return not_hearts or set(hand)
        if all(is_point(c) for c in hand):
            return set(hand)
        return not_hearts
    follow = {c for c in hand if c.suit == trick[0].suit}
    allowed = follow or set(hand)
    if first_trick and rules.no_points_on_first_trick and not two:
        allowed = {c for c in allowed if not is_point(c)} or allowed
    return allowed


def reference_winner(rules: Rules, trick: list[Card]) -> int:
    hearts = [c for c in trick if c.suit == "H"]
    if rules.variant == "two_player" and hearts:
        return trick.index(max(hearts, key=lambda c: c.rank))
    led = [c for c in trick if c.suit == trick[0].suit]
    return trick.index(max(led, key=lambda c: c.rank))


def reference_points(
    rules: Rules, piles: list[set[Card]], dead: set[Card], choice: str | None
) -> tuple[list[int | complex], int | None]:
    """Each seat's points for a hand and the shooter, straight from RULES.md §5–6."""
    n = rules.players
    in_play = {c for c in deck(n) - dead if is_point(c)}
    shooter = next((s for s in range(n) if in_play <= piles[s]), None)
    if rules.variant == "two_player":
        if shooter is not None:
            return [0 if s == shooter else 20 for s in range(n)], shooter
        return [sum(map(is_point, p)) + 12 * (QS in p) for p in piles], None
    if rules.variant == "complex":
        out: list[int | complex] = []
        for s, pile in enumerate(piles):
            hearts_and_queen = sum(c.suit == "H" for c in pile) + 13j * (QS in pile)
            own_extra = 0j
            if shooter is not None:
                if s == shooter:
                    hearts_and_queen = -MOON_PART if choice == "subtract_from_shooter" else 0
                else:
                    hearts_and_queen = 0
                    if choice == "add_to_others":
                        own_extra = MOON_PART
            value = hearts_and_queen - 10 * (JD in pile)
            if TC in pile:
                value *= 2j
            out.append(value + own_extra)
        return out, shooter
    bonus = {"JD": JD, "TD": TD}.get(rules.bonus_card or "")
    points: list[int | complex] = []
    for s, pile in enumerate(piles):
        if shooter is None:
            p = sum(c.suit == "H" for c in pile) + 13 * (QS in pile)
        elif choice == "subtract_from_shooter":
            p = -26 if s == shooter else 0
        else:
            p = 0 if s == shooter else 26
        points.append(p - 10 * (bonus is not None and bonus in pile))
    return points, shooter


def size(score: int | complex) -> int:
    if isinstance(score, complex):
        re, im = int(score.real), int(score.imag)
        return re * re + im * im
    return score


def reached(rules: Rules, total: int | complex) -> bool:
    if rules.variant == "complex":
        return size(total) >= rules.target**2
    return size(total) >= rules.target


def reference_winners(rules: Rules, totals: list[int | complex]) -> tuple[int, ...] | None:
    over = [s for s, t in enumerate(totals) if reached(rules, t)]
    if not over:
        return None
    if rules.variant == "two_player":
        if len(over) == 1:
            return (1 - over[0],)
        if totals[0] == totals[1]:
            return None
        return (0,) if size(totals[0]) < size(totals[1]) else (1,)
    low = min(size(t) for t in totals)
    lowest = tuple(s for s, t in enumerate(totals) if size(t) == low)
    return lowest if len(lowest) == 1 or rules.ties == "share" else None


def reference_moon_default(
    rules: Rules, totals: list[int | complex], piles: list[set[Card]], dead: set[Card], shooter: int
) -> str:
    def loses(choice: str) -> bool:
        points, _ = reference_points(rules, piles, dead, choice)
        winners = reference_winners(rules, [t + p for t, p in zip(totals, points, strict=True)])
        return winners is not None and winners != (shooter,)

    if loses("add_to_others") and not loses("subtract_from_shooter"):
        return "subtract_from_shooter"
    return "add_to_others"


# ----------------------------------------------------------------- the checker


@dataclass
class Referee:
    """Follows a game event by event and checks each one against the reference rules."""

    rules: Rules
    totals: list[int | complex] = field(default_factory=list)
    piles: list[set[Card]] = field(default_factory=list)
    trick: list[Card] = field(default_factory=list)
    trick_seats: list[int] = field(default_factory=list)
    tricks_done: int = 0
    broken: bool = False
    lead: Card | None = None
    hands_scored: int = 0

    def __post_init__(self) -> None:
        n = self.rules.players
        zero: int | complex = 0j if self.rules.variant == "complex" else 0
        self.totals = [zero] * n
        self.new_hand()

    def new_hand(self) -> None:
        self.piles = [set() for _ in range(self.rules.players)]
        self.trick, self.trick_seats = [], []
        self.tricks_done = 0
        self.broken = False
        self.lead = None

    def check_position(self, game: Game) -> None:
        """Before a move: the engine's legal cards, hearts and first lead are the rules'."""
        n = self.rules.players
        if game.phase != "play":
            return
        hands = [set(game.hand(s)) for s in range(n)]
        if self.lead is None:
            clubs = set().union(*hands)
            self.lead = min((c for c in clubs if c.suit == "C"), key=lambda c: c.rank)
            assert self.lead in hands[game.current_player or 0]
        if self.rules.variant == "two_player" and any(
            h and all(c.suit == "H" for c in h) for h in hands
        ):
            self.broken = True
        assert game.hearts_broken == self.broken
        seat = game.current_player
        assert seat is not None
        expected = reference_legal(
            self.rules, hands[seat], self.trick, self.tricks_done == 0, self.broken, self.lead
        )
        assert set(game.legal_plays()) == expected

    def see(self, game: Game, events: list[Event], choice_made: str | None) -> None:
        rules = self.rules
        for event in events:
            if isinstance(event, HandStarted):
                self.new_hand()
            elif isinstance(event, CardPlayed):
                card = event.card
                off_suit = bool(self.trick) and card.suit != self.trick[0].suit
                if rules.variant == "two_player":
                    self.broken |= card.suit == "H" or off_suit
                else:
                    self.broken |= card.suit == "H" or (card == QS and rules.queen_breaks_hearts)
                self.trick.append(card)
                self.trick_seats.append(event.seat)
            elif isinstance(event, TrickWon):
                winner = self.trick_seats[reference_winner(rules, self.trick)]
                assert event.seat == winner
                assert [c for _, c in event.cards] == self.trick
                self.piles[winner] |= set(self.trick)
                self.trick, self.trick_seats = [], []
                self.tricks_done += 1
            elif isinstance(event, MoonShot) and event.choice is None:
                if rules.variant != "two_player":
                    assert rules.moon == "choose"
                    assert game.phase == "moon"
                    assert game.moon_shooter == event.seat
                    expected = reference_moon_default(
                        rules, self.totals, self.piles, set(), event.seat
                    )
                    assert game.default_moon_choice() == expected
            elif isinstance(event, HandScored):
                self.score(game, event, choice_made)
            elif isinstance(event, GameOver):
                assert event.winners == reference_winners(rules, self.totals)
                assert game.winners == event.winners

    def score(self, game: Game, event: HandScored, choice_made: str | None) -> None:
        rules = self.rules
        n = rules.players
        assert self.tricks_done * n == len(deck(n)) - (2 if n == 2 else 0)
        record = game.hand_history[-1]
        dead = set(record.dead)
        choice = choice_made if rules.moon == "choose" else rules.moon
        points, shooter = reference_points(rules, self.piles, dead, choice)
        assert event.shooter == shooter
        assert list(event.points) == points
        if shooter is None and rules.variant == "standard":
            assert sum(points) == 26 - 10 * (rules.bonus_card is not None)
        elif shooter is not None and rules.variant == "standard":
            moon = 26 * (n - 1) if choice == "add_to_others" else -26
            assert sum(points) == moon - 10 * (rules.bonus_card is not None)
        elif rules.variant == "two_player" and shooter is None:
            in_play = {c for c in deck(2) - dead if is_point(c)}
            assert sum(points) == sum(map(is_point, in_play)) + 12 * (QS in in_play)
        self.totals = [t + p for t, p in zip(self.totals, points, strict=True)]
        assert list(event.totals) == self.totals
        winners = reference_winners(rules, self.totals)
        assert (game.phase == "over") == (winners is not None)
        self.hands_scored += 1
        assert record.hand_number == self.hands_scored


def check_illegal_moves(game: Game) -> None:
    """Every card not in legal_plays is refused, and refusing it changes nothing."""
    before = game.to_json()
    legal = set(game.legal_plays())
    seats = range(game.players)
    if game.phase == "play":
        seat = game.current_player
        for card in ALL:
            if card not in legal:
                try:
                    game.play(seat or 0, card)
                except IllegalMove as error:
                    assert error.reason and error.message
                else:
                    raise AssertionError(f"{card} was accepted but is not legal")
        for other in seats:
            if other != seat and game.hand(other):
                try:
                    game.play(other, game.hand(other)[0])
                except IllegalMove as error:
                    assert error.reason == "not_your_turn"
                else:
                    raise AssertionError("a card was accepted out of turn")
    elif game.phase == "moon":
        for card in ALL[:3]:
            try:
                game.play(game.moon_shooter or 0, card)
            except IllegalMove as error:
                assert error.reason in ("wrong_phase", "no_such_seat")
            else:
                raise AssertionError("a card was played while the shooter chooses")
    elif game.phase == "pass":
        seat = game.waiting_for()[0]
        mine = game.hand(seat)
        others = [c for c in ALL if c not in mine]
        for attempt in ([*mine[:2], others[0]], mine[:2], mine[:4]):
            try:
                game.pass_cards(seat, attempt)
            except IllegalMove:
                pass
            else:
                raise AssertionError(f"pass {attempt} was accepted")
    assert game.to_json() == before


def check_views(game: Game) -> None:
    """A seat sees its own cards and the cards played, nothing else of the hand in play."""
    played: set[Card] = {c for t in game.tricks for _, c in t.plays} | {c for _, c in game.trick}
    for seat in range(game.players):
        view = game.view(seat)
        own = set(game.hand(seat))
        assert set(view.hand) == own
        assert view.hand_mask == sum(1 << c.index for c in own)
        passed = set(view.passed or ())
        received = set(view.received or ())
        allowed = own | played | passed | received
        for f in fields(view):
            if f.name == "hand_history":
                continue
            leaked = cards_in(getattr(view, f.name)) - allowed
            assert not leaked, f"seat {seat} sees {leaked} in {f.name}"
        assert view.hand_history == tuple(game.hand_history)
        assert set(view.legal) <= own
        assert view.legal_mask & ~view.hand_mask == 0


def next_move(game: Game, rng: random.Random) -> tuple[list[Event], str | None]:
    """A random legal move; in the moon phase sometimes the timeout's default choice."""
    if game.phase != "moon":
        return random_move(game, rng), None
    seat = game.moon_shooter
    assert seat is not None
    choice = rng.choice([game.default_moon_choice(), "add_to_others", "subtract_from_shooter"])
    return game.choose_moon(seat, choice), choice


def play_checked(rules: Rules, seed: int) -> Game:
    game = Game(rules, seed=seed)
    referee = Referee(rules)
    moves = random.Random(seed)
    checks = random.Random(~seed)
    checkpoint: tuple[str, object] | None = None
    while game.phase != "over":
        assert game.hand_number < 400
        referee.check_position(game)
        check_illegal_moves(game)
        if checks.random() < 0.25:
            check_views(game)
        if checks.random() < 0.05:
            text = game.to_json()
            assert Game.from_json(text).to_json() == text
            if checkpoint is None:
                checkpoint = (text, moves.getstate())
        events, choice = next_move(game, moves)
        referee.see(game, events, choice)
    check_views(game)
    if checkpoint is not None:
        # Restored and played with the same moves, the game deals the same hands and ends
        # the same way: the random generator is part of the saved game.
        text, state = checkpoint
        restored = Game.from_json(text)
        replay = random.Random()
        replay.setstate(state)  # type: ignore[arg-type]
        while restored.phase != "over":
            next_move(restored, replay)
        assert restored.to_json() == game.to_json()
    return game


@pytest.mark.parametrize(
    "games",
    [
        # Forty whole games with random rules by default (about 8 s); six hundred, with
        # --run-slow, for the corners forty can miss.
        pytest.param(40, id="40"),
        pytest.param(600, id="600", marks=pytest.mark.slow),
    ],
)
def test_random_games_follow_the_rules_to_the_end(games: int) -> None:
    @settings(max_examples=games, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(rules=any_rules(), seed=st.integers(0, 2**32))
    def a_random_game_follows_the_rules(rules: Rules, seed: int) -> None:
        game = play_checked(rules, seed)
        assert game.phase == "over"
        assert game.winners

    a_random_game_follows_the_rules()


@settings(max_examples=25, deadline=None)
@given(rules=any_rules(), seed=st.integers(0, 2**32), stop=st.integers(0, 80))
def test_json_round_trips_anywhere_and_the_restored_game_deals_the_same(
    rules: Rules, seed: int, stop: int
) -> None:
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(stop):
        if game.phase == "over":
            break
        random_move(game, rng)
    text = game.to_json()
    restored = Game.from_json(text)
    assert restored.to_json() == text
    assert restored.view(0) == game.view(0)
    moves = random.Random(seed + 1)
    again = random.Random(seed + 1)
    for _ in range(120):
        if game.phase == "over":
            break
        random_move(game, moves)
        random_move(restored, again)
        assert restored.to_json() == game.to_json()
