"""``DEFAULT_TURN_TIMER`` is what a chat's tables get until the chat chooses a timer."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bot_harness import FAST, open_table, settings_for, table_in

from bot.app import build_application, polling
from sandbox.testing import running_double


async def test_a_chat_that_never_chose_gets_the_configured_turn_timer(tmp_path: Path) -> None:
    async with running_double() as double:
        alice = double.create_user("Alice")
        fresh = double.create_group("Fresh", members=[alice], admins=[alice])
        chosen = double.create_group("Chosen", members=[alice], admins=[alice])
        settings = replace(settings_for(double, tmp_path / "db.sqlite3"), default_turn_timer=30)
        app = build_application(settings, FAST)
        async with polling(app, poll_timeout=1):
            await alice.start_bot()
            await double.idle()
            await open_table(double, alice, fresh)
            assert table_in(app, fresh).options.turn_timer == 30
            await open_table(double, alice, chosen, timer="120")
            await alice.send(chosen, "/cancel")
            await double.idle()
            await open_table(double, alice, chosen)
            assert table_in(app, chosen).options.turn_timer == 120
