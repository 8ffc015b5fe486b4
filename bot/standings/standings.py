"""The texts of ``/scores``, ``/stats`` and ``/rules``."""

from __future__ import annotations

from bot.basics import Person
from bot.i18n import msg
from bot.screens import render
from bot.screens.parts import Joined, Name, Part, Text, format_score, format_total
from bot.screens.seat_screen import hand_result_lines
from bot.tables.model import Table
from bot.tables.registry import TableRegistry
from engine import Rules
from engine.scoring import rank_key
from storage import Journal, People
from storage import Standings as StoredStandings


class Standings:
    """The texts of ``/scores``, ``/stats`` and ``/rules`` as lines of parts (sentences as
    `Msg`s, names as `Name`s): the adapter writes them in its reader's language."""

    def __init__(
        self, registry: TableRegistry, games: Journal, standings: StoredStandings, people: People
    ) -> None:
        self.registry = registry
        self.games = games
        self.standings = standings
        self.people = people

    async def scores_lines(
        self, chat_id: int, thread_id: int | None
    ) -> tuple[list[Part], int | None]:
        """``/scores``: the game being played here (or the last one finished here) hand by
        hand, and the all-time leaderboard; with the id of the game shown once a hand of it
        is over (its ▶ Replay replays that very game, no other: issue 51)."""
        lines: list[Part] = []
        shown: int | None = None
        table = self.registry.in_chat(chat_id, thread_id)
        title = msg("<b>This game</b>")
        if table is None or table.game is None:
            # Until a new game starts, the last one finished here, hand by hand.
            stored = await self.games.last_finished_game(chat_id, thread_id)
            if stored is not None and stored.game is not None:
                table = Table.from_stored(stored)
                title = msg("<b>The last game here</b> (finished), hand by hand:")
        if table is not None and table.game is not None:
            shown = table.id if table.game.hand_history else None
            lines.append(title)
            names = table.names()
            for result in table.game.hand_history:
                lines.append(hand_result_lines(names, table.hints_used, result)[0])
            scores = table.game.scores
            order = list(range(len(scores)))
            if table.game.phase == "over":  # final: by place, lowest first (issue 51)
                order.sort(key=lambda s: (rank_key(table.rules, scores[s]), s))
            totals = Joined(
                tuple(Joined((Name(names[s]), f" {format_total(scores[s])}"), "") for s in order)
            )
            lines.append(msg("Standings: {totals}", totals=totals))
        else:
            lines.append(msg("No game is running here."))
        lines.append("")
        lines.append(msg("<b>All-time leaderboard</b>"))
        board = await self.standings.standings(chat_id, "points", limit=10)
        if not board:
            lines.append(msg("No finished games in this chat yet."))
        for rank, row in enumerate(board, start=1):
            lines.append(
                msg(
                    "{rank}. {name} — {won}/{played} won ({rate}%) · {avg} pts/hand",
                    rank=rank,
                    name=Name(row.display_name),
                    won=row.games_won,
                    played=row.games_played,
                    rate=round(100 * row.win_rate),
                    avg=_average(row.average_per_hand),
                )
            )
        return lines, shown

    async def stats_lines(self, person: Person, in_group: bool = False) -> list[Part]:
        """`in_group`: asked in a group, where "your" would not say whose."""
        record = await self.standings.player_standing(person.id)
        name = Name(person.name)
        if record is None or record.games_played == 0:
            if in_group:
                return [msg("{name} hasn't finished a game yet.", name=name)]
            return [msg("You haven't finished a game yet.")]
        return [
            msg("<b>{name}'s record</b>", name=name) if in_group else msg("<b>Your record</b>"),
            msg(
                "Games: {played} · won {won} ({rate}%)\nAverage points per hand: "
                "{avg}\nMoons shot: {moons}\nBest game: {best} · worst: {worst}",
                played=record.games_played,
                won=record.games_won,
                rate=round(100 * record.win_rate),
                avg=_average(record.average_per_hand),
                moons=record.moons_shot,
                best=format_score(record.best_game) if record.best_game is not None else "—",
                worst=format_score(record.worst_game) if record.worst_game is not None else "—",
            ),
        ]

    async def rules_lines(self, chat_id: int, thread_id: int | None) -> list[Part]:
        """The rules of the chat's table (and its options, in one line), or of its next."""
        table = self.registry.in_chat(chat_id, thread_id)
        if table is not None:
            summary = Text(render.rules_summary_part(table))
            return [*render.rules_lines(table.rules), "", summary]
        settings = await self.people.get_chat_settings(chat_id)
        return render.rules_lines(Rules.from_stored(settings.rules))


def _average(value: float | complex) -> str:
    if isinstance(value, complex):
        return format_score(complex(round(value.real, 1), round(value.imag, 1)))
    return f"{value:.1f}"
