"""The texts of ``/scores``, ``/stats`` and ``/rules``."""

from __future__ import annotations

from bot.basics import Person
from bot.tables import render
from bot.tables.model import Table
from bot.tables.registry import TableRegistry
from bot.texts import t
from engine import Rules


class Standings:
    def __init__(self, registry: TableRegistry) -> None:
        self.registry = registry
        self.storage = registry.storage

    async def scores_text(self, chat_id: int, thread_id: int | None) -> str:
        parts = []
        table = self.registry.in_chat(chat_id, thread_id)
        title = "scores.game_title"
        if table is None or table.game is None:
            # Until a new game starts, the last one finished here, hand by hand.
            stored = await self.storage.last_finished_game(chat_id, thread_id)
            if stored is not None and stored.game is not None:
                table = Table.from_stored(stored)
                title = "scores.last_game_title"
        if table is not None and table.game is not None:
            parts.append(t(title))
            for result in table.game.hand_history:
                parts.append(render.hand_result(table, result).split("\n")[0])
            totals = " · ".join(
                f"{render.esc(table.name(s))} {render.format_total(v)}"
                for s, v in enumerate(table.game.scores)
            )
            parts.append(t("hand.standings", totals=totals))
        else:
            parts.append(t("scores.no_game"))
        parts.append("")
        parts.append(t("scores.board_title"))
        board = await self.storage.standings(chat_id, "points", limit=10)
        if not board:
            parts.append(t("scores.board_empty"))
        for rank, row in enumerate(board, start=1):
            parts.append(
                t(
                    "scores.board_row",
                    rank=rank,
                    name=render.esc(row.display_name),
                    won=row.games_won,
                    played=row.games_played,
                    rate=round(100 * row.win_rate),
                    avg=_average(row.average_per_hand),
                )
            )
        return "\n".join(parts)

    async def stats_text(self, person: Person) -> str:
        record = await self.storage.player_standing(person.id)
        if record is None or record.games_played == 0:
            return t("stats.none")
        lines = [
            t("stats.title"),
            t(
                "stats.body",
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

    async def rules_text(self, chat_id: int, thread_id: int | None) -> str:
        table = self.registry.in_chat(chat_id, thread_id)
        if table is not None:
            return render.rules_text(table.rules) + "\n\n" + render.esc(render.rules_summary(table))
        settings = await self.storage.get_chat_settings(chat_id)
        return render.rules_text(Rules.from_stored(settings.rules))


def _average(value: float | complex) -> str:
    if isinstance(value, complex):
        return render.format_score(complex(round(value.real, 1), round(value.imag, 1)))
    return f"{value:.1f}"
