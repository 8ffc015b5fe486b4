"""Play: a person's presses and every move, durable in storage before anyone sees it.

A move is checked by the engine, stored with the table's state, and only then shown; one
that cannot be stored leaves the game as it was. Whoever subscribed hears of each move
after it is shown: first the turn clock, then the tournaments.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from bot.basics import Person, UserError
from bot.tables import render
from bot.tables.model import Table
from bot.tables.registry import TableRegistry
from bot.tables.screens import Screens
from bot.telegram.pace import MOVED
from bot.texts import t
from engine import (
    Card,
    CardPlayed,
    CardsPassed,
    Event,
    Game,
    GameOver,
    HandScored,
    IllegalMove,
    MoonShot,
    Move,
)

log = logging.getLogger(__name__)

Listener = Callable[[Table, list[Event]], Awaitable[None]]
"""Told of every move a table makes (after it is stored and shown), and of its start."""


class Moves:
    def __init__(self, registry: TableRegistry, screens: Screens) -> None:
        self.registry = registry
        self.storage = registry.storage
        self.screens = screens
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

    async def apply(self, table: Table, move: Move) -> list[Event]:
        """Make a move, durable before it is shown; an illegal one changes nothing."""
        game = table.game
        assert game is not None
        before = game.copy()
        try:
            events = move.apply(game)
        except IllegalMove as error:
            raise UserError(error.message) from None
        if move.kind == "pass":
            table.ui.selections.pop(move.seat, None)
        try:
            version = await self.storage.record_move(table.id, move, game, table.stored_meta())
        except Exception:
            table.game = before  # not stored: as if the move was never made
            raise
        self.registry.moved(table.id, version)
        await self._after(table, events)
        return events

    async def _after(self, table: Table, events: list[Event], started: bool = False) -> None:
        game = table.game
        assert game is not None
        acted = {e.seat for e in events if isinstance(e, CardPlayed | CardsPassed | MoonShot)}
        for event in events:
            if isinstance(event, HandScored):
                result = game.hand_history[event.hand_number - 1]
                self.screens.announce(table, render.hand_result(table, result))
            if isinstance(event, GameOver):
                await self._finish(table)
        for seat in acted:
            await self.screens.clear_nudges(table, seat)
        if started:
            for seat, _ in table.humans():
                self.screens.post_dm(table, seat)
            self.screens.show_table(table)
        else:
            self.screens.show_all(table, moved=acted)
        for listener in self._listeners:
            try:
                await listener(table, events)
            except Exception:
                log.exception("listener failed for game %s", table.id)

    async def _finish(self, table: Table) -> None:
        game = table.game
        assert game is not None
        table.status = "finished"
        self.screens.announce_end(
            table, t("table.over", winners=render.winners_text(table, game.winners))
        )
        for seat, _ in table.humans():
            await self.screens.clear_nudges(table, seat)
        self.registry.forget(table)

    # ------------------------------------------------------------------ presses

    def _playing(self, game_id: int, stamp: int, person: Person) -> tuple[Table, int, Game]:
        table = self.registry.get(game_id)
        if table is None or table.game is None:
            raise UserError(t("toast.game_over"))
        seat = table.seat_of(person.id)
        if seat is None:
            raise UserError(t("toast.not_your_game"))
        game = table.game
        if table.status != "active" or game.phase == "over":
            raise UserError(t("toast.game_over"))
        if stamp != game.hand_number:
            raise UserError(t("toast.stale"))
        return table, seat, game

    async def press_card(self, game_id: int, stamp: int, code: str, person: Person) -> str:
        async with self.registry.lock(game_id):
            table, seat, game = self._playing(game_id, stamp, person)
            try:
                card = Card.parse(code)
            except ValueError:
                raise UserError(t("toast.unknown_button")) from None
            if game.phase == "pass":
                return self._toggle_selection(table, seat, game, card)
            if game.phase == "moon":
                raise UserError(t("dm.moon_waiting", name=table.name(game.current_player or 0)))
            await self._human_move(table, seat, Move.play(seat, card))
            return t("toast.played", card=card.symbol)

    def _toggle_selection(self, table: Table, seat: int, game: Game, card: Card) -> str:
        if game.has_passed(seat):
            raise UserError(t("toast.passed"))
        if card not in game.hand(seat):
            raise UserError(t("toast.not_in_hand", card=card.symbol))
        chosen = table.ui.selections.setdefault(seat, [])
        if card.code in chosen:
            chosen.remove(card.code)
        elif len(chosen) >= 3:
            raise UserError(t("toast.unselect_first"))
        else:
            chosen.append(card.code)
        self.registry.save_soon(table)
        self.screens.show_dm(table, seat, MOVED)
        return t("toast.selected", count=len(chosen))

    async def press_pass(self, game_id: int, stamp: int, person: Person) -> str:
        async with self.registry.lock(game_id):
            table, seat, game = self._playing(game_id, stamp, person)
            if game.phase != "pass":
                raise UserError(t("toast.stale"))
            chosen = table.ui.selections.get(seat, [])
            if len(chosen) != 3:
                raise UserError(t("toast.choose_three"))
            await self._human_move(table, seat, Move.pass_cards(seat, chosen))
            return t("toast.passed")

    async def press_moon(self, game_id: int, stamp: int, arg: str, person: Person) -> str:
        async with self.registry.lock(game_id):
            table, seat, _ = self._playing(game_id, stamp, person)
            choice = {"s": "subtract_from_shooter", "a": "add_to_others"}.get(arg)
            if choice is None:
                raise UserError(t("toast.unknown_button"))
            await self._human_move(table, seat, Move.moon(seat, choice))
            return t("toast.moon_chosen")

    async def toggle_tracker(self, game_id: int, stamp: int, person: Person) -> str:
        async with self.registry.lock(game_id):
            table = self.registry.get(game_id)
            seat = table.seat_of(person.id) if table is not None else None
            if table is None or seat is None or table.game is None:
                raise UserError(t("toast.not_your_game"))
            if not table.options.track_cards:
                raise UserError(t("toast.unknown_button"))
            table.ui.tracker_open[seat] = not table.ui.tracker_open.get(seat, False)
            self.registry.save_soon(table)
            self.screens.show_dm(table, seat, MOVED)
            return ""

    async def _human_move(self, table: Table, seat: int, move: Move) -> None:
        s = table.seats[seat]
        assert s is not None
        if s.away:
            raise UserError(t("dm.away"))
        s.timeouts = 0
        table.ui.idle_message_ids.pop(seat, None)  # a next spell of timeouts gets its own
        await self.apply(table, move)
