"""A watcher's table page in Debian's chromium (Playwright) follows a whole hand (issue
33.4): Eve, a member of the group who does not play, opens the group's 👀 Watch link
while Ana and Bob play in their DMs beside two computers. Every WebSocket frame her page
receives while the hand is played is checked, the moment it arrives, against the cards
every hand holds then: none may be in it (a card still held when a frame arrives was held
when the frame was made: cards only leave hands during a hand). Her page shows the trick
as it is played, every seat, no cards of her own, the count of watchers, and the hand's
results when it is over. A screenshot goes to test-artifacts/.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from bot_harness import rooms_of, running_bot, start_with_computers
from test_live_browser import ARTIFACTS, PHONE, dm_move, trick_codes
from test_sandbox_browser import CHROMIUM_ARGS, chromium_path

from bot.tables.model import Table
from sandbox.testing import running_double
from sandbox.webapp import DARK, init_data, page_address

CODE = re.compile(r'"((?:10|[2-9TJQKA])[SHDC])"')


async def follows_trick(page: Any, table: Table) -> None:
    """Wait until the page shows the trick the game has now (computers move meanwhile)."""
    game = table.game
    assert game is not None
    for _ in range(400):
        shown = await page.evaluate(
            """() => [...document.querySelectorAll('#trick .card:not(.taken)')]
                .map((c) => c.dataset.code).sort()"""
        )
        if game.hand_number != 1 or shown == trick_codes(table):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the page shows {shown}, the game {trick_codes(table)}")


async def test_a_watchers_page_follows_a_hand_and_no_frame_holds_a_hands_card(
    tmp_path: Path,
) -> None:
    chromium = chromium_path()
    try:
        from playwright.async_api import async_playwright
    except ImportError as exc:  # pragma: no cover - a broken install
        pytest.fail(f"playwright is not installed ({exc}); pip install -e '.[test]'")
    async with running_double() as double:
        ana = double.create_user("Ana", username="ana")
        bob = double.create_user("Bob", username="bob")
        eve = double.create_user("Eve", username="eve")
        group = double.create_group("Watched", members=[ana, bob, eve])
        async with (
            running_bot(double, tmp_path / "hearts.sqlite3", pages=True) as app,
            async_playwright() as playwright,
        ):
            _, table = await start_with_computers(double, app, group, [ana, bob])
            game = table.game
            assert game is not None
            checked: list[int] = []
            leaks: list[tuple[int, set[str]]] = []

            def received(payload: str | bytes) -> None:
                """Each frame as it arrives: while hand 1 is played, no card held now."""
                if not isinstance(payload, str) or '"t": "state"' not in payload:
                    return
                if game.hand_number != 1 or game.phase == "over":
                    return
                held = {c.code for s in range(game.players) for c in game.hand(s)}
                if found := set(CODE.findall(payload)) & held:
                    leaks.append((json.loads(payload)["version"], found))
                checked.append(len(payload))

            browser = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            context = await browser.new_context(viewport=PHONE, device_scale_factor=2)
            await context.route("https://telegram.org/**", lambda route: route.abort())
            page = await context.new_page()
            page.set_default_timeout(8000)
            page.on("websocket", lambda ws: ws.on("framereceived", received))
            url = app.bot_data.settings.webapp_url
            data = init_data(
                double.token,
                {"id": eve.id, "first_name": eve.name},
                start_param=f"w{table.id}",
            )
            await page.goto(page_address(url, data, DARK))
            await page.wait_for_selector("#seats .seat >> nth=3")
            assert await page.locator("#seats .seat").count() == 4
            assert await page.locator("#cards .card").count() == 0
            await page.wait_for_function(
                "() => document.getElementById('me').textContent.includes('👀 1')"
            )
            assert (await page.inner_text("#me")).startswith("👀 Watching")
            assert table.seat_of(eve.id) is None
            by_id = {ana.id: ana, bob.id: bob}
            shot = False
            while game.hand_number == 1:
                (seat, *_) = game.waiting_for() or (None,)
                sitting = table.seats[seat] if seat is not None else None
                if sitting is None or sitting.is_computer_now or sitting.user_id not in by_id:
                    await asyncio.sleep(0.02)  # a computer's move
                    continue
                await dm_move(double, by_id[sitting.user_id], table)
                if game.hand_number == 1 and game.phase == "play" and game.trick:
                    await follows_trick(page, table)
                    if not shot and len(game.tricks) >= 2:
                        ARTIFACTS.mkdir(exist_ok=True)
                        await page.screenshot(path=str(ARTIFACTS / "table-watcher.png"))
                        shot = True
            assert not leaks, leaks
            assert len(checked) >= 13, checked  # a frame at least for each trick
            # The hand is over: its results reach the watcher too.
            await page.wait_for_selector("#banner:not([hidden])")
            assert "1:" in await page.inner_text("#banner")
            assert await page.locator("#cards .card").count() == 0
            live = rooms_of(app).live
            assert live is not None and live.watchers(table.id) == 1
            await browser.close()
