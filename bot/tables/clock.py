"""The turn clock: what comes next at a table, and when.

After every move (it is the first to hear of one) it arms a computer player's move, or a
person's turn timer with its "your turn" nudge and half-time reminder. When a timer runs
out a computer player moves for the late person, and after a few timeouts in a row holds
their seat until they ``/rejoin``.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable
from dataclasses import replace
from typing import NamedTuple

from bot.chats import Chats, Sentence
from bot.computers.thinker import DAILY_LEVEL, Thinker
from bot.core.commands import AWAY, MakeMove, Mover, TimeOut
from bot.core.effects import ArmNext
from bot.i18n import Msg, msg
from bot.screens.parts import Name
from bot.screens.screens import Screens
from bot.tables.config import ENGAGED_S, TablesConfig
from bot.tables.model import Seat, Table
from bot.tables.play import Moves
from bot.tables.registry import TableRegistry
from bot.timers import Scheduler
from engine import Game, Move, SeatView, daily
from ratings import STAND_IN_LEVEL


class TimerTrouble:
    """Tells a table's people when its timers cannot save their moves, and when they can
    again: what the tables' `Scheduler` is given to report a timer's storage errors with,
    built before it (and before the `TurnClock` that arms on it)."""

    def __init__(self, registry: TableRegistry, screens: Screens) -> None:
        self.registry = registry
        self.screens = screens
        self._troubled: set[int] = set()
        """Tables told that their moves cannot be saved just now."""

    async def tell(self, name: str, failing: bool) -> None:
        """A table's timer met a storage error (or went through again): its people are
        told once that the game waits, and once that it goes on."""
        _, _, tail = name.rpartition(":")
        table = self.registry.get(int(tail)) if tail.isdigit() else None
        if table is None or failing == (table.id in self._troubled):
            return
        if failing:
            self._troubled.add(table.id)
            said = msg(
                "⚠ I can't save moves right now, so this game waits. It goes on by itself "
                "as soon as I can."
            )
        else:
            self._troubled.discard(table.id)
            said = msg("✅ Saving works again: the game goes on.")
        if table.in_group:
            self.screens.announce(table, said)
        else:
            for _, s in table.humans():
                if s.user_id is not None and not s.away:
                    self.screens.tell(s.user_id, said)

    def forget(self, table_id: int) -> None:
        """The table ended: nothing more is said of its timers."""
        self._troubled.discard(table_id)


class TurnClock:
    def __init__(
        self,
        registry: TableRegistry,
        screens: Screens,
        moves: Moves,
        scheduler: Scheduler,
        thinker: Thinker,
        config: TablesConfig,
        chats: Chats,
        trouble: TimerTrouble,
    ) -> None:
        """`trouble`: what the scheduler tells of a timer's storage errors, told when a
        table ends."""
        self.registry = registry
        self.screens = screens
        self.chats = chats
        self.moves = moves
        self.scheduler = scheduler
        self.thinker = thinker
        self.config = config
        self.trouble = trouble
        self._thinking: set[int] = set()
        """Tables one of whose computers is thinking (outside the table's mailbox)."""

    async def arm_next(self, table: Table, _: ArmNext) -> None:
        """A table moved (or dealt): arm what comes next, or stop if it ended."""
        if table.phase.dealt:
            self.schedule(table)
        else:
            self.stop(table)

    def schedule(self, table: Table, resumed: bool = False) -> None:
        """Arm what comes next: a computer's move, or the turn timer of a person."""
        game = table.game
        if game is None or not table.phase.dealt or game.phase == "over":
            return
        gid, version = table.id, self.registry.version(table.id)
        self.scheduler.cancel_game(gid)
        waiting = game.waiting_for()
        computers = [s for s in waiting if _is_computer(table, s)]
        humans = [s for s in waiting if s not in computers]
        if computers:
            delay = 0.0 if game.phase == "pass" else self.config.computer_delay
            self.scheduler.arm(f"computer:{gid}", delay, lambda: self._computer_turn(gid, version))
        if humans:
            self._arm_timer(table, version, resumed)
            for seat in humans:
                if seat not in table.ui.nudge_message_ids:
                    self.scheduler.arm(
                        f"nudge{seat}:{gid}",
                        self.nudge_delay(table, seat),
                        functools.partial(self._nudge, gid, seat, version),
                    )
        elif not resumed:
            table.deadline = None

    def nudge_delay(self, table: Table, seat: int) -> float:
        """How far into a person's turn their "your turn" message comes: later for someone
        who pressed at this table in the last minute (they are looking at it) or whose
        screen came as a new message just now (their phone buzzed with it)."""
        active = table.ui.active_at.get(seat)
        if active is not None and time.time() - active < ENGAGED_S:
            return max(self.config.nudge_delay, self.config.engaged_nudge_delay)
        return self.config.nudge_delay

    def stop(self, table: Table) -> None:
        """The table ended: nothing of it is armed any more."""
        self.scheduler.cancel_game(table.id)
        self.trouble.forget(table.id)

    def _current(self, gid: int, version: int) -> Table | None:
        """The table, if no move was made since a timer was armed at `version`."""
        table = self.registry.get(gid)
        if table is None or table.game is None or self.registry.version(gid) != version:
            return None
        return table

    def _arm_timer(self, table: Table, version: int, resumed: bool) -> None:
        timer = table.options.turn_timer
        if not timer:
            table.deadline = None
            return
        now = time.time()
        if not (resumed and table.deadline):
            table.deadline = now + timer
            table.ui.reminded = False
        remaining = max(1.0, table.deadline - now)
        gid = table.id
        self.scheduler.arm(f"turn:{gid}", remaining, lambda: self._timeout(gid, version))
        if not table.ui.reminded and remaining > timer / 2:
            self.scheduler.arm(
                f"remind:{gid}", remaining - timer / 2, lambda: self._remind(gid, version)
            )

    async def _nudge(self, gid: int, seat: int, version: int) -> None:
        """A short message that it is this person's turn, so their phone tells them.

        Sent a few seconds into the turn (someone playing with the chat open has moved by
        then and gets no buzz), and never in the table's mailbox: Telegram's limits must
        not hold up the game.
        """
        table = self._current(gid, version)
        if table is None or table.game is None:
            return
        s = table.seats[seat]
        if s is None or s.user_id is None or seat in table.ui.nudge_message_ids:
            return
        game = table.game
        chat = Name(table.chat_title)
        if game.phase == "pass":
            said = msg("👉 Choose 3 cards to pass in {chat}.", chat=chat)
        elif game.phase == "moon":
            said = msg("🌕 You shot the moon in {chat}: choose!", chat=chat)
        else:
            said = msg("👉 Your turn in {chat}!", chat=chat)
        still_their_turn = functools.partial(self._still_waits, gid, version, game, seat)
        # Under load the message may wait for its turn longer than the person takes to move:
        # then it is not sent at all.
        text = Sentence(self.screens.person(s.user_id), said)
        message_id = await self.chats.notify(s.user_id, text, wanted=still_their_turn)
        if message_id is None:
            return
        if not still_their_turn():
            await self.chats.delete(s.user_id, message_id)  # they moved while it was sent
            return
        table.ui.nudge_message_ids[seat] = message_id
        # Stored by the screens (a move no longer carries them): after a restart the turn
        # is not nudged twice, and this one goes when they move.
        self.screens.kept.save_soon(table)

    async def _remind(self, gid: int, version: int) -> None:
        async def job() -> None:
            table = self._current(gid, version)
            if table is None or table.game is None:
                return
            table.ui.reminded = True
            seconds = int(table.options.turn_timer / 2)
            game = table.game
            for seat in game.waiting_for():
                s = table.seats[seat]
                if s is not None and s.user_id is not None and not s.is_computer_now:
                    tr = self.screens.person(s.user_id)
                    chat = Name(table.chat_title)
                    left = reminder(game.phase, seconds, chat)
                    sent = self.chats.post(
                        s.user_id,
                        Sentence(tr, left),
                        # Through a 429 flood for as long as the turn lasts, then dropped.
                        wanted=functools.partial(self._still_waits, gid, version, game, seat),
                    )
                    self.screens.background.spawn(
                        self._keep_reminder(table, seat, s.user_id, version, sent)
                    )

        await self.registry.send(gid, job)

    def _still_waits(self, gid: int, version: int, game: Game, seat: int) -> bool:
        """Whether the table is where it was and still waits for the seat."""
        return self.registry.version(gid) == version and seat in game.waiting_for()

    async def _keep_reminder(
        self,
        table: Table,
        seat: int,
        user_id: int,
        version: int,
        sent: Awaitable[int | None],
    ) -> None:
        """Keep the reminder's id to delete it when the person moves (or at once, if they
        moved while it was on its way)."""
        message_id = await sent
        if message_id is None:
            return
        if self.registry.version(table.id) == version and table.phase.dealt:
            table.ui.reminder_message_ids[seat] = message_id
            self.screens.kept.save_soon(table)
            self.registry.save_soon(table)  # the turn's deadline, for a restart
        else:
            await self.chats.delete(user_id, message_id)

    async def _timeout(self, gid: int, version: int) -> None:
        """The turn timer ran out: a `standard` computer player moves for each late person."""

        async def job() -> None:
            table = self._current(gid, version)
            if table is None or table.game is None:
                return
            game = table.game
            late = [
                seat
                for seat in game.waiting_for()
                if not _is_computer(table, seat) and game.phase != "over"
            ]
            # Each seat's stand-in is stored before the next is chosen, and people are told
            # only what storage took: a refusal leaves the refused seat (and those after
            # it) as they were, to be tried again.
            said: dict[int, Msg] = {}
            try:
                for seat in late:
                    if table.game is None or seat not in table.game.waiting_for():
                        continue
                    move = await self._decide(table, seat, STAND_IN_LEVEL)
                    phase = table.game.phase
                    limit = self.config.timeouts_before_away
                    await self.moves.apply(table, TimeOut(move, limit))
                    s = table.seats[seat]  # as the timeout left it (counted, maybe away)
                    assert s is not None
                    said[seat] = _stand_in(s, phase)
                    if s.away and s.user_id is not None:
                        self.screens.tell(s.user_id, AWAY)
            finally:
                if said:  # people who timed out together: one message
                    self.screens.idle_notice(table, said)

        await self.registry.send(gid, job)

    async def _computer_turn(self, gid: int, version: int) -> None:
        """A computer player's move: the first computer seat the game waits for.

        It thinks outside the table's mailbox, so people's presses at the table (choosing
        the cards to pass while three `expert` computers search theirs) are answered at
        once; in the mailbox again, its move is made only if the game still waits for it
        in the same position, or else what comes next is armed afresh. One computer thinks
        at a time per table: the move it makes arms the next (`ArmNext`), and a timer that
        fires meanwhile leaves it to that."""

        async def whose_turn() -> _ComputerTurn | None:
            table = self._current(gid, version)
            if table is None or table.game is None or gid in self._thinking:
                return None
            game = table.game
            seat = next((n for n in game.waiting_for() if _is_computer(table, n)), None)
            if seat is None or game.phase == "over":
                return None
            level = _level(table, seat)
            s = table.seats[seat]
            stand_in = s is not None and s.kind == "human"
            turn = _ComputerTurn(table, game, seat, level, stand_in, game.view(seat))
            self._thinking.add(gid)
            return turn

        turn = await self.registry.send(gid, whose_turn)
        if turn is None:
            return
        table, game, seat, level = turn.table, turn.game, turn.seat, turn.level
        try:
            move = await self._decide(table, seat, level)
        finally:
            self._thinking.discard(gid)

        async def make_move() -> None:
            if self.registry.get(gid) is not table or table.game is not game:
                return  # the table closed, or its game ended, while the computer thought
            if not _still(game, table, seat, level, turn.view):
                self.schedule(table, resumed=True)  # the seat was taken, or the game moved
                return
            mover = Mover.STAND_IN if turn.stand_in else Mover.COMPUTER
            await self.moves.apply(table, MakeMove(move, mover))

        await self.registry.send(gid, make_move)

    async def _decide(self, table: Table, seat: int, level: str) -> Move:
        game = table.game
        assert game is not None
        view = game.view(seat)
        seed = hash((table.id, self.registry.version(table.id), seat)) & 0x7FFFFFFF
        budget = self.config.computer_budget_ms
        if table.daily is not None and game.deal_key is not None:
            # The day's computers: their randomness fixed by the deal, never by the clock.
            seed = daily.computer_seed(game.deal_key, game.hand_number, seat)
            level = DAILY_LEVEL
        if game.phase == "pass":
            cards = await self.thinker.choose_pass(level, seed, view, budget)
            return Move.pass_cards(seat, cards)
        if game.phase == "moon":
            return Move.moon(seat, await self.thinker.choose_moon(level, seed, view, budget))
        return Move.play(seat, await self.thinker.choose_play(level, seed, view, budget))


class _ComputerTurn(NamedTuple):
    """A computer's seat to move, and what it thinks on (outside the table's mailbox)."""

    table: Table
    game: Game
    seat: int
    level: str
    stand_in: bool
    view: SeatView


def _still(game: Game, table: Table, seat: int, level: str, view: SeatView) -> bool:
    """Whether a computer's decision, thought out on ``view``, still stands: the game waits
    for the seat in the same position (others may have chosen their passes meanwhile),
    and the same computer holds it."""
    if seat not in game.waiting_for() or not _is_computer(table, seat):
        return False
    same = replace(game.view(seat), waiting_for=view.waiting_for) == view
    return same and _level(table, seat) == level


def _level(table: Table, seat: int) -> str:
    """The level of the computer at a seat: its own, or a person's stand-in's."""
    s = table.seats[seat]
    return s.level if s is not None and s.kind == "computer" else STAND_IN_LEVEL


def _is_computer(table: Table, seat: int) -> bool:
    s = table.seats[seat]
    return s is None or s.is_computer_now


def _stand_in(s: Seat, phase: str) -> Msg:
    """What the group is told of a person whose time ran out (counted by the core, which
    sets them away at the limit), in the phase they ran out in."""
    name = Name(s.name)
    if s.away:
        said = msg(
            "💤 {name} ran out of time {times} times in a row, so a computer "
            "player plays for {name} until {name} sends /rejoin.",
            name=name,
            times=s.timeouts,
        )
    elif phase == "pass":
        said = msg(
            "⏱ {name} ran out of time ({times}×); a computer player chose the "
            "three cards {name} passes.",
            name=name,
            times=s.timeouts,
        )
    elif phase == "moon":
        said = msg(
            "⏱ {name} ran out of time ({times}×); a computer player chose how "
            "{name}'s moon is scored.",
            name=name,
            times=s.timeouts,
        )
    else:
        said = msg(
            "⏱ {name} ran out of time ({times}×); a computer player chose a card for {name}.",
            name=name,
            times=s.timeouts,
        )
    return said


def reminder(phase: str, seconds: int, chat: Name) -> Msg:
    """The ⏰ reminder at half time, in the words of what is awaited: a pass, the moon's
    choice or a card (it said "to play" during the pass)."""
    if phase == "pass":
        return msg("⏰ {seconds} s left to choose your pass in {chat}.", seconds=seconds, chat=chat)
    if phase == "moon":
        return msg("⏰ {seconds} s left to choose in {chat}.", seconds=seconds, chat=chat)
    return msg("⏰ {seconds} s left to play in {chat}.", seconds=seconds, chat=chat)
