"""The coach in every DM: 💡 Hint (the `expert`'s choice and why) and 🔍 Review (a hand's
costliest choices). `engine.coach` does the thinking in the computer players' pool, from
what the person's own view shows; this module checks the press, keeps the hint on the
person's screen until they move, counts hints for the hand's results, and words it all.

A hint never plays: the person still taps the card. A review is rebuilt from the stored
journal, so it works after the game is over and after a restart.

Nobody can flood the worker pool through the coach: one job per decision at a time (a
second 💡 press on the same decision waits for the first's answer), each person's presses
limited as commands are (`CommandLimiter`), at most `HINTS_AT_ONCE` hints and
`REVIEWS_AT_ONCE` reviews being thought out (each with at most one job in the pool's
line, behind every computer player's move: `bot.tables.thinker`), and a clear answer
when that is full.
"""

from __future__ import annotations

import asyncio
import logging

from bot.basics import Person, UserError
from bot.core.effects import Urgency
from bot.i18n import Msg, msg
from bot.tables.coach_words import decision_key, hint_to_dict, review_lines
from bot.tables.play import Moves
from bot.tables.registry import TableRegistry
from bot.tables.screens import Screens
from bot.tables.seat_screen import Words
from bot.tables.thinker import Thinker
from bot.telegram.flood import CommandLimiter, Verdict
from engine.coach import HINT_BUDGET_MS, REVIEW_BUDGET_MS, Hint, hand_decisions
from storage import Journal
from storage.errors import StorageError

log = logging.getLogger(__name__)

HINTS_AT_ONCE = 8
"""Hints being thought out at once (one per decision), across every table."""
REVIEWS_AT_ONCE = 6
"""Reviews being thought out at once, across every table."""
TOO_FAST = msg("You're pressing the coach's buttons too fast. Try again in a few seconds.")
BUSY = msg("The coach is busy with other players just now. Try again in a few seconds.")


class Coach:
    def __init__(
        self,
        registry: TableRegistry,
        screens: Screens,
        moves: Moves,
        thinker: Thinker,
        games: Journal,
    ) -> None:
        self.registry = registry
        self.games = games
        self.screens = screens
        self.moves = moves
        self.thinker = thinker
        self.hints_at_once = HINTS_AT_ONCE
        self.reviews_at_once = REVIEWS_AT_ONCE
        self.limiter = CommandLimiter()
        """Each person's presses of 💡 and 🔍, limited as their commands are."""
        self._hinting: dict[tuple[int, int, str], asyncio.Future[Hint]] = {}
        """(game, seat, decision) of the hints being thought out: a second press waits for
        the same answer."""
        self._reviewing: set[tuple[int, int, int]] = set()
        """(game, seat, hand) of the reviews being thought out: a second press waits."""

    def _limit(self, person: Person) -> None:
        if self.limiter.check(person.id) is not Verdict.ALLOW:
            raise UserError(TOO_FAST)

    # ------------------------------------------------------------------ hints

    async def hint(self, game_id: int, stamp: int, person: Person) -> Msg:
        self._limit(person)
        async with self.registry.lock(game_id):
            table, seat, game = self.moves.playing(game_id, stamp, person)
            if table.tournament_id is not None:
                raise UserError(msg("No hints in a tournament: everyone plays unaided."))
            if not table.options.hints:
                raise UserError(msg("Hints are off at this table (⚙ Rules)."))
            view = game.view(seat)
            key = decision_key(view)
            if key is None:
                raise UserError(msg("A hint is for your turn or your pass."))
            if table.ui.hints.get(seat, {}).get("key") == key:
                return msg("💡 The hint is above your cards.")
            job = (game_id, seat, key)
            flight = self._hinting.get(job)
            if flight is None:
                if len(self._hinting) >= self.hints_at_once:
                    raise UserError(BUSY)
                seed = table.id * 7919 + seat
                flight = asyncio.ensure_future(self.thinker.hint(seed, view, HINT_BUDGET_MS))
                self._hinting[job] = flight
                flight.add_done_callback(lambda _: self._hinting.pop(job, None))
        # Shielded: one presser giving up does not cancel the others' answer.
        found = await asyncio.shield(flight)
        async with self.registry.lock(game_id):
            now = self.registry.get(game_id)
            if now is None or now.game is None or now.status != "active":
                raise UserError(msg("That game is over."))
            table = now
            if decision_key(now.game.view(seat)) != key:
                raise UserError(msg("Too late: that choice has been made."))
            if table.ui.hints.get(seat, {}).get("key") != key:  # not a double tap
                table.ui.hints[seat] = {"key": key, **hint_to_dict(found)}
                # Kept for every hand of the game (/scores lists them all) and stored at
                # once: a count is as much the game's record as its moves.
                counts = table.ui.hints_used.setdefault(view.hand_number, {})
                counts[seat] = counts.get(seat, 0) + 1
                try:
                    await self.registry.save(table)
                except Exception:  # the hint stands; the next move stores the count
                    log.exception("could not store the hint count of game %s", table.id)
                    self.registry.save_soon(table)
                self.screens.show_dm(table, seat, Urgency.NOW)
            return msg("💡 {cards}", cards=" ".join(c.symbol for c in found.best.cards))

    # ------------------------------------------------------------------ reviews

    async def review(self, game_id: int, hand: int, person: Person) -> Msg:
        """Start the review of `hand` for the person's seat; it follows in their DM."""
        self._limit(person)
        table = self.registry.get(game_id)
        try:
            stored = await self.games.load_game(game_id, verify=False)
        except StorageError:
            raise UserError(msg("That game is over.")) from None
        seat = stored.seat_of(person.id)
        if seat is None:
            raise UserError(msg("These aren't your cards."))
        if stored.tournament_id is not None and stored.status == "active":
            raise UserError(msg("Reviews open when the tournament's game is over."))
        live = table.game if table is not None and table.game is not None else stored.game
        if hand < 1 or (live is not None and hand > live.hand_number):
            raise UserError(msg("There is no hand {hand} in this game.", hand=hand))
        if live is not None and stored.status == "active" and hand >= live.hand_number:
            raise UserError(msg("That hand isn't over yet."))
        job = (game_id, seat, hand)
        if job in self._reviewing:
            return msg("🔍 Still thinking about hand {hand}…", hand=hand)
        if len(self._reviewing) >= self.reviews_at_once:
            raise UserError(BUSY)
        self._reviewing.add(job)
        self.screens.background.spawn(self._review(job, person))
        return msg("🔍 Reviewing hand {hand}…", hand=hand)

    async def _review(self, job: tuple[int, int, int], person: Person) -> None:
        game_id, seat, hand = job
        try:
            start, moves = await self.games.game_and_moves(game_id)
            names = await self._names(game_id)
            decisions = hand_decisions(start, moves, seat, hand)
            findings = await self.thinker.review(game_id * 7919 + seat, decisions, REVIEW_BUDGET_MS)
        except Exception:
            log.exception("review of game %s, seat %s, hand %s", game_id, seat, hand)
            self.screens.tell(person.id, msg("Something went wrong; please try again."))
            return
        finally:
            self._reviewing.discard(job)
        review = review_lines(names, hand, bool(decisions), findings)
        self.screens.tell(person.id, Words(tuple(review)))

    async def _names(self, game_id: int) -> list[str]:
        table = self.registry.get(game_id)
        if table is not None:
            return [table.name(s) for s in range(len(table.seats))]
        stored = await self.games.load_game(game_id, verify=False)
        return [s.display_name for s in stored.seats]
