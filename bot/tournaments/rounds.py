"""A tournament's rounds: the draw, dealing its tables, following their moves, results, who
goes on, and the final ranking.

Locks. A table's listener (`Rounds.on_table_move`) runs under that table's lock, so it never
takes a tournament's lock: it arms ``event:<id>:sync`` instead. Tournament code may take a
table's lock (through the desk) while holding the tournament's."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from bot.basics import Person
from bot.tables.model import COMPUTER_NAMES, Seat, Table, TableOptions
from bot.tables.render import esc
from bot.texts import t
from bot.tournaments import plan as tour
from bot.tournaments import render as er
from bot.tournaments.board import Board
from engine import Event
from storage.events import (
    EventSeat,
    EventTable,
    Registration,
    StoredEvent,
)

log = logging.getLogger(__name__)


class Rounds:
    """Draws, deals and settles the rounds of every tournament."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.desk = board.desk
        self.storage = board.storage
        self.outbox = board.outbox
        self.clock = board.clock
        board.desk.subscribe(self.on_table_move)

    async def start(self, event: StoredEvent, round_no: int) -> bool:
        """Draw and deal round ``round_no`` (under the event's lock); False if too few."""
        entries = await self.storage.registrations(event.id)
        if round_no == 1:
            players = [r for r in entries if r.status == "registered"]
        else:
            going = set(event.meta.get("next", []))
            players = [r for r in entries if r.user_id in going and r.status == "registered"]
        if round_no == 1 and len(players) < 2:
            event = replace(event, status="cancelled")
            await self.storage.save_event(event)
            await self.board.refresh_message(event)
            await self.board.announce(event, t("event.announce.too_few", name=esc(event.name)))
            return False
        o = event.options
        plans = tour.plan_tables(
            len(players),
            o.table_size,
            lambda n: self.board.table_rules(event, n) is not None,
            o.computer_fill,
        )
        seed = event.meta["seed"]
        seating = tour.draw([p.user_id for p in players], plans, f"{seed}:{round_no}")
        names = {p.user_id: p.display_name for p in players}
        now = self.clock()
        started = dict(event.meta.get("round_started", {}))
        started[str(round_no)] = now.isoformat()
        event = replace(
            event,
            status="running",
            current_round=round_no,
            meta={**event.meta, "round_started": started},
        )
        await self.storage.save_event(event)
        tables = []
        for table_no, seats in enumerate(seating, start=1):
            computers = iter(COMPUTER_NAMES)
            event_seats = tuple(
                EventSeat(n, names[uid], uid)
                if uid is not None
                else EventSeat(n, f"{next(computers)} ({o.computer_level})")
                for n, uid in enumerate(seats)
            )
            table_seed = tour.table_seed(seed, round_no, table_no, o.duplicate_deals)
            table = EventTable(event.id, round_no, table_no, table_seed, event_seats)
            await self.storage.save_event_table(table)
            tables.append(table)
        await self.board.refresh_message(event)
        await self.board.announce(
            event,
            t(
                "event.announce.start",
                name=esc(event.name),
                round=round_no,
                players=len(players),
                tables=len(tables),
            ),
        )
        message_id = await self.outbox.send(
            event.chat_id, er.round_message(event, round_no, tables, {}), None, event.thread_id
        )
        messages = {**event.meta.get("round_messages", {}), str(round_no): message_id}
        event = replace(event, meta={**event.meta, "round_messages": messages})
        await self.storage.save_event(event)
        await self.deal(event, tables)
        self.board.arm_tick()
        return True

    async def deal(self, event: StoredEvent, tables: Sequence[EventTable]) -> None:
        """Start the games of the round's tables that have none yet (also after a crash)."""
        o = event.options
        organiser = Person(event.organiser_id, event.organiser_name)
        for table in tables:
            if table.game_id is not None or table.status != "playing":
                continue
            rules = self.board.table_rules(event, len(table.seats))
            assert rules is not None
            deals = tour.duplicate_deals(rules, table.seed) if o.duplicate_deals else None
            seats = [
                Seat("human", s.display_name, s.user_id)
                if s.user_id is not None
                else Seat("computer", s.display_name, level=o.computer_level)
                for s in table.seats
            ]
            for s in table.seats:
                if s.user_id is not None:
                    self.outbox.post(
                        s.user_id,
                        t(
                            "event.dm_round",
                            event=esc(event.name),
                            round=table.round,
                            table=table.table_no,
                        ),
                    )
            live = await self.desk.start_table(
                tournament_id=event.id,
                chat_id=event.chat_id,
                thread_id=event.thread_id,
                chat_title=f"{event.name} · table {table.table_no}",
                organiser=organiser,
                rules=rules,
                options=TableOptions(
                    turn_timer=o.turn_timer, computer_level=o.computer_level, track_cards=True
                ),
                seats=seats,
                seed=table.seed,
                deals=deals,
            )
            await self.storage.save_event_table(replace(table, game_id=live.id))
        await self.board.refresh_round(event)

    async def on_table_move(self, table: Table, events: list[Event]) -> None:
        """Every move of every table: note who showed up; sync when something changed."""
        if table.event_id is None or table.game is None:
            return
        for e in events:
            seat = getattr(e, "seat", None)
            if e.kind not in ("card_played", "cards_passed") or seat is None:
                continue
            s = table.seats[seat]
            if s is not None and s.kind == "human" and not s.away and s.timeouts == 0:
                self.board.present.add((table.id, seat))
        if table.game.phase == "over":
            self.board.finished[table.id] = table.game
        event_id = table.event_id
        self.board.scheduler.arm(f"event:{event_id}:sync", 0.0, lambda: self.sync(event_id))

    async def sync(self, event_id: int) -> None:
        """Store presence and finished tables; when the round is complete, go on."""
        async with self.board.lock(event_id):
            event = await self.storage.get_event(event_id)
            if event is None or event.status not in ("running", "paused"):
                return
            tables = await self.storage.event_tables(event.id, event.current_round)
            updated = []
            for table in tables:
                new = await self.settled(event, table)
                if new != table:
                    await self.storage.save_event_table(new)
                for seat in new.seats:
                    if seat.present:  # stored: no need to remember it any more
                        self.board.present.discard((new.game_id or 0, seat.seat))
                updated.append(new)
            await self.board.refresh_round(event)
            if updated and all(tb.status != "playing" for tb in updated):
                await self._round_over(event, updated)

    async def settled(self, event: StoredEvent, table: EventTable) -> EventTable:
        """The table with presence noted and, if its game is over, places and totals."""
        seats = [
            replace(s, present=True)
            if (table.game_id, s.seat) in self.board.present and not s.present
            else s
            for s in table.seats
        ]
        if table.status != "playing" or table.game_id is None:
            return replace(table, seats=tuple(seats))
        game = self.board.finished.get(table.game_id)
        if game is None and self.desk.live(table.game_id) is None:
            stored = await self.storage.load_game(table.game_id)
            if stored.status == "finished":
                game = stored.game
            elif stored.status in ("cancelled", "quarantined"):
                return replace(table, seats=tuple(seats), status="cancelled")
        if game is None or game.phase != "over":
            return replace(table, seats=tuple(seats))
        points = [list(h.points) for h in game.hand_history]
        seat_places = tour.places(
            game.rules, game.scores, points, f"{event.meta['seed']}:{table.round}:{table.table_no}"
        )
        seats = [replace(s, place=seat_places[s.seat], total=game.scores[s.seat]) for s in seats]
        return replace(table, seats=tuple(seats), status="finished")

    def _results(
        self, tables: Sequence[EventTable], entries: Sequence[Registration]
    ) -> list[tour.SeatResult]:
        """Seat results; ``eligible`` excludes no-shows and anyone no longer registered
        (for the final ranking, pass every entry: only no-shows are then ranked last)."""
        active = {r.user_id for r in entries if r.status in ("registered", "eliminated")}
        return [
            tour.SeatResult(
                table.table_no,
                s.seat,
                s.user_id,
                s.total if s.total is not None else 0,
                s.place or len(table.seats),
                s.user_id is not None and not s.no_show and s.user_id in active,
            )
            for table in tables
            if table.status == "finished"
            for s in table.seats
        ]

    async def _round_over(self, event: StoredEvent, tables: list[EventTable]) -> None:
        """Every table of the round is done: rank, announce, and start the next or finish."""
        if event.meta.get("done_round") == event.current_round:
            return
        for table in tables:
            self.board.finished.pop(table.game_id or 0, None)
        entries = await self.storage.registrations(event.id)
        results = self._results(tables, [r for r in entries if r.status == "registered"])
        seed = event.meta["seed"]
        if len(tables) == 1:
            await self._finish(event, entries, winner_decided=True)
            return
        o = event.options
        going = tour.advancing(
            event.rules,
            results,
            per_table=o.advance_per_table,
            overall=o.advance_overall,
            table_size=o.table_size,
            seed=f"{seed}:{event.current_round}",
        )
        for table in tables:
            seats = tuple(replace(s, advanced=s.user_id in going) for s in table.seats)
            await self.storage.save_event_table(replace(table, seats=seats))
        out = [
            replace(r, status="eliminated")
            for r in entries
            if r.status == "registered" and r.user_id not in going
        ]
        await self.storage.save_registrations(out)
        event = replace(
            event, meta={**event.meta, "next": going, "done_round": event.current_round}
        )
        await self.storage.save_event(event)
        await self.board.refresh_round(event)
        names = {r.user_id: r.display_name for r in entries}
        if await self.storage.claim_once(event.id, f"results:{event.current_round}"):
            await self.board.announce(
                event,
                t(
                    "event.announce.results",
                    name=esc(event.name),
                    round=event.current_round,
                    names=", ".join(esc(names[u]) for u in going) or "—",
                ),
            )
        if len(going) <= 1:
            await self._finish(event, await self.storage.registrations(event.id), False)
            return
        if event.status == "paused":
            await self.board.announce(event, t("event.announce.waiting", round=event.current_round))
            return
        await self.next(event)

    async def next(self, event: StoredEvent) -> None:
        await self.start(event, event.current_round + 1)

    async def _finish(
        self, event: StoredEvent, entries: Sequence[Registration], winner_decided: bool
    ) -> None:
        rounds = []
        for round_no in range(1, event.current_round + 1):
            tables = await self.storage.event_tables(event.id, round_no)
            rounds.append(self._results(tables, entries))
        played = {r.user_id for rnd in rounds for r in rnd if r.user_id is not None}
        ranking = tour.final_ranking(event.rules, rounds, event.meta["seed"])
        if not winner_decided:
            going = event.meta.get("next", [])
            ranking = [*going, *[u for u in ranking if u not in going]]
            if not going:
                ranking = []
        by_id = {r.user_id: r for r in entries}
        ranked_ids = [u for u in ranking if u in by_id and u in played]
        final = [
            replace(by_id[u], final_place=place) for place, u in enumerate(ranked_ids, start=1)
        ]
        await self.storage.save_registrations(final)
        event = replace(event, status="finished")
        await self.storage.save_event(event)
        await self.board.refresh_message(event)
        await self.board.refresh_round(event)
        if not await self.storage.claim_once(event.id, "final"):
            return
        if not final:
            await self.board.announce(event, t("event.announce.no_winner", name=esc(event.name)))
            return
        ranked = er.ranking_lines(final)
        await self.board.announce(
            event,
            t(
                "event.announce.final",
                name=esc(event.name),
                winner=esc(final[0].display_name),
                ranking="\n".join(ranked[:20]),
            ),
        )
