"""Which commands a person may send to a table, by the table's kind and stage: one table.

A button's callback data and a table page's command name a table by its id, and anyone can
forge one. What such a command may do is decided here, once, before anything is loaded
(beyond what tells the table's kind and stage) or changed: what no screen offers at that
kind of table, at that stage, is refused with one sentence. The commands' own checks
(whose turn, which cards, who is host, a stale hand) come after, unchanged.

The stages are the table's phases (`bot.core.phases`: the engine's own phase says, within a
dealt game, whether it is passed, played or a moon chosen, and refuses a move out of
turn)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Protocol

from bot.basics import UserError
from bot.core import commands as core
from bot.core import decode as cb
from bot.core.commands import DAILY_NO_REVIEW, TOURNAMENT_NO_HINT, TOURNAMENT_NO_REVIEW
from bot.core.phases import Phase as Stage
from bot.i18n import Msg, msg
from bot.tables.model import Table
from domain.games import GameStanding

NOT_OFFERED: Final = msg("That button isn't valid any more.")
"""What a command no screen offers is answered (the words of any button that is not, or no
longer, valid: the same in every language, and they tell a forger nothing)."""
REGISTRATION_CLOSED: Final = msg("Registration for this event is closed.")
GAME_OVER: Final = msg("That game is over.")
"""What a move, a pass or a hint asked of a game that has ended is answered: the true reason
its screen no longer applies."""


class Kind(StrEnum):
    """What kind of table: who sits at it, where it is shown, what it leads to."""

    GROUP = "group"
    """A group's own table (three to six seats), opened with /newgame."""
    TWO_PLAYER = "two_player"
    """A group's own table of two-player Hearts (no moon choice: RULES.md §6)."""
    TOURNAMENT = "tournament"
    """A tournament's table: dealt by the tournament, played unaided, never reopened."""
    DAILY = "daily"
    """The daily deal: one person and three computers in the person's DM, played to the end
    or until the day closes."""


class Ask(StrEnum):
    """What a person can ask of a table by naming it (a button, a page's command)."""

    JOIN = "join"
    LEAVE = "leave"
    ADD_COMPUTER = "add_computer"
    RULES = "rules"
    """The rules menu opened or closed."""
    SET_RULE = "set_rule"
    KICK = "kick"
    START = "start"
    CANCEL = "cancel"
    CARD = "card"
    """A card played, or chosen to pass."""
    PASS = "pass"
    MOON = "moon"
    TRACKER = "tracker"
    HINT = "hint"
    REVIEW = "review"
    REPLAY = "replay"
    """A finished hand or a game's hands shown (their own rules say whose and when)."""
    REMATCH = "rematch"
    REGISTER = "register"
    """An entry to a tournament (an event's button, not a table's)."""
    WITHDRAW = "withdraw"


_LOBBY = frozenset(
    {Ask.JOIN, Ask.LEAVE, Ask.ADD_COMPUTER, Ask.RULES, Ask.SET_RULE, Ask.KICK, Ask.START}
    | {Ask.CANCEL}
)
_PLAYED = frozenset({Ask.CARD, Ask.PASS, Ask.MOON, Ask.TRACKER})
_LOOKED_BACK = frozenset({Ask.REVIEW, Ask.REPLAY})
_NONE: Final = frozenset[Ask]()

ACCEPTS: Final[Mapping[Kind, Mapping[Stage, frozenset[Ask]]]] = {
    Kind.GROUP: {
        Stage.LOBBY: _LOBBY,
        Stage.DEALT: _PLAYED | _LOOKED_BACK | {Ask.HINT},
        Stage.FINISHED: _LOOKED_BACK | {Ask.REMATCH},
        Stage.CANCELLED: _LOOKED_BACK,
    },
    Kind.TWO_PLAYER: {
        Stage.LOBBY: _LOBBY,
        Stage.DEALT: (_PLAYED - {Ask.MOON}) | _LOOKED_BACK | {Ask.HINT},
        Stage.FINISHED: _LOOKED_BACK | {Ask.REMATCH},
        Stage.CANCELLED: _LOOKED_BACK,
    },
    Kind.TOURNAMENT: {
        Stage.LOBBY: _NONE,  # dealt by its tournament; nobody sits down or sets rules
        # Unaided, and no hand of it reviewed while other tables may still play it.
        Stage.DEALT: _PLAYED | {Ask.REPLAY},
        Stage.FINISHED: _LOOKED_BACK,
        Stage.CANCELLED: _LOOKED_BACK,
    },
    Kind.DAILY: {
        Stage.LOBBY: _NONE,  # dealt at /daily
        # No hint, no review, no leaving, no cancelling: played to the end, or stopped by
        # the day's close; never reopened (one game a person a day).
        Stage.DEALT: _PLAYED | {Ask.REPLAY},
        Stage.FINISHED: frozenset({Ask.REPLAY}),
        Stage.CANCELLED: frozenset({Ask.REPLAY}),
    },
}
"""Kind → stage → what that table accepts. Everything else is refused (`admit`).

Leaving and cancelling a dealt game are typed (/leave, the host's /cancel): a typed command
names no table (it acts on the chat's own, or the seat of whoever sends it), so it is not
read here; no button offers either once the cards are dealt."""

WHY: Final[Mapping[tuple[Kind, Ask], Msg]] = {
    (Kind.TOURNAMENT, Ask.HINT): TOURNAMENT_NO_HINT,
    (Kind.TOURNAMENT, Ask.REVIEW): TOURNAMENT_NO_REVIEW,
    (Kind.DAILY, Ask.REVIEW): DAILY_NO_REVIEW,
}
"""A refusal that says its reason, where a reader may wonder (an old client's button):
every other is `NOT_OFFERED`."""


EVENT_ACCEPTS: Final[Mapping[bool, frozenset[Ask]]] = {
    True: frozenset({Ask.REGISTER, Ask.WITHDRAW}),
    False: frozenset(),
}
"""A tournament's buttons, by whether its registration is open: once it closes they are
gone (withdrawing from a running event, a forfeit, is typed: ``/event withdraw``)."""

ASKS: Final[Mapping[str, Ask]] = {
    cb.JOIN: Ask.JOIN,
    cb.LEAVE: Ask.LEAVE,
    cb.ADD_COMPUTER: Ask.ADD_COMPUTER,
    cb.RULES: Ask.RULES,
    cb.BACK: Ask.RULES,
    cb.SET_RULE: Ask.SET_RULE,
    cb.KICK: Ask.KICK,
    cb.START: Ask.START,
    cb.CANCEL: Ask.CANCEL,
    cb.CARD: Ask.CARD,
    cb.PASS: Ask.PASS,
    cb.MOON: Ask.MOON,
    cb.TRACKER: Ask.TRACKER,
    cb.HINT: Ask.HINT,
    cb.REVIEW: Ask.REVIEW,
    cb.REPLAY_GAME: Ask.REPLAY,
    cb.REPLAY_HAND: Ask.REPLAY,
    cb.REMATCH: Ask.REMATCH,
}
"""What each button that names a table asks of it (`bot.core.decode`'s actions): every
other action names a tournament, a day or a chat. Declared here, not beside the buttons:
the screens make `bot.core.decode`'s values, and `decode` importing this module (which
reads the table's model, which names a screen's `Words`) would close an import cycle."""
EVENT_ASKS: Final[Mapping[str, Ask]] = {
    cb.TOURNAMENT_REGISTER: Ask.REGISTER,
    cb.TOURNAMENT_WITHDRAW: Ask.WITHDRAW,
}
"""What a tournament's buttons ask of it (`EVENT_ACCEPTS`)."""
SEAT_ASKS: Final[Mapping[type[cb.SeatCommand], Ask]] = {
    cb.TapCard: Ask.CARD,
    cb.PassCards: Ask.PASS,
    cb.ChooseMoon: Ask.MOON,
    cb.AskHint: Ask.HINT,
}
"""What each of a seat's commands (a DM's button or the page's) asks of its table."""


@dataclass(frozen=True)
class Standing:
    """What tells a table's kind and stage, and nothing more."""

    kind: Kind
    stage: Stage


def kind_of(tournament_id: int | None, daily: int | None, variant: str) -> Kind:
    """A table's kind, from what it was made as."""
    if daily is not None:
        return Kind.DAILY
    if tournament_id is not None:
        return Kind.TOURNAMENT
    return Kind.TWO_PLAYER if variant == "two_player" else Kind.GROUP


def stage_stored(status: str) -> Stage | None:
    """The stage of a table as storage says (``games.status``) of a table that is no longer
    live; None for one that is (it is the registry's) or a game set aside."""
    return {"finished": Stage.FINISHED, "cancelled": Stage.CANCELLED}.get(status)


def accepts(standing: Standing, ask: Ask) -> bool:
    return ask in ACCEPTS[standing.kind][standing.stage]


def admit(standing: Standing | None, ask: Ask) -> None:
    """Refuse (`UserError`, one sentence) what the table does not accept; None: no such
    table (or none this bot serves)."""
    if standing is None:
        raise UserError(NOT_OFFERED)
    if not accepts(standing, ask):
        ended = standing.stage in (Stage.FINISHED, Stage.CANCELLED)
        if ended and ask in _PLAYED | {Ask.HINT}:
            raise UserError(GAME_OVER)
        raise UserError(WHY.get((standing.kind, ask), NOT_OFFERED))


def of_table(table: Table) -> Standing:
    """A table's standing, as the bot keeps it."""
    kind = kind_of(table.tournament_id, table.daily, table.rules.variant)
    return Standing(kind, table.phase)


def of_stored(stored: GameStanding) -> Standing | None:
    """A stored table's standing, once it is no longer live (None while it is: only the
    bot that keeps it knows where it is)."""
    stage = stage_stored(stored.status)
    if stage is None:
        return None
    return Standing(kind_of(stored.tournament_id, stored.daily, stored.variant), stage)


class StoredStandings(Protocol):
    """Where an ended table's standing is read (`storage.Journal`)."""

    async def standing(self, game_id: int) -> GameStanding | None: ...


async def standing_of(
    game_id: int, live: Mapping[int, Table], stored: StoredStandings
) -> Standing | None:
    """A table's standing: a live table's as the bot keeps it, an ended one's as stored
    (its row alone); None for no table this bot can act on."""
    table = live.get(game_id)
    if table is not None:
        return of_table(table)
    found = await stored.standing(game_id)
    return None if found is None else of_stored(found)


def asked(command: core.Command) -> Ask | None:
    """What a person asks of a table with `command`, for the runner to `admit` before it
    decides (`bot.core.runner`), whichever way it came (a button, the page, a typed
    command); None for what the bot itself does (deals, timeouts, computers' moves, the
    coach's answers, take-overs, cancels), whose own rules are their command's."""
    match command:
        case core.MakeMove(move, mover) if mover in (core.Mover.PERSON, core.Mover.PAGE):
            return {"play": Ask.CARD, "pass": Ask.PASS, "moon": Ask.MOON}[move.kind]
        case core.ChooseCard():
            return Ask.CARD
        case core.ToggleTracker():
            return Ask.TRACKER
        case core.AskHint():
            return Ask.HINT
        case core.AskReview():
            return Ask.REVIEW
        case core.Sit() | core.Wait():
            return Ask.JOIN
        case core.AddComputer():
            return Ask.ADD_COMPUTER
        case core.EmptySeat():
            return Ask.KICK
        case core.SetRules():
            return Ask.SET_RULE
        case core.Start():
            return Ask.START
    return None


def admit_command(table: Table, command: core.Command) -> None:
    """Refuse (`UserError`) what a person asks with `command` that `table` does not accept
    at its stage: read by the runner before every `decide`."""
    ask = asked(command)
    if ask is not None:
        admit(of_table(table), ask)


def admit_event(registration_open: bool, ask: Ask) -> None:
    """Refuse (`UserError`) a tournament's button its message no longer shows."""
    if ask not in EVENT_ACCEPTS[registration_open]:
        raise UserError(REGISTRATION_CLOSED if ask is Ask.REGISTER else NOT_OFFERED)
