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
line, behind every computer player's move: `bot.computers.thinker`), and a clear answer
when that is full. A hint the pool cannot start within `HINT_WAIT_S` says it is too busy
(`TOO_BUSY`) rather than arriving late.
"""

from __future__ import annotations

import asyncio
import logging

from bot.basics import Person, UserError
from bot.computers.coach_words import hint_to_dict, review_lines
from bot.computers.thinker import Thinker, TooBusy
from bot.core.commands import AskHint, AskReview, GiveHint, Outcome
from bot.core.effects import AskCoach, AskForReview, SaveNow
from bot.flood import CommandLimiter, Verdict
from bot.i18n import Msg, msg
from bot.screens.screens import Screens
from bot.screens.seat_screen import Words
from bot.tables.model import Table
from bot.tables.play import Moves
from bot.tables.registry import TableRegistry
from engine.cards import shown_order
from engine.coach import HINT_BUDGET_MS, REVIEW_BUDGET_MS, Finding, Hint, hand_decisions
from storage import Journal
from storage.errors import StorageError

log = logging.getLogger(__name__)

HINTS_AT_ONCE = 8
"""Hints being thought out at once (one per decision), across every table."""
REVIEWS_AT_ONCE = 6
"""Reviews being thought out at once, across every table."""
TOO_FAST = msg("You're pressing the coach's buttons too fast. Try again in a few seconds.")
BUSY = msg("The coach is busy with other players just now. Try again in a few seconds.")
TOO_BUSY = msg("💡 Too busy to think about a hint right now. Try again in a moment.")


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
        """💡 Hint through the core: `AskHint` (the coach thinks in the worker pool, outside
        the table's mailbox; a second press on the same decision waits for the same answer),
        then the answer as `GiveHint`, shown if the decision is still open."""
        self._limit(person)

        async def ask_hint() -> tuple[int, Outcome]:
            table, seat, _ = self.moves.playing(game_id, stamp, person)
            return seat, await self.moves.runner.run(table, AskHint(seat))

        seat, outcome = await self.registry.send(game_id, ask_hint)
        asked: tuple[str, asyncio.Future[Hint]] | None = outcome.answers.get(AskCoach)
        if asked is None:
            return msg("💡 The hint is above your cards.")
        key, flight = asked
        # Shielded: one presser giving up does not cancel the others' answer.
        try:
            found = await asyncio.shield(flight)
        except TooBusy:
            raise UserError(TOO_BUSY) from None

        async def give_hint() -> Msg:
            now = self.registry.get(game_id)
            if now is None:
                raise UserError(msg("That game is over."))
            given = GiveHint(seat, key, hint_to_dict(found))
            await self.moves.runner.run(now, given)
            cards = " ".join(c.symbol for c in shown_order(found.best.cards))
            return msg("💡 {cards}", cards=cards)

        return await self.registry.send(game_id, give_hint)

    async def ask(self, table: Table, effect: AskCoach) -> tuple[str, asyncio.Future[Hint]]:
        """`AskCoach`: the decision asked about and its hint on its way (the caller of
        `AskHint` reads them from its `Outcome.answers`)."""
        return effect.key, self._think(table, effect)

    def _think(self, table: Table, effect: AskCoach) -> asyncio.Future[Hint]:
        """The hint for a decision, thought out in the worker pool, or the one already
        being thought out for it."""
        job = (table.id, effect.seat, effect.key)
        flight = self._hinting.get(job)
        if flight is None:
            if len(self._hinting) >= self.hints_at_once:
                raise UserError(BUSY)
            assert table.game is not None
            view = table.game.view(effect.seat)
            seed = table.id * 7919 + effect.seat
            flight = asyncio.ensure_future(self.thinker.hint(seed, view, HINT_BUDGET_MS))
            self._hinting[job] = flight
            flight.add_done_callback(lambda _: self._hinting.pop(job, None))
        return flight

    async def save_now(self, table: Table, _: SaveNow) -> None:
        """A hint's count is as much the game's record as its moves: stored at once (the
        hint shown is its screens', stored soon)."""
        self.screens.kept.save_soon(table)
        try:
            await self.registry.save(table)
        except Exception:  # the hint stands; the next move stores the count
            log.exception("could not store the hint count of game %s", table.id)
            self.registry.save_soon(table)

    # ------------------------------------------------------------------ reviews

    async def review(self, game_id: int, hand: int, person: Person) -> Msg:
        """Start the review of `hand` for the person's seat (`AskReview` through the
        core); it follows in their DM."""
        self._limit(person)
        live = self.registry.get(game_id)
        try:
            stored = await self.games.load_game(game_id, verify=False)
        except StorageError:
            raise UserError(msg("That game is over.")) from None
        seat = stored.seat_of(person.id)
        if seat is None:
            raise UserError(msg("These aren't your cards."))
        # The live table while it is played (its hand may be ahead of storage's), else as
        # stored: the review reads the journal either way.
        table = live if live is not None and live.game is not None else Table.from_stored(stored)
        outcome = await self.moves.runner.run(table, AskReview(seat, hand))
        answer: Msg = outcome.answers[AskForReview]
        return answer

    async def start_review(self, table: Table, effect: AskForReview) -> Msg:
        """`AskForReview`: the review starts, and follows in the seat's person's DM; what
        the press is answered (the caller of `AskReview` reads it from `Outcome.answers`)."""
        seat = table.seats[effect.seat]
        assert seat is not None and seat.user_id is not None
        job = (table.id, effect.seat, effect.hand)
        hand = job[2]
        if job in self._reviewing:
            return msg("🔍 Still thinking about hand {hand}…", hand=hand)
        if len(self._reviewing) >= self.reviews_at_once:
            raise UserError(BUSY)
        self._reviewing.add(job)
        self.screens.background.spawn(self._review(job, seat.user_id))
        return msg("🔍 Reviewing hand {hand}…", hand=hand)

    async def _review(self, job: tuple[int, int, int], user_id: int) -> None:
        game_id, seat, hand = job
        try:
            start, moves = await self.games.game_and_moves(game_id)
            names = await self._names(game_id)
            decisions = hand_decisions(start, moves, seat, hand)
            findings = await self.thinker.review(game_id * 7919 + seat, decisions, REVIEW_BUDGET_MS)
        except Exception:
            log.exception("review of game %s, seat %s, hand %s", game_id, seat, hand)
            self.screens.tell(user_id, msg("Something went wrong; please try again."))
            return
        finally:
            self._reviewing.discard(job)
        review = review_lines(names, hand, bool(decisions), findings)
        self.screens.tell(user_id, Words(tuple(review)))

    async def findings(self, game_id: int, seat: int, hand: int) -> tuple[bool, list[Finding]]:
        """The review of a finished hand of a seat, as data (the table page's replay marks
        the cards where it found a loss): whether the seat decided anything itself, and the
        findings, thought out in the worker pool like a DM's review; `BUSY` when full."""
        job = (game_id, seat, hand)
        if job in self._reviewing or len(self._reviewing) >= self.reviews_at_once:
            raise UserError(BUSY)
        self._reviewing.add(job)
        try:
            start, moves = await self.games.game_and_moves(game_id)
            decisions = hand_decisions(start, moves, seat, hand)
            seed = game_id * 7919 + seat
            return bool(decisions), await self.thinker.review(seed, decisions, REVIEW_BUDGET_MS)
        finally:
            self._reviewing.discard(job)

    async def _names(self, game_id: int) -> list[str]:
        table = self.registry.get(game_id)
        if table is not None:
            return [table.name(s) for s in range(len(table.seats))]
        stored = await self.games.load_game(game_id, verify=False)
        return [s.display_name for s in stored.seats]
