"""What a table's screens keep (its message ids, a seat's selections) is stored by the
screens apart from the game (issue 52.1), and a restart edits the same messages: from a
database written so, and from one whose games kept their screens in ``meta`` (the schema
before revision 16), upgraded at the start."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot_harness import (
    FAST,
    card_button,
    open_table,
    play_turn,
    rooms_of,
    running_bot,
    seat_everyone,
    table_in,
)
from sqlalchemy import Connection

from sandbox.double import BotApiDouble
from sandbox.people import SandboxUser
from sandbox.testing import running_double
from storage.upgrade import _alembic, upgrade_engine


async def downgrade_to_15(database: Path) -> None:
    """The database as revision 15's code left it: the screens back in each game's meta."""

    def down(connection: Connection) -> None:
        _alembic(connection, "downgrade", "15")

    engine = upgrade_engine(database)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(down)
    finally:
        await engine.dispose()


def stored(database: Path, game_id: int) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The game's meta and its screens' row (None: no such table or row)."""
    with sqlite3.connect(database) as db:
        [(meta,)] = db.execute("SELECT meta FROM games WHERE id = ?", (game_id,)).fetchall()
        has = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'table_screens'").fetchall()
        rows = (
            db.execute("SELECT state FROM table_screens WHERE game_id = ?", (game_id,)).fetchall()
            if has
            else []
        )
    return json.loads(meta), json.loads(rows[0][0]) if rows else None


async def _a_game_stopped_mid_trick(
    double: BotApiDouble, database: Path, people: list[SandboxUser]
) -> tuple[int, int | None, dict[int, int]]:
    """Four people play into the second trick; the bot stops. The game's id, its table
    message's and the seats' DMs' ids."""
    group = double.create_group("Kept", members=people)
    async with running_bot(double, database) as app:
        lobby, table = await seat_everyone(double, app, group, people)
        await people[0].press(group, lobby, "▶ Start")
        game = table.game
        assert game is not None
        while len(game.tricks) < 1 or len(game.trick) != 2:
            for p in people:
                if len(game.tricks) >= 1 and len(game.trick) == 2:
                    break
                await play_turn(double, p, table)
        await double.wait_for(lambda: len(table.ui.dm_message_ids) == 4, 5)
        return table.id, table.ui.table_message_id, dict(table.ui.dm_message_ids)


async def _the_restart_edits_the_same_messages(
    double: BotApiDouble,
    database: Path,
    people: list[SandboxUser],
    game_id: int,
    message_id: int | None,
    dms: dict[int, int],
) -> None:
    async with running_bot(double, database) as app:
        table = rooms_of(app).registry.tables[game_id]
        assert table.ui.table_message_id == message_id and table.ui.dm_message_ids == dms
        game = table.game
        assert game is not None and game.current_player is not None
        seat = game.current_player
        person = people[seat]
        edits = double.stored_message(person.dm, dms[seat])
        assert edits is not None
        was = edits.edits
        card = game.legal_plays()[0]
        data = await card_button(double, person, card, game.hand_number)
        assert await person.press(person.dm, dms[seat], data=data) == f"Played {card.symbol}"
        await double.wait_for(lambda: edits.edits > was, 5)
        with_buttons = [m.message_id for m in person.dm_view().bot_messages if m.buttons]
        assert with_buttons == [dms[seat]]  # the same DM edited, none sent anew
        assert table.ui.dm_message_ids == dms


async def test_the_screens_store_their_state_apart_and_a_restart_edits_the_same_messages(
    tmp_path: Path,
) -> None:
    database = tmp_path / "db.sqlite3"
    async with running_double() as double:
        people = [double.create_user(n) for n in ("Alice", "Bob", "Carol", "Dave")]
        game_id, message_id, dms = await _a_game_stopped_mid_trick(double, database, people)
        meta, screens = stored(database, game_id)
        assert "ui" not in meta and "dm_message_ids" not in json.dumps(meta)
        assert screens is not None and screens["table_message_id"] == message_id
        assert {int(seat): m for seat, m in screens["dm_message_ids"].items()} == dms
        await _the_restart_edits_the_same_messages(
            double, database, people, game_id, message_id, dms
        )


async def test_a_database_from_before_revision_16_restores_the_same_messages(
    tmp_path: Path,
) -> None:
    database = tmp_path / "db.sqlite3"
    async with running_double() as double:
        people = [double.create_user(n) for n in ("Alice", "Bob", "Carol", "Dave")]
        game_id, message_id, dms = await _a_game_stopped_mid_trick(double, database, people)
        await downgrade_to_15(database)
        meta, screens = stored(database, game_id)
        assert screens is None and meta["ui"]["table_message_id"] == message_id
        assert "pending" in meta["ui"] and "pending" not in meta
        await _the_restart_edits_the_same_messages(
            double, database, people, game_id, message_id, dms
        )
        meta, screens = stored(database, game_id)
        assert "ui" not in meta and "pending" in meta
        assert screens is not None and screens["table_message_id"] == message_id


async def test_a_turns_nudge_is_stored_by_the_screens(tmp_path: Path) -> None:
    """A "your turn" message's id is the screens' to store (a move no longer carries it):
    stored soon after it is sent, so a restart deletes it when its person moves rather than
    nudging them a second time; and stored as gone once they move (a card played changes
    nothing else of the screens), or a restart would keep their next turn from its nudge.
    Each comes apart from the screens' other saves, which it must not ride on."""
    database = tmp_path / "db.sqlite3"
    tuning = replace(FAST, nudge_delay=2.0, engaged_nudge_delay=2.0)
    async with running_double() as double:
        alice = double.create_user("Alice")
        group = double.create_group("Nudged", members=[alice])
        async with running_bot(double, database, tuning) as app:
            await alice.start_bot()
            await double.wait_for(lambda: alice.dm_view().last() is not None, 5)
            lobby = await open_table(double, alice, group, computers=3, timer="0")
            table = table_in(app, group)
            await alice.press(group, lobby, "▶ Start")
            seat = table.seat_of(alice.id)
            assert seat is not None
            await double.wait_for(lambda: seat in table.ui.nudge_message_ids, 5)
            nudge = table.ui.nudge_message_ids[seat]

            def nudge_stored() -> int | None:
                _, screens = stored(database, table.id)
                assert screens is not None
                found: int | None = screens["nudge_message_ids"].get(str(seat))
                return found

            await double.wait_for(lambda: nudge_stored() == nudge, 5)
            game = table.game
            assert game is not None
            await play_turn(double, alice, table)  # the pass
            await double.wait_for(lambda: game.phase == "play" and seat in game.waiting_for(), 5)
            await double.wait_for(lambda: seat in table.ui.nudge_message_ids, 5)
            nudge = table.ui.nudge_message_ids[seat]
            await double.wait_for(lambda: nudge_stored() == nudge, 5)
            await play_turn(double, alice, table)  # a card: the nudge goes
            await double.wait_for(lambda: nudge_stored() is None, 5)
