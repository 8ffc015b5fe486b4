"""A full disk stalls a game only while it lasts (issue 12, item 4).

The database is capped at its current size with ``PRAGMA max_page_count`` (SQLite then
answers "database or disk is full", as a full filesystem does). The computer players' moves
fail; their timer tries again with backoff; the group is told once; ``/healthz`` turns
unhealthy. When space comes back, the game finishes by itself, and the group hears so.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from bot_harness import open_table, rooms_of, running_bot, settings_for, table_in
from sqlalchemy import Connection, text

from bot.i18n import english
from bot.telegram.health import HealthServer, Known
from sandbox.testing import running_double
from storage import Storage
from storage.database import rows_changed

t = english()


def _disk_full_now(db: Connection) -> None:
    """The writer connection's own limit, at the pages it has: its next writes find the
    disk full."""
    (pages,) = db.execute(text("PRAGMA page_count")).one()
    db.execute(text(f"PRAGMA max_page_count = {pages}"))


async def _health(server: HealthServer) -> tuple[int, dict[str, Any]]:
    response = await server.healthz(None)  # type: ignore[arg-type]
    assert response.text is not None
    return response.status, json.loads(response.text)


async def test_a_game_waits_out_a_full_disk_and_finishes_by_itself(tmp_path: Path) -> None:
    async with running_double() as double:
        alice = double.create_user("Alice")
        group = double.create_group("Disk", members=[alice])
        database = tmp_path / "db.sqlite3"
        async with running_bot(double, database) as app:
            await alice.start_bot()
            await double.idle()
            lobby = await open_table(double, alice, group, computers=3, target="50")
            await alice.press(group, lobby, "▶ Start")
            table = table_in(app, group)
            await double.wait_for(lambda: table.game is not None, 5)
            storage = rooms_of(app).storage
            assert storage.dialect == "sqlite"
            settings = settings_for(double, database)
            health = HealthServer(
                settings, Known(settings, write_failure=lambda: storage.write_failure)
            )

            # Alice leaves: a computer plays her seat too; then the disk fills up.
            await alice.send(group, "/leave")
            await double.wait_for(lambda: table.seats[0].away, 5)  # type: ignore[union-attr]
            # The writer connection's own limit: its next writes find the disk full.
            await storage.database.transact(_disk_full_now)
            await double.wait_for(lambda: storage.write_failure is not None, 20)
            assert "full" in (storage.write_failure or "")
            # A small write may still fit in a page already there, so between failures one
            # can go through: /healthz says what the last write did. It turns unhealthy.
            for _ in range(100):
                status, body = await _health(health)
                if status == 503:
                    break
                await asyncio.sleep(0.05)
            assert status == 503
            assert {c["name"]: c["ok"] for c in body["checks"]}["writes"] is False
            assert "full" in {c["name"]: c["detail"] for c in body["checks"]}["writes"]

            rooms = rooms_of(app)
            stalled_at = rooms.registry.version(table.id)
            await asyncio.sleep(2.0)  # a few retries, each failing
            assert rooms.registry.version(table.id) == stalled_at  # no move went through
            assert table.status == "active"
            texts = [m.text or "" for m in double.chat_view(group.id).bot_messages]
            assert (
                texts.count(
                    t(
                        "⚠ I can't save moves right now, so this game waits. It goes on by "
                        "itself as soon as I can."
                    )
                )
                == 1
            )

            # Space comes back: the game goes on and ends without anyone doing anything.
            await storage.database.transact(
                rows_changed, text("PRAGMA max_page_count = 1073741823")
            )
            await double.wait_for(lambda: table.status == "finished", 60)
            assert table.game is not None and table.game.phase == "over"
            assert storage.write_failure is None
            status, body = await _health(health)
            assert {c["name"]: c["ok"] for c in body["checks"]}["writes"] is True
            texts = [m.text or "" for m in double.chat_view(group.id).bot_messages]
            assert (
                texts.count(
                    t(
                        "⚠ I can't save moves right now, so this game waits. It goes on by "
                        "itself as soon as I can."
                    )
                )
                == 1
            )
            assert texts.count(t("✅ Saving works again: the game goes on.")) == 1
        stored = await Storage.open(database)
        try:
            assert (await stored.games.load_game(table.id)).status == "finished"
        finally:
            await stored.close()
