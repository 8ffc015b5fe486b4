"""The table page in Debian's chromium (Playwright) when a state never reaches it: the page
does not draw the next one from a table it never saw; it asks for the full state and
draws that (`table.js`, `received`; the numbering is `bot.live.hub`'s)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from bot_harness import running_bot, start_with_computers
from test_live_browser import PHONE
from test_sandbox_browser import CHROMIUM_ARGS, chromium_path

from sandbox.testing import running_double
from sandbox.webapp import LIGHT, init_data, page_address


async def test_a_page_that_missed_a_state_asks_for_the_full_one(tmp_path: Path) -> None:
    chromium = chromium_path()
    try:
        from playwright.async_api import async_playwright
    except ImportError as exc:  # pragma: no cover - a broken install
        pytest.fail(f"playwright is not installed ({exc}); pip install -e '.[test]'")

    async with running_double() as double:
        ana = double.create_user("Ana", username="ana")
        group = double.create_group("Gaps", members=[ana])
        async with (
            running_bot(double, tmp_path / "hearts.sqlite3", pages=True) as app,
            async_playwright() as playwright,
        ):
            _, table = await start_with_computers(double, app, group, [ana])
            game = table.game
            assert game is not None and game.phase == "pass"
            seat = table.seat_of(ana.id)
            assert seat is not None
            browser = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            context = await browser.new_context(viewport=PHONE)
            await context.route("https://telegram.org/**", lambda route: route.abort())
            page = await context.new_page()
            page.set_default_timeout(8000)

            to_page: list[dict[str, Any]] = []
            from_page: list[str] = []
            dropped: list[dict[str, Any]] = []
            drop_next = False

            def between(ws: Any) -> None:
                """Forward both ways, keeping a copy; drop the first state pushed after a
                press (what a lost message would do)."""
                server = ws.connect_to_server()

                def down(message: str | bytes) -> None:
                    nonlocal drop_next
                    said = json.loads(message)
                    if drop_next and said.get("t") == "state" and not said.get("full"):
                        drop_next = False
                        dropped.append(said)
                        return
                    to_page.append(said)
                    ws.send(message)

                def up(message: str | bytes) -> None:
                    from_page.append(str(message))
                    server.send(message)

                server.on_message(down)
                ws.on_message(up)

            await page.route_web_socket("**/ws", between)
            data = init_data(double.token, {"id": ana.id, "first_name": ana.name})
            url = app.bot_data.settings.webapp_url
            await page.goto(page_address(f"{url}?g={table.id}", data, LIGHT))
            await page.wait_for_selector("#cards .card")
            assert to_page[[m["t"] for m in to_page].index("state")].get("full") is True

            first, second = (f'#cards .card[data-code="{c.code}"]' for c in game.hand(seat)[:2])
            drop_next = True
            await page.dispatch_event(first, "click")
            for _ in range(250):
                if dropped:
                    break
                await asyncio.sleep(0.02)
            # The state that shows the first card chosen was lost: the page learns it when
            # the next comes (the second card chosen), draws neither, asks for the full
            # state, and shows both chosen.
            await page.dispatch_event(second, "click")
            await page.wait_for_selector(first.replace(".card", ".card.chosen"))
            await page.wait_for_selector(second.replace(".card", ".card.chosen"))
            assert dropped, "no state was pushed after the press"
            assert '{"t":"state"}' in from_page
            full = [m for m in to_page if m.get("t") == "state"][-1]
            assert full.get("full") is True and full["change"] >= dropped[0]["change"]
            await browser.close()
