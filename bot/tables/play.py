"""Play: a person's presses, and the effects of every move that are the tables' own.

A press becomes a command (`bot.core.commands`) that the core decides and the effect
runner carries out: the move is checked by the engine, stored with the table's state
(`store_move`, durable first), and only then shown; one that cannot be stored leaves the
game as it was. The hand's result, the game's end and the rating are carried out here too.
"""

from __future__ import annotations

import logging
import time

from bot.basics import Person, UserError
from bot.core.commands import (
    ChooseCard,
    Command,
    Deal,
    MakeMove,
    Mover,
    ToggleTracker,
    away_said,
)
from bot.core.decode import ReplayHand
from bot.core.effects import AnnounceHand, FinishGame, StoreDeal, StoreMove, Urgency
from bot.core.runner import Runner
from bot.i18n import NOTHING, Msg, mark, msg
from bot.screens import render
from bot.screens.parts import Name
from bot.screens.screens import Screens
from bot.screens.seat_screen import Button, Words, hand_result_lines
from bot.standings.rating import Ratings
from bot.tables.model import Table
from bot.tables.registry import TableRegistry
from domain.handling import Handling
from engine import Card, Event, Game, IllegalMove, Move
from storage import Journal

log = logging.getLogger(__name__)


class Moves:
    def __init__(
        self,
        registry: TableRegistry,
        screens: Screens,
        ratings: Ratings,
        runner: Runner,
        games: Journal,
    ) -> None:
        self.registry = registry
        self.games = games
        self.screens = screens
        self.ratings = ratings
        self.runner = runner

    async def begin(self, table: Table, game: Game) -> None:
        """Deal: the game is stored as started, and its players get their DMs. In a job of
        the table's mailbox."""
        await self.runner.run(table, Deal(game))

    async def apply(self, table: Table, command: Command) -> list[Event]:
        """Run a move's command; an illegal move changes nothing and is refused in words
        a toast can carry. In a job of the table's mailbox."""
        try:
            outcome = await self.runner.run(table, command)
        except IllegalMove as error:
            raise UserError(refusal(error)) from None
        return outcome.events

    # ------------------------------------------------------------------ effects

    async def store_deal(self, table: Table, effect: StoreDeal) -> None:
        # The table's own state (its seats', who waits to sit) in the same transaction: a
        # deal stored without it would leave storage started while memory, undone, went
        # back to the lobby. Its screens store theirs (`bot.screens.kept`).
        await self.games.start_game(
            table.id, table.stored_seats(), effect.game, table.stored_meta()
        )

    async def store_move(self, table: Table, effect: StoreMove) -> None:
        game = table.game
        assert game is not None
        version = await self.games.record_move(
            table.id,
            effect.move,
            game,
            table.stored_meta(),
            stand_in=effect.stand_in,
            handled=effect.handled,
        )
        self.registry.moved(table.id, version)

    async def announce_hand(self, table: Table, effect: AnnounceHand) -> None:
        game = table.game
        assert game is not None
        result = game.hand_history[effect.hand_number - 1]
        lines = hand_result_lines(table.names(), table.hints_used, result)
        replay = Button(msg("▶ Replay"), ReplayHand(table.id, result.hand_number, new=True))
        proof, copy = render.revealed_short(game, result.hand_number)
        self.screens.announce(table, Words((*lines, *proof), ((replay, *copy),)))

    async def finish(self, table: Table, effect: FinishGame) -> None:
        game = table.game
        assert game is not None
        rated = await self.ratings.changes(table)
        over = render.game_over_lines(table, game.winners, rated)
        self.screens.announce_end(table, Words(tuple(over)))
        for seat, _ in table.humans():
            await self.screens.clear_nudges(table, seat)
        self.registry.forget(table)

    # ------------------------------------------------------------------ presses

    def playing(self, game_id: int, stamp: int, person: Person) -> tuple[Table, int, Game]:
        """The table, seat and game a DM button of hand `stamp` acts on; refuses (with a
        toast) a game that is over, someone else's cards and a button of an earlier hand."""
        table = self.registry.get(game_id)
        if table is None or table.game is None:
            raise UserError(msg("That game is over."))
        seat = table.seat_of(person.id)
        if seat is None:
            raise UserError(msg("These aren't your cards."))
        table.ui.active_at[seat] = time.time()  # playing with the chat open (TurnClock)
        game = table.game
        if not table.phase.dealt or game.phase == "over":
            raise UserError(msg("That game is over."))
        s = table.seats[seat]
        if s is not None and s.away:
            raise UserError(away_said(s))  # why a computer player holds the seat
        if stamp != game.hand_number:
            raise UserError(msg("That button is from an earlier hand."))
        return table, seat, game

    async def press_card(
        self, game_id: int, stamp: int, code: str, person: Person, handled: Handling | None = None
    ) -> Msg:
        """A card pressed: chosen to pass (or unchosen), or played; the answer is the toast.
        `handled`: the Telegram update pressed in, stored with a move it makes (with the
        toast it promises); None on the table page."""

        async def job() -> Msg:
            table, seat, game = self.playing(game_id, stamp, person)
            try:
                card = Card.parse(code)
            except ValueError:
                raise UserError(msg("That button isn't valid any more.")) from None
            if game.phase == "moon":
                shooter = Name(table.name(game.current_player or 0))
                raise UserError(msg("🌕 {name} shot the moon and is choosing…", name=shooter))
            choosing = game.phase == "pass"
            played = msg("Played {card}", card=card.symbol)
            command: Command
            if choosing:
                command = ChooseCard(seat, card, person.on_page)
            else:
                if handled is not None:
                    handled.promise(played)  # the toast, stored with the move
                command = MakeMove(Move.play(seat, card), _mover(person), handled)
            try:
                await self.apply(table, command)
            except UserError:
                if not person.on_page:
                    # Refused (not their turn, a card not allowed): whoever pressed is
                    # looking at their DM, which a card mid-trick did not redraw (issue
                    # 35, item 4): it shows the table as it is now.
                    self.screens.show_dm(table, seat, Urgency.MOVED)
                raise
            if choosing:
                return msg("{count}/3 selected", count=len(table.ui.selections.get(seat, ())))
            return played

        return await self.registry.send(game_id, job)

    async def press_pass(
        self, game_id: int, stamp: int, person: Person, handled: Handling | None = None
    ) -> Msg:
        async def job() -> Msg:
            table, seat, game = self.playing(game_id, stamp, person)
            if game.phase != "pass":
                raise UserError(msg("That button is from an earlier hand."))
            if game.has_passed(seat):
                return msg("Passed. Waiting for the others…")  # a double tap
            chosen = table.ui.selections.get(seat, [])
            if len(chosen) != 3:
                raise UserError(msg("Choose exactly 3 cards first."))
            passed = msg("Passed. Waiting for the others…")
            move = Move.pass_cards(seat, chosen)
            await self._human_move(table, seat, move, person, passed, handled)
            return passed

        return await self.registry.send(game_id, job)

    async def press_moon(
        self, game_id: int, stamp: int, arg: str, person: Person, handled: Handling | None = None
    ) -> Msg:
        async def job() -> Msg:
            table, seat, _ = self.playing(game_id, stamp, person)
            choice = {"s": "subtract_from_shooter", "a": "add_to_others"}.get(arg)
            if choice is None:
                raise UserError(msg("That button isn't valid any more."))
            done = msg("Done!")
            await self._human_move(table, seat, Move.moon(seat, choice), person, done, handled)
            return done

        return await self.registry.send(game_id, job)

    async def toggle_tracker(self, game_id: int, stamp: int, person: Person) -> Msg:
        async def job() -> Msg:
            table = self.registry.get(game_id)
            if table is None or table.game is None:
                raise UserError(msg("That game is over."))
            seat = table.seat_of(person.id)
            if seat is None:
                raise UserError(msg("These aren't your cards."))
            s = table.seats[seat]
            if s is not None and s.away:
                raise UserError(away_said(s))
            await self.runner.run(table, ToggleTracker(seat))
            return NOTHING

        return await self.registry.send(game_id, job)

    async def _human_move(
        self,
        table: Table,
        seat: int,
        move: Move,
        person: Person,
        answer: Msg,
        handled: Handling | None,
    ) -> None:
        """`answer`: what the press gets once the move is stored (stored with it)."""
        if handled is not None:
            handled.promise(answer)
        await self.apply(table, MakeMove(move, _mover(person), handled))


def _mover(person: Person) -> Mover:
    """Who moves when a person presses: on the table page, or in their DM."""
    return Mover.PAGE if person.on_page else Mover.PERSON


REFUSALS: dict[str, str] = {
    "no_moon": mark("Nobody has shot the moon."),
    "already_passed": mark("You have already chosen your cards to pass."),
    "not_a_card": mark("That button isn't valid any more."),
    "pass_three": mark("Choose exactly 3 different cards to pass."),
    "not_in_hand": mark("You don't have {card}."),
    "not_your_turn": mark("It is not your turn."),
    "bad_moon_choice": mark("That button isn't valid any more."),
    "no_such_seat": mark("That button isn't valid any more."),
    "game_over": mark("That game is over."),
    "must_lead_lowest_club": mark("The first trick must be led with {card}."),
    "hearts_not_broken": mark("Hearts are not broken yet."),
    "must_follow_suit": mark("You must follow {suit}."),
    "points_on_first_trick": mark("No hearts and no Q♠ on the first trick."),
}
WRONG_PHASE: dict[str, str] = {
    "pass": mark("Not now: everyone is choosing cards to pass."),
    "play": mark("Not now: cards are being played."),
    "moon": mark("Not now: the moon shooter is choosing."),
    "over": mark("That game is over."),
}


def refusal(error: IllegalMove) -> Msg:
    """What the engine's refusal says, in words a translation can carry."""
    if error.reason == "not_your_turn" and error.details.get("phase") == "moon":
        return msg("Only the player who shot the moon chooses.")
    if error.reason == "wrong_phase":
        phase = error.details.get("phase", "")
        said = WRONG_PHASE.get(phase, WRONG_PHASE["play"])
        return msg(said)
    message = REFUSALS.get(error.reason)
    if message is None:
        log.warning("no words for the engine's refusal %r", error.reason)
        return msg("That move isn't allowed.")
    return msg(message, **error.details)
