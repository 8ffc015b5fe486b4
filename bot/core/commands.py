"""What can be asked of a table, and what each command does to it.

The adapters (a DM button, the table page, the turn clock, the lobby) build a command; the
runner (`bot.core.runner`) asks it to `decide`: it makes the table's new state as a new
value (the table it is given is never changed), checks every phase it leads to against the
declared transitions (`bot.core.phases`), and says what must follow (the effects,
`bot.core.effects`). It stores nothing and shows nothing: the runner stores the new state,
and only then swaps it in, so a command refused or not stored leaves the table as it was
without an undo: nobody sees a table finished, started or cancelled that storage does not
hold so.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from bot.basics import UserError
from bot.core import phases
from bot.core.decisions import decision_key
from bot.core.effects import (
    AnnounceHand,
    ArmNext,
    AskCoach,
    AskForReview,
    ClearNudges,
    CreateLobby,
    Effect,
    FinishGame,
    Forget,
    PushPages,
    ResendScreen,
    SaveNow,
    SaveSoon,
    ShowAll,
    ShowDeal,
    ShowEnd,
    ShowLobby,
    ShowSeat,
    StoreCancel,
    StoreDeal,
    StoreLobby,
    StoreMove,
    StoreTable,
    TellGroup,
    TellTournament,
    Urgency,
)
from bot.core.phases import Phase
from bot.i18n import Msg, msg
from bot.tables.model import Seat, Table, TableOptions, TableUI, computer, resized
from domain.handling import Handling
from engine import (
    Card,
    CardPlayed,
    CardsPassed,
    Event,
    Game,
    GameOver,
    HandScored,
    MoonShot,
    Move,
    Rules,
)

AWAY = msg(
    "You timed out 3 times in a row, so a computer player holds your seat. Send /rejoin to "
    "take it back."
)
TOURNAMENT_NO_HINT = msg("No hints in a tournament: everyone plays unaided.")
TOURNAMENT_NO_REVIEW = msg("Reviews open when the tournament's game is over.")
DAILY_NO_REVIEW = msg("Reviews of the daily deal open when the day is over.")
AWAY_WHY: dict[str, Msg] = {
    "timeouts": AWAY,
    "left": msg(
        "🚪 You left this game; a computer player holds your seat. Send /rejoin to take it back."
    ),
    "blocked": msg(
        "🤖 A computer player held your seat while I could not message you. Send /rejoin to "
        "take it back."
    ),
    "": msg("🤖 A computer player holds your seat. Send /rejoin to take it back."),
}
"""What a person away from their seat is told, by why (`Seat.away_why`): on their closed
screen, and as the answer to a press there."""


def away_said(seat: Seat) -> Msg:
    """Why a computer player holds `seat` (a person away), in the person's words."""
    return AWAY_WHY.get(seat.away_why, AWAY_WHY[""])


@dataclass
class Outcome:
    """What a command did: the table's new state (`table`: a new value, or the table given
    when nothing of it changes), the engine's events, the effects that must follow, and
    the phases the table goes through (the last is the new state's `phase`)."""

    table: Table
    effects: list[Effect] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    path: list[Phase] = field(default_factory=list)
    answers: dict[type, Any] = field(default_factory=dict)
    """What the handlers of its effects answered, by kind of effect (`bot.core.runner`):
    the coach's hint on its way, a review started."""


class Mover(Enum):
    """Who made a move."""

    PERSON = "person"
    """The seat's person, from a DM button."""
    PAGE = "page"
    """The seat's person, on the table page (which shows it; the DM catches up later)."""
    COMPUTER = "computer"
    """A computer player in its own seat."""
    STAND_IN = "stand_in"
    """A computer player for a person who is away (journaled as a stand-in's move)."""


class Command(ABC):
    """What can be asked of a table. Each command says what it does (`decide`): the runner
    (`bot.core.runner`) asks the command it is given, so a press runs its own decision."""

    @abstractmethod
    def decide(self, table: Table) -> Outcome:
        """The command carried out on `table`: its new state (`table` itself is never
        changed), its effects, the phases it leads to. Raises (`UserError`, the engine's
        `IllegalMove`) when the command is refused."""


@dataclass(frozen=True)
class Deal(Command):
    """Start the lobby's game (its seats are filled): `game` is the dealt game."""

    game: Game

    def decide(self, table: Table) -> Outcome:
        return _deal(table, self.game)


@dataclass(frozen=True)
class OpenLobby(Command):
    """Open a new lobby (the table given, not stored yet, has its rules and options): its
    host sits first if `host_free` (no other table), or waits to sit until they open their
    DM (`host_dm_open`). A rematch (🔁 New game) opens it `like` a finished game's seats:
    its computers keep a seat, and so do its people in `free` (no other table, their DM
    open), in the order they sat."""

    host: int
    host_name: str
    host_free: bool
    host_dm_open: bool
    like: tuple[Seat | None, ...] = ()
    free: frozenset[int] = frozenset()

    def decide(self, table: Table) -> Outcome:
        """A new lobby's first seats: its host's, then (a rematch) the last game's computers and
        free people, in their order; stored before it is shown (the lobby shows it)."""
        if table.phase is not Phase.LOBBY or table.id:
            raise UserError(msg("A game is already in progress here."))
        seats, pending = list(table.seats), dict(table.pending)
        if self.host_free:
            if self.host_dm_open:
                seats[0] = Seat("human", self.host_name, self.host)
            else:
                pending[self.host] = self.host_name
        for s in self.like:
            if s is None or None not in seats:
                continue
            if s.kind == "computer":
                seats[seats.index(None)] = computer(seats, table.options.computer_level)
            elif s.user_id is not None and s.user_id in self.free and s.user_id != self.host:
                seats[seats.index(None)] = Seat("human", s.name, s.user_id)
        lobby = replace(table, seats=seats, pending=pending)
        return Outcome(lobby, [CreateLobby()])


@dataclass(frozen=True)
class Start(Command):
    """The host starts the lobby: every empty seat gets a computer player, whoever still
    waits to sit stops waiting, and `game` is dealt (refused without a person seated)."""

    game: Game

    def decide(self, table: Table) -> Outcome:
        """The lobby's empty seats filled with computer players, then its game dealt; storage
        refusing the deal leaves the lobby as it was (its seats empty, its people waiting)."""
        if table.phase is not Phase.LOBBY:
            raise UserError(msg("A game is already in progress here."))
        if not table.humans():
            raise UserError(msg("At least one person must sit at the table."))
        seats = list(table.seats)
        for n, seat in enumerate(seats):
            if seat is None:
                seats[n] = computer(seats, table.options.computer_level)
        full = replace(table, seats=seats, pending={})
        return _deal(full, self.game)


@dataclass(frozen=True)
class MakeMove(Command):
    """Pass three cards, play a card or choose the moon's scoring."""

    move: Move
    mover: Mover
    handled: Handling | None = field(default=None, compare=False)
    """The Telegram update the move was pressed in (stored with it: `domain.handling`)."""

    def decide(self, table: Table) -> Outcome:
        return _move(table, self)


@dataclass(frozen=True)
class TimeOut(Command):
    """A person's turn timer ran out: a computer player makes `move` for them, the seat
    counts the timeout, and at `limit` timeouts in a row the computer keeps the seat."""

    move: Move
    limit: int

    def decide(self, table: Table) -> Outcome:
        seat = self.move.seat
        s = table.seats[seat]
        if s is None or table.game is None:
            raise UserError(msg("That game is over."))
        s = replace(s, timeouts=s.timeouts + 1)
        if s.timeouts >= self.limit:
            s = replace(s, away=True, away_why="timeouts")
        counted = replace(table, seats=_with(table.seats, seat, s))
        return _move(counted, MakeMove(self.move, Mover.STAND_IN))


@dataclass(frozen=True)
class TakeOver(Command):
    """A computer player holds `seat` until its person sends /rejoin (they left, blocked
    the bot, never showed up); `said`: what the group is told, if anything; `why`: what
    the person's screen, closed, says (`AWAY_WHY`)."""

    seat: int
    said: Msg | None = None
    why: str = ""

    def decide(self, table: Table) -> Outcome:
        s = table.seats[self.seat]
        if s is None or s.kind == "computer" or s.away:
            return Outcome(table)
        held = replace(s, away=True, away_why=self.why)
        effects: list[Effect] = [StoreTable()]
        if self.said is not None:
            effects.append(TellGroup(self.said))
        effects += [ShowAll(), ArmNext()]
        return Outcome(replace(table, seats=_with(table.seats, self.seat, held)), effects)


@dataclass(frozen=True)
class Cancel(Command):
    """End a lobby or a game that will not finish (its host cancelled it, nobody started
    it, its group removed the bot), and what its screens then say: the table's message
    `table`, or how it stopped (`standings`: a lobby cancelled, a game's totals), with a
    rated game's rating changes; its players' screens `told` (people in a lobby have none:
    `tell_lobby` says it in their DMs). Nothing said: its message is left as it is."""

    table: Msg | None = None
    standings: bool = False
    told: Msg | None = None
    tell_lobby: bool = False

    def decide(self, table: Table) -> Outcome:
        """The table ends unfinished: stored as cancelled first, then its people's reminders
        gone, its screens saying so (worded by the closer: `bot.tables.closing`), and the table
        forgotten."""
        if not table.phase.live:
            raise UserError(msg("There's nothing to cancel here."))
        phases.check(table.phase, Phase.CANCELLED)
        end = ShowEnd(self.table, self.standings, self.told, self.tell_lobby)
        effects: list[Effect] = [StoreCancel()]
        effects += [ClearNudges(seat) for seat, _ in table.humans()]
        effects += [end, Forget()]
        return Outcome(replace(table, phase=Phase.CANCELLED), effects, [], [Phase.CANCELLED])


@dataclass(frozen=True)
class Rejoin(Command):
    """A person away from `seat` takes it back from the computer player."""

    seat: int
    said: Msg

    def decide(self, table: Table) -> Outcome:
        seat = self.seat
        s = table.seats[seat]
        if s is None or not s.away or not table.phase.dealt:
            raise UserError(msg("You're not away from any game."))
        back = replace(s, away=False, away_why="", timeouts=0)
        new = replace(table, seats=_with(table.seats, seat, back), ui=_idle_gone(table.ui, seat))
        effects: list[Effect] = [StoreTable(), TellGroup(self.said), ResendScreen(seat), ArmNext()]
        return Outcome(new, effects)


@dataclass(frozen=True)
class ShowAgain(Command):
    """A player's living DM sent anew at the bottom of their chat (``/daily`` resumed)."""

    seat: int

    def decide(self, table: Table) -> Outcome:
        if table.phase is not Phase.DEALT:
            raise UserError(msg("That game is over."))
        return Outcome(table, [ResendScreen(self.seat)])


@dataclass(frozen=True)
class ToggleTracker(Command):
    """Open or close the 📋 cards-played list on a seat's screen."""

    seat: int

    def decide(self, table: Table) -> Outcome:
        seat = self.seat
        if table.game is None or not table.options.track_cards:
            raise UserError(msg("That button isn't valid any more."))
        tracker_open = {**table.ui.tracker_open, seat: not table.ui.tracker_open.get(seat, False)}
        new = replace(table, ui=replace(table.ui, tracker_open=tracker_open))
        return Outcome(new, [SaveSoon(), ShowSeat(seat, Urgency.MOVED)])


@dataclass(frozen=True)
class AskHint(Command):
    """💡 Hint: the coach is asked for the expert's choice at `seat`'s decision now (its
    pass or its turn), unless that hint is on their screen already."""

    seat: int

    def decide(self, table: Table) -> Outcome:
        """The coach asked for the seat's decision now; nothing to ask if its hint is shown."""
        seat = self.seat
        game = table.game
        if game is None or not table.phase.dealt or game.phase == "over":
            raise UserError(msg("That game is over."))
        if table.tournament_id is not None:
            raise UserError(TOURNAMENT_NO_HINT)
        if not table.options.hints:
            raise UserError(msg("Hints are off at this table (⚙ Rules)."))
        key = decision_key(game.view(seat))
        if key is None:
            raise UserError(msg("A hint is for your turn or your pass."))
        if table.ui.hints.get(seat, {}).get("key") == key:
            return Outcome(table)
        return Outcome(table, [AskCoach(seat, key)])


@dataclass(frozen=True)
class GiveHint(Command):
    """The coach's answer to `AskHint` for the decision `key`, in its stored form: shown
    on `seat`'s screen and counted for the hand's result, while that decision is open."""

    seat: int
    key: str
    hint: dict[str, Any]

    def decide(self, table: Table) -> Outcome:
        """The coach's answer shown and counted (kept for every hand of the game: `/scores`
        lists them all), while its decision is open; a second answer (a double tap) is not
        counted again."""
        game, seat, key = table.game, self.seat, self.key
        if game is None or table.phase is not Phase.DEALT:
            raise UserError(msg("That game is over."))
        if decision_key(game.view(seat)) != key:
            raise UserError(msg("Too late: that choice has been made."))
        if table.ui.hints.get(seat, {}).get("key") == key:
            return Outcome(table)
        hints = {**table.ui.hints, seat: {"key": key, **self.hint}}
        counts = dict(table.hints_used.get(game.hand_number, {}))
        counts[seat] = counts.get(seat, 0) + 1
        hints_used = {**table.hints_used, game.hand_number: counts}
        new = replace(table, ui=replace(table.ui, hints=hints), hints_used=hints_used)
        return Outcome(new, [SaveNow(), ShowSeat(seat, Urgency.NOW)])


@dataclass(frozen=True)
class AskReview(Command):
    """🔍 Review: the coach is asked to review `seat`'s choices in `hand`, once it is over
    (at a tournament's table, once its game is)."""

    seat: int
    hand: int

    def decide(self, table: Table) -> Outcome:
        """A hand's review, once the hand is over (at a tournament's table, once its game
        is: nobody reviews while others still play it)."""
        seat, hand = self.seat, self.hand
        if table.daily is not None:
            raise UserError(DAILY_NO_REVIEW)
        if table.tournament_id is not None and table.phase is Phase.DEALT:
            raise UserError(TOURNAMENT_NO_REVIEW)
        game = table.game
        if hand < 1 or (game is not None and hand > game.hand_number):
            raise UserError(msg("There is no hand {hand} in this game.", hand=hand))
        if game is not None and table.phase is Phase.DEALT and hand >= game.hand_number:
            raise UserError(msg("That hand isn't over yet."))
        return Outcome(table, [AskForReview(seat, hand)])


@dataclass(frozen=True)
class ChooseCard(Command):
    """Select (or unselect) a card to pass."""

    seat: int
    card: Card
    on_page: bool = False

    def decide(self, table: Table) -> Outcome:
        game, seat, card = table.game, self.seat, self.card
        if game is None or table.phase is not Phase.DEALT or game.phase != "pass":
            raise UserError(msg("That button is from an earlier hand."))
        if game.has_passed(seat):
            raise UserError(msg("Passed. Waiting for the others…"))
        if card not in game.hand(seat):
            raise UserError(msg("You don't have {card}.", card=card.symbol))
        chosen = list(table.ui.selections.get(seat, []))
        if card.code in chosen:
            chosen.remove(card.code)
        elif len(chosen) >= 3:
            raise UserError(msg("3/3 selected — tap one to unselect it."))
        else:
            chosen.append(card.code)
        selections = {**table.ui.selections, seat: chosen}
        new = replace(table, ui=replace(table.ui, selections=selections))
        urgency = Urgency.EDIT if self.on_page else Urgency.MOVED
        return Outcome(new, [SaveSoon(), ShowSeat(seat, urgency)])


@dataclass(frozen=True)
class Sit(Command):
    """A person takes the lobby's first empty seat (and stops waiting, if they did)."""

    user_id: int
    name: str

    def decide(self, table: Table) -> Outcome:
        return _lobby(table, self)


@dataclass(frozen=True)
class Wait(Command):
    """A person who pressed Join waits to sit until they open their DM with the bot."""

    user_id: int
    name: str

    def decide(self, table: Table) -> Outcome:
        return _lobby(table, self)


@dataclass(frozen=True)
class StopWaiting(Command):
    """A person no longer waits to sit (seated elsewhere, or the table is full)."""

    user_id: int

    def decide(self, table: Table) -> Outcome:
        return _lobby(table, self)


@dataclass(frozen=True)
class Stand(Command):
    """A person leaves the lobby: their seat is emptied, or they stop waiting."""

    user_id: int

    def decide(self, table: Table) -> Outcome:
        return _lobby(table, self)


@dataclass(frozen=True)
class AddComputer(Command):
    """A computer player takes the first empty seat."""

    def decide(self, table: Table) -> Outcome:
        return _lobby(table, self)


@dataclass(frozen=True)
class EmptySeat(Command):
    """The host empties a seat (✖)."""

    seat: int

    def decide(self, table: Table) -> Outcome:
        return _lobby(table, self)


@dataclass(frozen=True)
class SetRules(Command):
    """The host changed the lobby's rules or options (the number of seats too)."""

    rules: Rules
    options: TableOptions

    def decide(self, table: Table) -> Outcome:
        return _lobby(table, self)


LobbyCommand = Sit | Wait | StopWaiting | Stand | AddComputer | EmptySeat | SetRules


def _with(seats: list[Seat | None], number: int, seat: Seat) -> list[Seat | None]:
    """`seats` with `seat` at `number`, as a new list."""
    changed = list(seats)
    changed[number] = seat
    return changed


def _idle_gone(ui: TableUI, seat: int) -> TableUI:
    """`ui` without `seat`'s idle message (a next spell of timeouts gets its own); `ui`
    itself when it has none."""
    if seat not in ui.idle_message_ids:
        return ui
    idle = {n: m for n, m in ui.idle_message_ids.items() if n != seat}
    return replace(ui, idle_message_ids=idle)


def _deal(table: Table, game: Game) -> Outcome:
    first = phases.of_game(game)
    phases.check(table.phase, first)
    effects: list[Effect] = [StoreDeal(game), ShowDeal(), ArmNext()]
    if table.tournament_id is not None:
        effects.append(TellTournament())
    effects.append(PushPages())
    return Outcome(replace(table, game=game, phase=first), effects, [], [first])


def _move(table: Table, command: MakeMove) -> Outcome:
    game = table.game
    if game is None or not table.phase.dealt:
        raise UserError(msg("That game is over."))
    move = command.move
    seat = move.seat
    seats, ui = table.seats, table.ui
    s = seats[seat]
    if command.mover in (Mover.PERSON, Mover.PAGE) and s is not None:
        if s.away:
            raise UserError(away_said(s))
        # A press shows its person is there.
        if s.timeouts:
            seats = _with(seats, seat, replace(s, timeouts=0))
        ui = _idle_gone(ui, seat)
    after = game.copy()
    events = move.apply(after)  # an illegal move raises here, on the copy
    path = _walk(table.phase, after)
    if move.kind == "pass" and seat in ui.selections:
        selections = {n: c for n, c in ui.selections.items() if n != seat}
        ui = replace(ui, selections=selections)
    new = replace(table, seats=seats, ui=ui, game=after, phase=path[-1])
    effects: list[Effect] = [
        StoreMove(move, stand_in=command.mover is Mover.STAND_IN, handled=command.handled)
    ]
    for event in events:
        if isinstance(event, HandScored):
            effects.append(AnnounceHand(event.hand_number))
        if isinstance(event, GameOver):
            effects.append(FinishGame())
    acted = sorted({e.seat for e in events if isinstance(e, CardPlayed | CardsPassed | MoonShot)})
    effects.extend(ClearNudges(n) for n in acted)
    effects.append(ShowAll(frozenset() if command.mover is Mover.PAGE else frozenset(acted)))
    if ui is not table.ui:
        effects.append(SaveSoon())  # its screens' state, stored by them, not with the move
    said = tuple(events)
    effects.append(ArmNext(said))
    if table.tournament_id is not None:
        effects.append(TellTournament(said))
    effects.append(PushPages(said))
    return Outcome(new, effects, events, path)


def _walk(before: Phase, game: Game) -> list[Phase]:
    """Where a move leads a table at `before` (`game`: the game after it), the step
    checked: still dealt (the engine's own phase says what the game waits for), or its
    game finished."""
    after = phases.of_game(game)
    phases.check(before, after)
    return [after]


def _lobby(table: Table, command: LobbyCommand) -> Outcome:
    """A change of a lobby's seats or rules: stored, then shown (a rule change is shown by
    its menu). Refused with the lobby unchanged."""
    if table.phase is not Phase.LOBBY:
        raise UserError(msg("A game is already in progress here."))
    seats, pending = list(table.seats), dict(table.pending)
    rules, options = table.rules, table.options
    match command:
        case Sit(user_id, name):
            if table.seat_of(user_id) is not None:
                raise UserError(msg("You're already at this table."))
            if None not in seats:
                raise UserError(msg("The table is full."))
            seats[seats.index(None)] = Seat("human", name, user_id)
            pending.pop(user_id, None)
        case Wait(user_id, name):
            pending[user_id] = name
        case StopWaiting(user_id):
            pending.pop(user_id, None)
        case Stand(user_id):
            seat = table.seat_of(user_id)
            if seat is not None:
                seats[seat] = None
            elif pending.pop(user_id, None) is None:
                raise UserError(msg("You're not sitting at this table."))
        case AddComputer():
            if None not in seats:
                raise UserError(msg("No empty seat for a computer player."))
            seats[seats.index(None)] = computer(seats, options.computer_level)
        case EmptySeat(seat):
            if not 0 <= seat < len(seats) or seats[seat] is None:
                raise UserError(msg("That button isn't valid any more."))
            seats[seat] = None
        case SetRules(rules, options):
            if len(seats) != rules.players:
                seats = resized(seats, rules.players)
            level = options.computer_level
            seats = [
                replace(s, level=level) if s is not None and s.kind == "computer" else s
                for s in seats
            ]
    if pending == table.pending:
        pending = table.pending
    new = replace(table, seats=seats, rules=rules, options=options, pending=pending)
    if isinstance(command, SetRules):
        return Outcome(new, [StoreLobby()])
    return Outcome(new, [StoreLobby(), ShowLobby()])
