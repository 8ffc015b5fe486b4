"""Play: a person's presses and every move, durable in storage before anyone sees it.

A move is checked by the engine, stored with the table's state, and only then shown; one
that cannot be stored leaves the game as it was. Whoever subscribed hears of each move
after it is shown: first the turn clock, then the tournaments.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable

from bot.basics import Person, UserError
from bot.i18n import NOTHING, Msg, Tr, isolated_name, mark, msg
from bot.tables import render
from bot.tables.model import Table
from bot.tables.rating import Ratings
from bot.tables.registry import TableRegistry
from bot.tables.screens import Screens
from bot.tables.seat_screen import Urgency
from engine import (
    Card,
    CardPlayed,
    CardsPassed,
    Event,
    Game,
    GameOver,
    HandResult,
    HandScored,
    IllegalMove,
    MoonShot,
    Move,
)
from storage import handling

log = logging.getLogger(__name__)

Listener = Callable[[Table, list[Event]], Awaitable[None]]
"""Told of every move a table makes (after it is stored and shown), and of its start."""


class Moves:
    def __init__(self, registry: TableRegistry, screens: Screens, ratings: Ratings) -> None:
        self.registry = registry
        self.storage = registry.storage
        self.screens = screens
        self.ratings = ratings
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    async def begin(self, table: Table, game: Game) -> None:
        """Deal: the game is stored as started, and its players get their DMs. Under the
        table's lock."""
        await self.storage.start_game(table.id, table.stored_seats(), game)
        table.game = game
        table.status = "active"
        await self.registry.save(table)
        await self._after(table, [], started=True)

    async def apply(
        self, table: Table, move: Move, *, stand_in: bool = False, on_page: bool = False
    ) -> list[Event]:
        """Make a move, durable before it is shown; an illegal one changes nothing.
        ``stand_in``: a computer player moves for the seat's person (marked in the
        journal). ``on_page``: made on the table page,
        which shows it (the mover's DM catches up later)."""
        game = table.game
        assert game is not None
        before = game.copy()
        try:
            events = move.apply(game)
        except IllegalMove as error:
            raise UserError(refusal(error)) from None
        if move.kind == "pass":
            table.ui.selections.pop(move.seat, None)
        try:
            version = await self.storage.record_move(
                table.id, move, game, table.stored_meta(), stand_in=stand_in
            )
        except Exception:
            table.game = before  # not stored: as if the move was never made
            raise
        self.registry.moved(table.id, version)
        await self._after(table, events, on_page=on_page)
        return events

    async def _after(
        self, table: Table, events: list[Event], started: bool = False, on_page: bool = False
    ) -> None:
        game = table.game
        assert game is not None
        acted = {e.seat for e in events if isinstance(e, CardPlayed | CardsPassed | MoonShot)}
        for event in events:
            if isinstance(event, HandScored):
                result = game.hand_history[event.hand_number - 1]
                self.screens.announce(table, functools.partial(_hand_result, table, result))
            if isinstance(event, GameOver):
                await self._finish(table)
        for seat in acted:
            await self.screens.clear_nudges(table, seat)
        if started:
            for seat, _ in table.humans():
                self.screens.post_dm(table, seat)
            self.screens.show_table(table)
        else:
            self.screens.show_all(table, moved=set() if on_page else acted)
        for listener in self._listeners:
            try:
                await listener(table, events)
            except Exception:
                log.exception("listener failed for game %s", table.id)

    async def _finish(self, table: Table) -> None:
        game = table.game
        assert game is not None
        table.status = "finished"
        winners = game.winners
        rated = await self.ratings.changes(table)

        def over(tr: Tr) -> str:
            names = render.winners_text(tr, table, winners)
            said = tr("🏁 <b>Game over!</b> {winners} won.", winners=names)
            return said if rated is None else f"{said}\n{rated(tr)}"

        self.screens.announce_end(table, over)
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
        game = table.game
        if table.status != "active" or game.phase == "over":
            raise UserError(msg("That game is over."))
        if stamp != game.hand_number:
            raise UserError(msg("That button is from an earlier hand."))
        return table, seat, game

    async def press_card(self, game_id: int, stamp: int, code: str, person: Person) -> Msg:
        async with self.registry.lock(game_id):
            table, seat, game = self.playing(game_id, stamp, person)
            try:
                card = Card.parse(code)
            except ValueError:
                raise UserError(msg("That button isn't valid any more.")) from None
            if game.phase == "pass":
                return self._toggle_selection(table, seat, game, card, person.on_page)
            if game.phase == "moon":
                raise UserError(
                    msg(
                        "🌕 {name} shot the moon and is choosing…",
                        name=isolated_name(table.name(game.current_player or 0)),
                    )
                )
            played = msg("Played {card}", card=card.symbol)
            await self._human_move(table, seat, Move.play(seat, card), person, played)
            return played

    def _toggle_selection(
        self, table: Table, seat: int, game: Game, card: Card, on_page: bool
    ) -> Msg:
        if game.has_passed(seat):
            raise UserError(msg("Passed. Waiting for the others…"))
        if card not in game.hand(seat):
            raise UserError(msg("You don't have {card}.", card=card.symbol))
        chosen = table.ui.selections.setdefault(seat, [])
        if card.code in chosen:
            chosen.remove(card.code)
        elif len(chosen) >= 3:
            raise UserError(msg("3/3 selected — tap one to unselect it."))
        else:
            chosen.append(card.code)
        self.registry.save_soon(table)
        self.screens.show_dm(table, seat, Urgency.SETTLED if on_page else Urgency.PRESSED)
        return msg("{count}/3 selected", count=len(chosen))

    async def press_pass(self, game_id: int, stamp: int, person: Person) -> Msg:
        async with self.registry.lock(game_id):
            table, seat, game = self.playing(game_id, stamp, person)
            if game.phase != "pass":
                raise UserError(msg("That button is from an earlier hand."))
            if game.has_passed(seat):
                return msg("Passed. Waiting for the others…")  # a double tap
            chosen = table.ui.selections.get(seat, [])
            if len(chosen) != 3:
                raise UserError(msg("Choose exactly 3 cards first."))
            passed = msg("Passed. Waiting for the others…")
            await self._human_move(table, seat, Move.pass_cards(seat, chosen), person, passed)
            return passed

    async def press_moon(self, game_id: int, stamp: int, arg: str, person: Person) -> Msg:
        async with self.registry.lock(game_id):
            table, seat, _ = self.playing(game_id, stamp, person)
            choice = {"s": "subtract_from_shooter", "a": "add_to_others"}.get(arg)
            if choice is None:
                raise UserError(msg("That button isn't valid any more."))
            done = msg("Done!")
            await self._human_move(table, seat, Move.moon(seat, choice), person, done)
            return done

    async def toggle_tracker(self, game_id: int, stamp: int, person: Person) -> Msg:
        async with self.registry.lock(game_id):
            table = self.registry.get(game_id)
            seat = table.seat_of(person.id) if table is not None else None
            if table is None or seat is None or table.game is None:
                raise UserError(msg("These aren't your cards."))
            if not table.options.track_cards:
                raise UserError(msg("That button isn't valid any more."))
            table.ui.tracker_open[seat] = not table.ui.tracker_open.get(seat, False)
            self.registry.save_soon(table)
            self.screens.show_dm(table, seat, Urgency.PRESSED)
            return NOTHING

    async def _human_move(
        self, table: Table, seat: int, move: Move, person: Person, answer: Msg
    ) -> None:
        """`answer`: what the press gets once the move is stored (stored with it)."""
        s = table.seats[seat]
        assert s is not None
        if s.away:
            raise UserError(
                msg(
                    "You timed out 3 times in a row, so a computer player holds your seat. "
                    "Send /rejoin to take it back."
                )
            )
        s.timeouts = 0
        table.ui.idle_message_ids.pop(seat, None)  # a next spell of timeouts gets its own
        handling.promise(answer)
        await self.apply(table, move, on_page=person.on_page)


def _hand_result(table: Table, result: HandResult, tr: Tr) -> str:
    return render.hand_result(tr, table, result)


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
