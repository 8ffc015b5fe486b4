"""A tournament's rounds: the draw, dealing its tables, following their moves, results, who
goes on, and the final ranking.

Mailboxes. A table's listener (`Rounds.on_table_move`) runs in a job of that table's
mailbox, so it never waits for a tournament's: it arms ``tournament:<id>:sync`` instead.
A tournament's job may send jobs to its tables (through the desk), never the other way."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from bot.basics import Person
from bot.chats import NONE
from bot.core.tournament import Cancel, Finish, StartRound
from bot.core.tournament import decide as step
from bot.tables.model import COMPUTER_NAMES, Seat, Table, TableOptions
from bot.tournaments import plan as tour
from bot.tournaments import render as er
from bot.tournaments.board import Board
from bot.tournaments.render import said, who
from domain.tournaments import Registration, StoredTournament, TournamentSeat, TournamentTable
from engine import Event
from ratings import START
from storage import SeatTaken

log = logging.getLogger(__name__)


class Rounds:
    """Draws, deals and settles the rounds of every tournament."""

    async def _strength(self, user_ids: list[int]) -> dict[int, float]:
        """Each person's overall rating (μ − 3σ; a newcomer's is the model's start)."""
        out = {}
        for user_id in user_ids:
            entry = await self.standings.player_rating(user_id)
            out[user_id] = (entry.skill if entry is not None else START).conservative
        return out

    def __init__(self, board: Board) -> None:
        self.board = board
        self.desk = board.desk
        self.tournaments = board.tournaments
        self.journal = board.journal
        self.standings = board.standings
        self.chats = board.chats
        self.clock = board.clock
        board.desk.subscribe(self.on_table_move)

    async def start(self, tournament: StoredTournament, round_no: int) -> bool:
        """Draw and deal round ``round_no`` (under the tournament's lock); False if too few."""
        entries = await self.tournaments.registrations(tournament.id)
        if round_no == 1:
            players = [r for r in entries if r.status == "registered"]
        else:
            going = set(tournament.state.advancing)
            players = [r for r in entries if r.user_id in going and r.status == "registered"]
        if round_no == 1 and len(players) < 2:
            tournament = step(tournament, Cancel())
            await self.tournaments.save_tournament(tournament)
            await self.board.refresh_message(tournament)
            await self.board.announce(
                tournament,
                said(
                    "✖ <b>{name}</b> was cancelled: fewer than 2 people registered.",
                    name=who(tournament.name),
                ),
            )
            return False
        o = tournament.options
        plans = tour.plan_tables(
            len(players),
            o.table_size,
            lambda n: self.board.table_rules(tournament, n) is not None,
            o.computer_fill,
        )
        seed = tournament.state.seed
        strength = None
        if round_no == 1 and o.seeding == "rating":
            strength = await self._strength([p.user_id for p in players])
        seating = tour.draw([p.user_id for p in players], plans, f"{seed}:{round_no}", strength)
        names = {p.user_id: p.display_name for p in players}
        now = self.clock()
        tournament = step(tournament, StartRound(round_no, now))
        await self.tournaments.save_tournament(tournament)
        tables = []
        for table_no, seats in enumerate(seating, start=1):
            computers = iter(COMPUTER_NAMES)
            tournament_seats = tuple(
                TournamentSeat(n, names[uid], uid)
                if uid is not None
                else TournamentSeat(n, next(computers))  # a name, the same in every language
                for n, uid in enumerate(seats)
            )
            table_seed = tour.table_seed(seed, round_no, table_no, o.duplicate_deals)
            table = TournamentTable(tournament.id, round_no, table_no, table_seed, tournament_seats)
            await self.tournaments.save_tournament_table(table)
            tables.append(table)
        await self.board.refresh_message(tournament)
        await self.board.announce(
            tournament,
            said(
                "▶ <b>{name}</b>, round {round}: {players} at {tables}. Your cards are in your "
                "DMs with me. Good luck!",
                name=who(tournament.name),
                round=round_no,
                players=lambda tr: tr.plural("{n} player", "{n} players", len(players)),
                tables=lambda tr: tr.plural("{n} table", "{n} tables", len(tables)),
            ),
        )
        message_id = await self.chats.send(
            tournament.chat_id,
            er.round_message(self.board.group(tournament), tournament, round_no, tables, {}),
            NONE,
            tournament.thread_id,
        )
        if message_id is not None:
            messages = {**tournament.state.round_messages, round_no: message_id}
            tournament = replace(
                tournament, state=replace(tournament.state, round_messages=messages)
            )
        await self.tournaments.save_tournament(tournament)
        await self.deal(tournament, tables)
        self.board.arm_tick()
        return True

    async def deal(self, tournament: StoredTournament, tables: Sequence[TournamentTable]) -> None:
        """Start the games of the round's tables that have none yet (also after a crash)."""
        o = tournament.options
        organiser = Person(tournament.organiser_id, tournament.organiser_name)
        for table in tables:
            if table.game_id is not None or table.status != "playing":
                continue
            rules = self.board.table_rules(tournament, len(table.seats))
            assert rules is not None
            deals = tour.duplicate_deals(rules, table.seed) if o.duplicate_deals else None
            busy = await self._free_players(tournament, table, table.seats)
            for _ in range(len(table.seats) + 1):
                seats = [
                    Seat("human", s.display_name, s.user_id)
                    if s.user_id is not None and s.user_id not in busy
                    else Seat("computer", s.display_name, level=o.computer_level)
                    for s in table.seats
                ]
                try:
                    live = await self.desk.start_table(
                        tournament_id=tournament.id,
                        chat_id=tournament.chat_id,
                        thread_id=tournament.thread_id,
                        chat_title=f"{tournament.name} · #{table.table_no}",
                        organiser=organiser,
                        rules=rules,
                        options=TableOptions(
                            turn_timer=o.turn_timer,
                            computer_level=o.computer_level,
                            track_cards=True,
                            hints=False,  # a tournament is played unaided
                            watching=o.watching,
                        ),
                        seats=seats,
                        seed=table.seed,
                        deals=deals,
                    )
                    break
                except SeatTaken as taken:  # sat down elsewhere meanwhile: storage said no
                    late = [s for s in table.seats if s.user_id == taken.user_id]
                    if not late or taken.user_id in busy:
                        raise
                    busy |= await self._free_players(tournament, table, late)
            else:
                raise RuntimeError(f"table {table.table_no} could not be seated")
            for s in table.seats:
                if s.user_id is not None and s.user_id not in busy:
                    self.board.tell(
                        s.user_id,
                        said(
                            "🏆 <b>{event}</b>, round {round}: you're at table {table}. Your cards "
                            "follow.",
                            event=who(tournament.name),
                            round=table.round,
                            table=table.table_no,
                        ),
                    )
            if busy:  # their seats count as a no-show's (they cannot go on)
                table = replace(
                    table,
                    seats=tuple(replace(s, no_show=s.user_id in busy) for s in table.seats),
                )
            await self.tournaments.save_tournament_table(replace(table, game_id=live.id))
        await self.board.refresh_round(tournament)

    async def _free_players(
        self,
        tournament: StoredTournament,
        table: TournamentTable,
        seats: Sequence[TournamentSeat],
    ) -> set[int]:
        """One live seat each: the seats' people are taken out of this account's open
        lobbies (and told); those playing elsewhere (a game in progress, their daily deal,
        another account's table) are returned, for a computer player to take their seat."""
        busy: set[int] = set()
        for s in seats:
            if s.user_id is None:
                continue
            left, elsewhere = await self.desk.free_for_event(s.user_id)
            if left is not None:
                self.board.tell(
                    s.user_id,
                    said(
                        "🏆 <b>{event}</b> starts: you left the table in {chat} to play your "
                        "round.",
                        event=who(tournament.name),
                        chat=who(left),
                    ),
                )
            if elsewhere is not None:
                busy.add(s.user_id)
                self.board.tell(
                    s.user_id,
                    said(
                        "🏆 <b>{event}</b>, round {round}: you're still playing at another "
                        "table ({chat}), so a computer player takes your seat at table {table} "
                        "this round, as a no-show's.",
                        event=who(tournament.name),
                        round=table.round,
                        chat=who(elsewhere.chat),
                        table=table.table_no,
                    ),
                )
        return busy

    async def on_table_move(self, table: Table, events: list[Event]) -> None:
        """Every move of every table: note who showed up; sync when something changed."""
        if table.tournament_id is None or table.game is None:
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
        tournament_id = table.tournament_id
        self.board.scheduler.arm(
            f"tournament:{tournament_id}:sync", 0.0, lambda: self.sync(tournament_id)
        )

    async def sync(self, tournament_id: int) -> None:
        """Store presence and finished tables; when the round is complete, go on."""

        async def job() -> None:
            tournament = await self.tournaments.get_tournament(tournament_id)
            if tournament is None or tournament.status not in ("running", "paused"):
                return
            tables = await self.tournaments.tournament_tables(
                tournament.id, tournament.current_round
            )
            updated = []
            for table in tables:
                new = await self.settled(tournament, table)
                if new != table:
                    await self.tournaments.save_tournament_table(new)
                for seat in new.seats:
                    if seat.present:  # stored: no need to remember it any more
                        self.board.present.discard((new.game_id or 0, seat.seat))
                updated.append(new)
            await self.board.refresh_round(tournament)
            if updated and all(tb.status != "playing" for tb in updated):
                await self._round_over(tournament, updated)

        await self.board.send(tournament_id, job)

    async def settled(
        self, tournament: StoredTournament, table: TournamentTable
    ) -> TournamentTable:
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
            stored = await self.journal.load_game(table.game_id)
            if stored.status == "finished":
                game = stored.game
            elif stored.status in ("cancelled", "quarantined"):
                return replace(table, seats=tuple(seats), status="cancelled")
        if game is None or game.phase != "over":
            return replace(table, seats=tuple(seats))
        points = [list(h.points) for h in game.hand_history]
        seat_places = tour.places(
            game.rules,
            game.scores,
            points,
            f"{tournament.state.seed}:{table.round}:{table.table_no}",
        )
        seats = [replace(s, place=seat_places[s.seat], total=game.scores[s.seat]) for s in seats]
        return replace(table, seats=tuple(seats), status="finished")

    def _results(
        self, tables: Sequence[TournamentTable], entries: Sequence[Registration]
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

    async def _round_over(
        self, tournament: StoredTournament, tables: list[TournamentTable]
    ) -> None:
        """Every table of the round is done: rank, announce, and start the next or finish."""
        if tournament.state.done_round == tournament.current_round:
            return
        for table in tables:
            self.board.finished.pop(table.game_id or 0, None)
        entries = await self.tournaments.registrations(tournament.id)
        results = self._results(tables, [r for r in entries if r.status == "registered"])
        seed = tournament.state.seed
        if len(tables) == 1:
            await self._finish(tournament, entries, winner_decided=True)
            return
        o = tournament.options
        going = tour.advancing(
            tournament.rules,
            results,
            per_table=o.advance_per_table,
            overall=o.advance_overall,
            table_size=o.table_size,
            seed=f"{seed}:{tournament.current_round}",
        )
        for table in tables:
            seats = tuple(replace(s, advanced=s.user_id in going) for s in table.seats)
            await self.tournaments.save_tournament_table(replace(table, seats=seats))
        out = [
            replace(r, status="eliminated")
            for r in entries
            if r.status == "registered" and r.user_id not in going
        ]
        await self.tournaments.save_registrations(out)
        tournament = replace(
            tournament,
            state=replace(
                tournament.state, advancing=tuple(going), done_round=tournament.current_round
            ),
        )
        await self.tournaments.save_tournament(tournament)
        await self.board.refresh_round(tournament)
        names = {r.user_id: r.display_name for r in entries}
        if await self.tournaments.claim_once(tournament.id, f"results:{tournament.current_round}"):
            await self.board.announce(
                tournament,
                said(
                    "📋 <b>{name}</b>, round {round} is over. Going on: {names}.",
                    name=who(tournament.name),
                    round=tournament.current_round,
                    names=", ".join(who(names[u]) for u in going) or "—",
                ),
            )
        if len(going) <= 1:
            await self._finish(
                tournament, await self.tournaments.registrations(tournament.id), False
            )
            return
        if tournament.status == "paused":
            await self.board.announce(
                tournament,
                said(
                    "⏸ Round {round} is over, but the event is paused: the next round starts on "
                    "<code>/event resume</code> or <code>/event start</code>.",
                    round=tournament.current_round,
                ),
            )
            return
        await self.next(tournament)

    async def next(self, tournament: StoredTournament) -> None:
        await self.start(tournament, tournament.current_round + 1)

    async def _finish(
        self, tournament: StoredTournament, entries: Sequence[Registration], winner_decided: bool
    ) -> None:
        rounds = []
        for round_no in range(1, tournament.current_round + 1):
            tables = await self.tournaments.tournament_tables(tournament.id, round_no)
            rounds.append(self._results(tables, entries))
        played = {r.user_id for rnd in rounds for r in rnd if r.user_id is not None}
        ranking = tour.final_ranking(tournament.rules, rounds, tournament.state.seed)
        if not winner_decided:
            going = list(tournament.state.advancing)
            ranking = [*going, *[u for u in ranking if u not in going]]
            if not going:
                ranking = []
        by_id = {r.user_id: r for r in entries}
        ranked_ids = [u for u in ranking if u in by_id and u in played]
        final = [
            replace(by_id[u], final_place=place) for place, u in enumerate(ranked_ids, start=1)
        ]
        await self.tournaments.save_registrations(final)
        tournament = step(tournament, Finish())
        await self.tournaments.save_tournament(tournament)
        await self.board.refresh_message(tournament)
        await self.board.refresh_round(tournament)
        if not await self.tournaments.claim_once(tournament.id, "final"):
            return
        if not final:
            await self.board.announce(
                tournament,
                said(
                    "🏁 <b>{name}</b> ended without a winner: no one was left to go on.",
                    name=who(tournament.name),
                ),
            )
            return
        await self.board.announce(
            tournament,
            said(
                "🏆 <b>{name}</b> is over! The winner is <b>{winner}</b>.\n{ranking}",
                name=who(tournament.name),
                winner=who(final[0].display_name),
                ranking=lambda tr: "\n".join(er.ranking_lines(tr, final)[:20]),
            ),
        )
