"""What one seat's screen shows, as plain data: the DM and the table page are two drawings
of one `SeatScreen`.

`seat_screen` makes it from the seat's `SeatView` (``game.view(seat)``: never another
seat's cards) and the table. Every sentence in it is a `Msg` (a message id and its values)
or a `Part` of one; a name is a `Name`, emphasis a `Strong`: no HTML and no Telegram
object. Its buttons are typed `Action`s. An adapter draws it: the Telegram one
(`bot.telegram.draw`) as HTML and an inline keyboard, the page's (`bot.live.view`) as JSON
with plain text, each through `bot.screens.parts.say`.

The group's table message during a game (`group_screen`, a `GroupScreen`) is made here
too, beside it, with the words both share (the players' names, the plays, the winners,
the rules' summary). Each builder reads what it needs of the table once, at its top (the
seats' names, `Table.names`; what the table offers, `Table.offers_hints` and
`Table.offers_review`) and hands plain data down: no helper reaches back into the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.computers.coach_words import decision_key, shown_hint
from bot.core.decode import (
    AskHint,
    ChooseMoon,
    NewGame,
    PassCards,
    ReplayHand,
    Review,
    TapCard,
    ToggleTracker,
)
from bot.core.phases import Phase
from bot.i18n import Msg, mark, msg, msg_plural
from bot.screens.buttons import (
    Action as Action,
)
from bot.screens.buttons import (
    Button as Button,
)
from bot.screens.buttons import (
    CopyText as CopyText,
)
from bot.screens.buttons import (
    OpenDm as OpenDm,
)
from bot.screens.buttons import (
    OpenDmToSit as OpenDmToSit,
)
from bot.screens.buttons import (
    OpenTable as OpenTable,
)
from bot.screens.buttons import (
    ShareInline as ShareInline,
)
from bot.screens.buttons import (
    WatchTable as WatchTable,
)
from bot.screens.buttons import (
    Words as Words,
)
from bot.screens.parts import (
    ARROWS,
    SUIT_ORDER,
    Bare,
    Isolated,
    Joined,
    Name,
    Number,
    Part,
    Strong,
    Text,
    format_score,
    format_total,
)
from bot.tables.model import Table
from engine import Card, Game, HandResult, PublicView, Rules, SeatView
from engine.cards import FULL_DECK, codes, deck_mask, shown_order
from engine.records import TrickRecord
from engine.scoring import Score, rank_key

CANCELLED = msg("♥ This table was cancelled.")
AND = "{items} and {last}"


@dataclass(frozen=True)
class HandCard:
    """A card in the reader's hand, and its marks."""

    card: Card
    legal: bool
    """Playable now (on the reader's turn only)."""
    chosen: bool
    """Chosen to pass."""
    received: bool
    """Received in the pass, until the first trick of the hand is taken."""
    tap: TapCard
    """What its button sends: the card tapped at this table, in this hand."""


@dataclass(frozen=True)
class Player:
    """One seat as every reader sees it."""

    name: str
    score: Score
    taken: Score
    cards: int
    computer: bool
    turn: bool
    waiting: bool


@dataclass(frozen=True)
class SeatScreen:
    """Everything one seat's screen shows, as data."""

    game: int
    seat: int
    hand: int
    """The hand's number: a button of an earlier hand is stale."""
    phase: str
    ended: str | None
    """``"finished"``, ``"cancelled"`` (or ended otherwise), or None while it is played."""
    lines: tuple[Part, ...]
    """The whole screen in words, line by line ("" a blank line): the DM's text."""
    status: Part
    """What happens now, from this seat, in one line."""
    hint: tuple[Part, ...] | None
    """The hint asked for, while its choice is open (None: no 💡 Hint here now)."""
    players: tuple[Player, ...]
    trick: tuple[tuple[int, Card], ...]
    last_trick: tuple[tuple[tuple[int, Card], ...], int] | None
    """The last trick taken: its plays, and who took it."""
    tricks_done: int
    cards: tuple[HandCard, ...]
    """The reader's hand, in the engine's order (cards passed still in it until everyone
    has passed)."""
    passed: tuple[Card, ...]
    """The cards the reader passed, while the others choose theirs."""
    hearts_broken: bool
    deadline: float | None
    """When the turn timer runs out (the reader's or another's), while the hand is played."""
    actions: tuple[tuple[Button, ...], ...]
    """What the reader may press besides their cards, in groups that belong together (the
    pass, the moon's two choices, the tracker, the coach, the page)."""
    chosen: int
    """Cards chosen to pass so far."""
    tracker: bool
    """Whether the table keeps the card tracker."""
    voids: tuple[frozenset[str], ...]
    played: dict[str, tuple[Card, ...]]
    results: tuple[HandResult, ...]
    target: int
    winners: tuple[int, ...]
    sealed: Part | None = None
    """This hand's deal commitment, short, while the hand is played (a fixed deal: None)."""
    revealed: tuple[tuple[int, str, str], ...] = ()
    """Each finished hand's number, seed and commitment (dealt from a key), set for the
    table page only (`revealed_proofs`): never this hand's until it is over."""


@dataclass(frozen=True)
class GroupScreen:
    """What the group's table message shows of a game (`bot.screens.render.group_screen`)."""

    game: int
    lines: tuple[Part, ...]
    actions: tuple[Button, ...]


Screen = SeatScreen | GroupScreen | Words
"""Everything a chat is shown of a table, as data: an adapter draws it."""


# ---------------------------------------------------------------- the words of a screen


def last_trick_line(names: Sequence[str], last: TrickRecord) -> Msg:
    """The trick before this one, and who took it (the group's message and a seat's)."""
    return msg(
        "Last trick: {cards} → {name}",
        cards=plays(names, last.plays),
        name=Name(names[last.winner]),
    )


def plays(names: Sequence[str], played: Sequence[tuple[int, Card]]) -> Joined:
    """``Ana Q♠ · Bob 3♥``, each play kept in its own direction (`names`: the seats')."""
    return Joined(tuple(Isolated(Joined((Name(names[s]), c.symbol), " ")) for s, c in played))


def scores_line(names: Sequence[str], scores: tuple[Score, ...], seat: int | None = None) -> Joined:
    parts: list[Part] = []
    for s, score in enumerate(scores):
        # People by name; the reader's own, in bold, is the one marked "you" (a person may
        # well be called You).
        name: Part = Name(names[s])
        if s == seat:
            name = msg("<b>{name}</b> (you)", name=name)
        parts.append(Joined((name, format_score(score)), " "))
    return Joined(tuple(parts))


def listed(names: Sequence[str], seats: Sequence[int]) -> Joined:
    """``Ana, Bob``: the seats' names (`names`: every seat's, `Table.names`)."""
    return Joined(tuple(Name(names[s]) for s in seats), ", ")


def winners(names: Sequence[str], seats: Sequence[int]) -> Part:
    """``A, B and C`` in bold, in the reader's language."""
    bold = [Strong(Name(names[s])) for s in seats]
    if len(bold) <= 1:
        return Joined(tuple(bold), "")
    # The words of `Tr.join` (which no catalog translates yet: the same as it says).
    return Msg(AND, {"items": Joined(tuple(bold[:-1]), ", "), "last": bold[-1]})


def hearts_line(broken: bool) -> Msg:
    return msg("💔 Hearts are broken.") if broken else msg("♥ Hearts are not broken.")


def timer_text(seconds: int) -> Msg:
    return msg("{seconds} s", seconds=seconds) if seconds else msg("no timer")


def hand_result_lines(
    names: Sequence[str], hints_used: dict[int, dict[int, int]], result: HandResult
) -> list[Part]:
    """A hand's result: its points (with the hints each person asked for: `hints_used`,
    `TableUI.hints_used`), the moon, the standings."""
    hints = hints_used.get(result.hand_number, {})
    points = Joined(
        tuple(
            Joined(
                (
                    Name(names[s]),
                    " ",
                    format_score(p),
                    f" 💡{hints[s]}" if hints.get(s) else "",
                ),
                "",
            )
            for s, p in enumerate(result.points)
        )
    )
    lines: list[Part] = [
        msg("✋ <b>Hand {hand}</b>: {points}", hand=result.hand_number, points=points)
    ]
    if result.shooter is not None:
        lines.append(msg("🌕 {name} shot the moon!", name=Name(names[result.shooter])))
    totals = Joined(
        tuple(
            Joined((Name(names[s]), format_total(total)), " ")
            for s, total in enumerate(result.totals)
        )
    )
    lines.append(msg("Standings: {totals}", totals=totals))
    return lines


COMMITMENT_SHOWN = 12
"""Hex digits of a hand's commitment a screen shows (the group's copy button has all 64)."""


def commitment_line(game: Game) -> Msg | None:
    """This hand's deal commitment, short (README, "Fair deals"); None for a fixed deal.
    Sealed before anyone passes; the seed itself is said only once the hand is over."""
    proof = game.deal_proof()
    if proof is None:
        return None
    short = Bare(proof.commitment[:COMMITMENT_SHOWN] + "…")
    return msg("🔐 Deal commitment: <code>{commitment}</code>", commitment=short)


def removed_cards(players: int) -> list[Card]:
    """The cards taken out of the deck for this many players (RULES.md §2); none for four,
    and two-player Hearts plays a deck of its own (the README's rules say which)."""
    if players in (2, 4):
        return []
    return [Card.parse(code) for code in codes(FULL_DECK & ~deck_mask(players))]


OUT_OF_DECK = {players: tuple(removed_cards(players)) for players in range(2, 7)}
"""The cards out of the deck for each number of players a table may seat (2 to 6), worked
out once: every screen of a game of 3, 5 or 6 names them."""


def _trick_number(view: SeatView, seat: int) -> tuple[int, int]:
    """This trick's number and how many the hand has (5/13), from the reader's cards."""
    played_now = any(s == seat for s, _ in view.trick)
    number = len(view.tricks) + 1
    return number, len(view.tricks) + len(view.hand) + (1 if played_now else 0)


def tracker_lines(names: Sequence[str], view: SeatView) -> list[Part]:
    """The card-keeping aid: cards played by suit, and who has shown a void."""
    lines: list[Part] = [msg("<b>Cards played</b>")]
    symbols = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}
    played = view.cards_played_by_suit()
    for suit in SUIT_ORDER:
        cards = " ".join(c.symbol[:-1] for c in played[suit]) or "—"
        lines.append(f"{symbols[suit]} {cards}")
    voids: list[Part] = [
        Joined((Name(names[s]), "".join(symbols[x] for x in SUIT_ORDER if x in v)), " ")
        for s, v in enumerate(view.voids())
        if v and s != view.seat
    ]
    said: Part = Joined(tuple(voids), ", ") if voids else msg("none yet")
    lines.append(msg("Known voids: {voids}", voids=said))
    return lines


def moon_labels(rules: Rules) -> tuple[Msg, Msg]:
    """The moon shooter's two choices: for them, for everyone else."""
    if rules.variant == "complex":
        return msg("−(13+13i) for me"), msg("+(13+13i) for everyone else")
    return msg("−26 for me"), msg("+26 for everyone else")


# ---------------------------------------------------------------- the rules' words


VARIANTS = {
    "standard": mark("Standard"),
    "omnibus_jd": mark("Omnibus J♦"),
    "omnibus_td": mark("Omnibus 10♦"),
    "complex": mark("Complex"),
    "two_player": mark("Two-player"),
}
MOONS = {
    "choose": mark("shooter chooses"),
    "add_to_others": mark("+26 to others"),
    "subtract_from_shooter": mark("−26 to shooter"),
}
LEVEL_NAMES = {
    "easy": mark("easy"),
    "standard": mark("standard"),
    "pro": mark("pro"),
    "expert": mark("expert"),
}
DIRECTIONS = {
    "left": mark("pass left"),
    "right": mark("pass right"),
    "across": mark("pass across"),
    "hold": mark("no passing"),
}
PASSING = {
    "left": mark("Passing left: waiting for {names}."),
    "right": mark("Passing right: waiting for {names}."),
    "across": mark("Passing across: waiting for {names}."),
    "hold": mark("No passing: waiting for {names}."),
}
ON_OFF = {"on": mark("on"), "off": mark("off")}


def variant_key(rules: Rules) -> str:
    if rules.variant != "standard":
        return rules.variant
    if rules.bonus_card == "JD":
        return "omnibus_jd"
    if rules.bonus_card == "TD":
        return "omnibus_td"
    return "standard"


def rules_summary_part(table: Table) -> Msg:
    rules, options = table.rules, table.options
    values: dict[str, object] = {
        "players": msg_plural("{n} player", "{n} players", rules.players),
        "variant": Msg(VARIANTS[variant_key(rules)]),
        "target": rules.target,
        "timer": timer_text(options.turn_timer),
        "level": Msg(LEVEL_NAMES[options.computer_level]),
    }
    if rules.variant == "two_player":
        # Moon, Q♠ and first-trick options do nothing here (README, Rules).
        return msg(
            "{players} · {variant} · moon: {moon} · to {target} · turn timer: {timer} · "
            "computer: {level}",
            moon=msg("opponent +20"),
            **values,
        )
    return msg(
        "{players} · {variant} · moon: {moon} · Q♠ breaks hearts: {queen} · to {target} · "
        "turn timer: {timer} · computer: {level}",
        moon=Msg(MOONS[rules.moon]),
        queen=Msg(ON_OFF["on"] if rules.queen_breaks_hearts else ON_OFF["off"]),
        **values,
    )


# ---------------------------------------------------------------- the screen


def how_it_ended(table: Table, phase: str) -> str | None:
    """``"finished"``, ``"cancelled"``, or None while the game is played."""
    if phase == "over":
        return "finished"
    return None if table.phase in (Phase.DEALT, Phase.LOBBY) else "cancelled"


def seat_players(
    table: Table, names: Sequence[str], view: SeatView | PublicView, playing: bool
) -> tuple[Player, ...]:
    """Every seat as anyone at the table sees it (a player's screen and a watcher's): name,
    score, points this hand, cards held, whether a computer plays it, whose turn it is."""
    return tuple(
        Player(
            name=names[s],
            score=view.scores[s],
            taken=view.points_taken[s],
            cards=view.hand_sizes[s],
            computer=(sitting := table.seats[s]) is None or sitting.is_computer_now,
            turn=playing and view.current_player == s and view.phase in ("play", "moon"),
            waiting=playing and view.phase == "pass" and s in view.waiting_for,
        )
        for s in range(table.rules.players)
    )


def seat_screen(table: Table, seat: int, *, page: bool = False) -> SeatScreen:
    """The screen of `seat` at `table` (which has a game); `page`: whether a button opens
    the table page (``WEBAPP_URL`` is set)."""
    game = table.game
    assert game is not None
    view = game.view(seat)
    # What the screen needs besides the table's attributes, read once, first: the helpers
    # below are handed it, none reaches back into the table. The hint is the one this seat
    # asked for, in the coach's words, while its choice is open (where hints are offered).
    names, hints, review = table.names(), table.offers_hints(), table.offers_review()
    hint = shown_hint(table.ui.hints.get(seat), decision_key(view), list(names)) if hints else None
    ended = how_it_ended(table, view.phase)
    playing = ended is None
    if not playing:
        hint = None
    selected = list(table.ui.selections.get(seat, [])) if view.phase == "pass" else []
    received = {c.code for c in view.received or ()} if not view.tricks else set()
    legal = {c.code for c in view.legal} if view.current_player == seat and playing else set()
    players = seat_players(table, names, view, playing)
    review_row = _review(table.id, view) if review else ()
    lines, actions = _words(table, names, view, selected, hint, review_row, page)
    return SeatScreen(
        game=table.id,
        seat=seat,
        hand=view.hand_number,
        phase=view.phase,
        ended=ended,
        lines=tuple(lines),
        status=CANCELLED if ended == "cancelled" else _status(names, view),
        hint=hint,
        players=players,
        trick=view.trick,
        last_trick=(view.tricks[-1].plays, view.tricks[-1].winner) if view.tricks else None,
        tricks_done=len(view.tricks),
        cards=tuple(
            HandCard(
                c,
                legal=c.code in legal,
                chosen=playing and c.code in selected,
                received=c.code in received,
                tap=TapCard(table.id, view.hand_number, c.code),
            )
            for c in shown_order(view.hand)
        ),
        passed=view.passed or () if view.phase == "pass" else (),
        hearts_broken=view.hearts_broken,
        deadline=table.deadline if view.phase == "play" and playing else None,
        actions=tuple(actions) if playing or view.phase == "over" else (),
        chosen=len(selected),
        tracker=table.options.track_cards,
        voids=tuple(frozenset(v) for v in view.voids()),
        played={suit: tuple(cards) for suit, cards in view.cards_played_by_suit().items()},
        results=view.hand_history,
        target=table.rules.target,
        winners=view.winners,
        sealed=_sealed(table, view),
    )


def revealed_proofs(game: Game) -> tuple[tuple[int, str, str], ...]:
    """Each finished hand's number, seed and commitment (a deal from a key), for the table
    page's 🔐 Verify deal (the DM has no use for them)."""
    return tuple(
        (h.hand_number, proof.seed, proof.commitment)
        for h in game.hand_history
        if (proof := game.deal_proof(h.hand_number)) is not None
    )


def group_screen(table: Table, *, page: bool = False, watchers: int = 0) -> GroupScreen:
    """What the group's table message shows of a game, and its buttons; `page`: whether
    the table page is served (``WEBAPP_URL``); `watchers`: how many people watch it there."""
    game = table.game
    assert game is not None
    # What it needs of the table besides its attributes, read once (as `seat_screen`).
    names, summary = table.names(), rules_summary_part(table)
    if game.phase == "over":  # no hand to play and nothing to pass any more
        header = msg("♥ <b>Hearts</b> · finished after hand {hand}", hand=game.hand_number)
    else:
        header = msg(
            "♥ <b>Hearts</b> · hand {hand} · {direction}",
            hand=game.hand_number,
            direction=Msg(DIRECTIONS[game.pass_direction]),
        )
    lines: list[Part] = [header, Text(summary), ""]
    if game.phase == "over":
        lines.append(
            msg(
                "🏁 <b>Game over!</b> {winners} won.",
                winners=winners(names, game.winners),
            )
        )
    elif game.phase == "pass":
        lines.append(
            Msg(
                PASSING[game.pass_direction],
                {"names": listed(names, game.waiting_for())},
            )
        )
    elif game.phase == "moon":
        assert game.current_player is not None
        lines.append(
            msg(
                "🌕 {name} shot the moon and is choosing.",
                name=Name(names[game.current_player]),
            )
        )
    else:
        if game.trick:
            lines.append(msg("Trick: {cards}", cards=plays(names, game.trick)))
        elif game.tricks:
            lines.append(last_trick_line(names, game.tricks[-1]))
        assert game.current_player is not None
        lines.append(msg("Turn: <b>{name}</b>", name=Name(names[game.current_player])))
        lines.append(hearts_line(game.hearts_broken))
    in_hand = game.phase in ("play", "moon")
    if game.phase == "over":
        title = msg("<b>Final scores</b>")
    elif in_hand:
        title = msg("<b>Scores</b> (this hand's points in brackets)")
    else:
        title = msg("<b>Scores</b>")
    lines += ["", title]
    taken = game.points_taken()
    if game.phase == "over":  # by place, lowest first (a tie shares its place)
        keys = [rank_key(game.rules, total) for total in game.scores]
        for s in sorted(range(len(keys)), key=lambda x: (keys[x], x)):
            place = 1 + sum(k < keys[s] for k in keys)
            final = format_total(game.scores[s])
            lines.append(Joined((f"{place}. ", Name(names[s]), f": {final}"), ""))
    for s, total in enumerate(game.scores if game.phase != "over" else ()):
        marker = "▶ " if game.current_player == s else ""
        this_hand = f" ({format_score(taken[s])})" if in_hand else ""
        lines.append(Joined((marker, Name(names[s]), f": {format_total(total)}{this_hand}"), ""))
    actions: tuple[Button, ...] = ()
    if game.phase != "over":
        lines += ["", msg("Play from your DM with me.")]
        actions = (Button(msg("Open my cards in a DM"), OpenDm()),)
        if page:
            actions += (Button(msg("🃏 Open table"), OpenTable()),)
            if table.options.watching:
                actions += (Button(msg("👀 Watch"), WatchTable()),)
            if watchers:
                lines.append(Joined(("👀", Number(watchers, "whole")), " "))
        proof = game.deal_proof()
        sealed = commitment_line(game)
        if proof is not None and sealed is not None:
            # Sealed before anyone passes; the seed itself only once the hand is over.
            lines.append(sealed)
            actions += (Button(msg("📋 Copy commitment"), CopyText(proof.commitment)),)
    elif table.tournament_id is None:
        # The game is over: the same seats and rules, one press away.
        actions = (Button(msg("🔁 New game"), NewGame(table.id)),)
    return GroupScreen(game=table.id, lines=tuple(lines), actions=actions)


def _sealed(table: Table, view: SeatView) -> Msg | None:
    """The hand's commitment line while it is played (the game is over: its last hand's
    seed was revealed)."""
    return commitment_line(table.game) if table.game and view.phase != "over" else None


def _words(
    table: Table,
    names: tuple[str, ...],
    view: SeatView,
    selected: list[str],
    hint: tuple[Part, ...] | None,
    review: tuple[Button, ...],
    page: bool,
) -> tuple[list[Part], list[tuple[Button, ...]]]:
    """The DM's lines, and the buttons besides the cards (`review`: 🔍 Review and ▶
    Replay, if offered now)."""
    seat = view.seat
    game, hand = table.id, view.hand_number
    lines: list[Part] = [
        msg(
            "♥ <b>Hearts</b> · {chat} · hand {hand}",
            chat=Name(table.chat_title),
            hand=view.hand_number,
        ),
        msg("Scores: {scores}", scores=scores_line(names, view.scores, seat)),
    ]
    removed = OUT_OF_DECK.get(table.rules.players, ())
    if removed and view.phase != "over":
        lines.append(
            msg(
                "Out of the deck this game: {cards}",
                cards=" ".join(c.symbol for c in shown_order(removed)),
            )
        )
    # From the deal on, on the very screen whose buttons pass and play: whoever acts has
    # seen the deal sealed, however late Telegram brings the group's message.
    sealed = _sealed(table, view)
    if sealed is not None:
        lines.append(sealed)
    lines.append("")
    open_table = (Button(msg("🃏 Open table"), OpenTable()),) if page else ()
    actions: list[tuple[Button, ...]] = []
    if view.phase == "over":
        lines.append(
            msg("🏁 <b>Game over.</b> {winners} won.", winners=winners(names, view.winners))
        )
        # The page keeps the final chart: its button stays.
        actions = [row for row in (review, open_table) if row]
        return lines, actions
    history = view.hand_history
    if history and (view.phase == "pass" or (view.phase == "play" and not view.tricks)):
        # Until the next hand's first trick: how the last hand went (who took what, moon).
        previous = history[-1]
        shown = 2 if previous.shooter is not None else 1
        lines.extend(hand_result_lines(names, table.hints_used, previous)[:shown])
        lines.append("")
    shown_hint = ["", *hint] if hint else []
    if view.phase == "pass":
        arrow = ARROWS[view.pass_direction]
        if view.passed is None:
            lines.append(
                msg(
                    "Pass 3 cards {arrow} <b>{name}</b>",
                    arrow=arrow,
                    name=Name(names[view.pass_to]),
                )
            )
            lines.append(msg("Tap 3 cards to choose them, then tap <b>Pass</b>."))
            lines += shown_hint
            label = Joined((arrow, Name(names[view.pass_to])), " ")
            actions.append(
                (
                    Button(
                        msg("Pass {count}/3 {arrow}", count=len(selected), arrow=label),
                        PassCards(game, hand),
                    ),
                )
            )
        else:
            lines.append(
                msg(
                    "You passed {cards}. Waiting for: {names}.",
                    cards=" ".join(c.symbol for c in shown_order(view.passed)),
                    names=listed(names, view.waiting_for),
                )
            )
    else:
        if view.pass_direction == "hold":
            if not view.tricks:
                lines.append(msg("No passing this hand."))
        elif view.received is not None and len(view.tricks) < 1:
            lines.append(
                msg(
                    "You received {cards} from {name} (marked • until the first trick is taken).",
                    cards=Joined(tuple(Strong(c.symbol) for c in shown_order(view.received)), " "),
                    name=Name(names[view.pass_from]),
                )
            )
        number, total = _trick_number(view, seat)
        if view.trick:
            lines.append(
                msg(
                    "Trick {number}/{total}: {cards}",
                    number=number,
                    total=total,
                    cards=plays(names, view.trick),
                )
            )
        elif view.phase != "moon":  # every trick taken: no trick 14 of 13 to wait for
            lines.append(msg("Trick {number}/{total}: —", number=number, total=total))
        if view.current_player == seat and table.deadline is not None:
            # The turn's length, not what is left of it: a DM is not redrawn every second,
            # and Telegram tells no time zone for an "until 18:05". The ⏰ reminder at half
            # time is a message of its own, true when it comes (README, Playing).
            lines.append(
                msg(
                    "⏱ {time} a turn; a ⏰ reminder comes at half time.",
                    time=timer_text(table.options.turn_timer),
                )
            )
        if view.tricks:
            lines.append(last_trick_line(names, view.tricks[-1]))
        lines.append(hearts_line(view.hearts_broken))
        lines.append(msg("This hand: {points}", points=scores_line(names, view.points_taken, seat)))
        lines.append("")
        if view.phase == "moon":
            if view.moon_shooter == seat:
                lines.append(msg("🌕 <b>You shot the moon!</b> Choose:"))
                subtract, add = moon_labels(table.rules)
                actions.append(
                    (
                        Button(subtract, ChooseMoon(game, hand, "subtract")),
                        Button(add, ChooseMoon(game, hand, "add")),
                    )
                )
            else:
                assert view.moon_shooter is not None
                lines.append(
                    msg(
                        "🌕 {name} shot the moon and is choosing…",
                        name=Name(names[view.moon_shooter]),
                    )
                )
        elif view.current_player == seat:
            lines.append(msg("👉 <b>Your turn.</b>"))
            lines += shown_hint
        elif view.current_player is not None:
            lines.append(msg("Waiting for <b>{name}</b>.", name=Name(names[view.current_player])))
    if table.options.track_cards:
        is_open = table.ui.tracker_open.get(seat, False)
        if is_open and view.phase in ("play", "moon"):
            lines += ["", *tracker_lines(names, view)]
        actions.append(
            (
                Button(
                    msg("📋 Hide cards played") if is_open else msg("📋 Cards played"),
                    ToggleTracker(game, hand),
                ),
            )
        )
    coach: tuple[Button, ...] = (
        (Button(msg("💡 Hint"), AskHint(game, hand)),) if hint is not None else ()
    )
    coach += review
    if coach:
        actions.append(coach)
    if open_table:
        actions.append(open_table)
    return lines, actions


def _review(game_id: int, view: SeatView) -> tuple[Button, ...]:
    """🔍 Review and ▶ Replay for the last hand played (at a table that offers reviews:
    `Table.offers_review`), from its end until the next one ends (a replay in a new
    message of the DM); at a tournament's table, once its game is over (a replay waits
    further for the tournament's other tables)."""
    history = view.hand_history
    if not history:
        return ()
    hand = history[-1].hand_number
    replay = Button(msg("▶ Replay"), ReplayHand(game_id, hand, new=True))
    return (Button(msg("🔍 Review hand {hand}", hand=hand), Review(game_id, hand)), replay)


def _status(names: tuple[str, ...], view: SeatView) -> Part:
    """The one line that says what happens now, from this seat."""
    phase, seat = view.phase, view.seat
    if phase == "over":
        return msg("🏁 <b>Game over.</b> {winners} won.", winners=winners(names, view.winners))
    if phase == "pass":
        if view.passed is None:
            return msg(
                "Pass 3 cards {arrow} <b>{name}</b>",
                arrow=ARROWS[view.pass_direction],
                name=Name(names[view.pass_to]),
            )
        return msg(
            "You passed {cards}. Waiting for: {names}.",
            cards=" ".join(c.symbol for c in shown_order(view.passed)),
            names=listed(names, view.waiting_for),
        )
    if phase == "moon":
        if view.moon_shooter == seat:
            return msg("🌕 <b>You shot the moon!</b> Choose:")
        return msg(
            "🌕 {name} shot the moon and is choosing…",
            name=Name(names[view.moon_shooter or 0]),
        )
    if view.current_player == seat:
        return msg("👉 <b>Your turn.</b>")
    return msg("Waiting for <b>{name}</b>.", name=Name(names[view.current_player or 0]))
