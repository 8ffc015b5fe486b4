"""Everything the bot reads from a database, as plain JSON: each game as stored and as its
journal replays, each score table, standings, rating boards and histories, tournaments
with their entries, tables and claims, languages, chats, people and handled updates.

`tests/storage/v10/make_fixtures.py` recorded it from databases written by the code of
schema version 10 (before Alembic); `test_storage_upgrade.py` reads the same databases
after the bot's normal start has upgraded them and expects the same."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from engine import Game, Rules
from storage import Storage
from storage.errors import GameNotFound

CHATS = (-100, -200, -300)
"""The chats the fixtures' games and tournaments are in."""
PEOPLE = (1, 2, 3, 4, 5, 6, 7, 8)
"""The people who play in them."""
UPDATES = (9000, 9001, 9002, 9003)
"""Updates the fixtures handled (and one, 9003, they did not)."""


def plain(value: Any) -> Any:
    """`value` as JSON's types: dataclasses as objects, a game as its snapshot."""
    if isinstance(value, Game):
        return {"snapshot": value.to_json()}
    if isinstance(value, Rules):
        return {"rules": repr(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, complex):
        return {"re": value.real, "im": value.imag}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted(plain(v) for v in value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


async def reads(store: Storage, game_ids: range, tournament_ids: range) -> dict[str, Any]:
    """What `store` answers to every question the bot asks of the fixtures' data."""
    out: dict[str, Any] = {}
    for game_id in game_ids:
        try:
            stored = await store.games.load_game(game_id)
        except GameNotFound:
            out[f"game {game_id}"] = None
            continue
        game: dict[str, Any] = {"stored": plain(stored)}
        if stored.game is not None:
            # Every game replays from its journal to the state stored with it.
            game["replays to its snapshot"] = (
                await store.games.replay(game_id)
            ).to_json() == stored.game.to_json()
            game["journal"] = plain(await store.games.journal(game_id))
            game["table"] = plain(await store.standings.game_table(game_id))
            game["ratings"] = plain(await store.standings.rating_changes(game_id))
            game["ratings in chat"] = plain(
                await store.standings.rating_changes(game_id, stored.chat_id)
            )
        out[f"game {game_id}"] = game
    out["active games"] = sorted(g.id for g in await store.games.active_games())
    for chat in (None, *CHATS):
        for kind in ("points", "complex"):
            out[f"standings {chat} {kind}"] = plain(
                await store.standings.standings(chat, kind, limit=50)  # type: ignore[arg-type]
            )
        for pool in ("main", "two"):
            out[f"rating board {chat} {pool}"] = plain(
                await store.standings.rating_board(chat, pool, limit=50)  # type: ignore[arg-type]
            )
        if chat is not None:
            out[f"chat {chat}"] = plain(await store.people.get_chat_settings(chat))
            out[f"game in chat {chat}"] = plain(await store.games.game_in_chat(chat, None))
            out[f"last finished in chat {chat}"] = plain(
                await store.games.last_finished_game(chat, None)
            )
            out[f"tournaments in chat {chat}"] = [
                t.id for t in await store.tournaments.tournaments_in_chat(chat)
            ]
    for person in PEOPLE:
        out[f"person {person}"] = {
            "user": plain(await store.people.get_user(person)),
            "dm open": await store.people.dm_open(person),
            "history": plain(await store.standings.player_history(person)),
            "standing": plain(await store.standings.player_standing(person)),
            "standing in -100": plain(await store.standings.player_standing(person, -100)),
            "rating": plain(await store.standings.player_rating(person)),
            "rating two": plain(await store.standings.player_rating(person, None, "two")),
            "rating history": plain(await store.standings.rating_history(person)),
            "active game": plain(
                g.id if (g := await store.games.active_game_for_user(person)) else None
            ),
        }
    for tournament_id in tournament_ids:
        out[f"tournament {tournament_id}"] = {
            "stored": plain(await store.tournaments.get_tournament(tournament_id)),
            "registrations": plain(await store.tournaments.registrations(tournament_id)),
            "tables": plain(await store.tournaments.tournament_tables(tournament_id)),
            "claimed": plain(await store.tournaments.claimed(tournament_id)),
        }
    out["open tournaments"] = sorted(t.id for t in await store.tournaments.open_tournaments())
    out["languages"] = plain(await store.people.language_choices())
    out["handled"] = {str(u): await store.ledger.was_handled(u) for u in UPDATES}
    out["unanswered"] = plain(await store.ledger.unanswered(0))
    return out
