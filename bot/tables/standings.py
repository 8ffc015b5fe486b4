"""The texts of ``/scores``, ``/stats`` and ``/rules``."""

from __future__ import annotations

from bot.basics import Person
from bot.i18n import Tr
from bot.tables import render
from bot.tables.model import Table
from bot.tables.registry import TableRegistry
from engine import Rules
from storage import Journal, People
from storage import Standings as StoredStandings


class Standings:
    def __init__(
        self, registry: TableRegistry, games: Journal, standings: StoredStandings, people: People
    ) -> None:
        self.registry = registry
        self.games = games
        self.standings = standings
        self.people = people

    async def scores_text(self, tr: Tr, chat_id: int, thread_id: int | None) -> str:
        parts = []
        table = self.registry.in_chat(chat_id, thread_id)
        title = tr("<b>This game</b>")
        if table is None or table.game is None:
            # Until a new game starts, the last one finished here, hand by hand.
            stored = await self.games.last_finished_game(chat_id, thread_id)
            if stored is not None and stored.game is not None:
                table = Table.from_stored(stored)
                title = tr("<b>The last game here</b> (finished), hand by hand:")
        if table is not None and table.game is not None:
            parts.append(title)
            for result in table.game.hand_history:
                parts.append(render.hand_result(tr, table, result).split("\n")[0])
            totals = " · ".join(
                f"{render.who(table.name(s))} {render.format_total(v)}"
                for s, v in enumerate(table.game.scores)
            )
            parts.append(tr("Standings: {totals}", totals=totals))
        else:
            parts.append(tr("No game is running here."))
        parts.append("")
        parts.append(tr("<b>All-time leaderboard</b>"))
        board = await self.standings.standings(chat_id, "points", limit=10)
        if not board:
            parts.append(tr("No finished games in this chat yet."))
        for rank, row in enumerate(board, start=1):
            parts.append(
                tr(
                    "{rank}. {name} — {won}/{played} won ({rate}%) · {avg} pts/hand",
                    rank=rank,
                    name=render.who(row.display_name),
                    won=row.games_won,
                    played=row.games_played,
                    rate=round(100 * row.win_rate),
                    avg=_average(row.average_per_hand),
                )
            )
        return "\n".join(parts)

    async def stats_text(self, tr: Tr, person: Person, in_group: bool = False) -> str:
        """`in_group`: asked in a group, where "your" would not say whose."""
        record = await self.standings.player_standing(person.id)
        name = render.who(person.name)
        if record is None or record.games_played == 0:
            if in_group:
                return tr("{name} hasn't finished a game yet.", name=name)
            return tr("You haven't finished a game yet.")
        lines = [
            tr("<b>{name}'s record</b>", name=name) if in_group else tr("<b>Your record</b>"),
            tr(
                "Games: {played} · won {won} ({rate}%)\nAverage points per hand: "
                "{avg}\nMoons shot: {moons}\nBest game: {best} · worst: {worst}",
                played=record.games_played,
                won=record.games_won,
                rate=round(100 * record.win_rate),
                avg=_average(record.average_per_hand),
                moons=record.moons_shot,
                best=render.format_score(record.best_game) if record.best_game is not None else "—",
                worst=render.format_score(record.worst_game)
                if record.worst_game is not None
                else "—",
            ),
        ]
        return "\n".join(lines)

    async def rules_text(self, tr: Tr, chat_id: int, thread_id: int | None) -> str:
        table = self.registry.in_chat(chat_id, thread_id)
        if table is not None:
            summary = render.esc(render.rules_summary(tr, table))
            return render.rules_text(tr, table.rules) + "\n\n" + summary
        settings = await self.people.get_chat_settings(chat_id)
        return render.rules_text(tr, Rules.from_stored(settings.rules))


def _average(value: float | complex) -> str:
    if isinstance(value, complex):
        return render.format_score(complex(round(value.real, 1), round(value.imag, 1)))
    return f"{value:.1f}"
