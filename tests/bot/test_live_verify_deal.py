"""🔐 Verify deal on the table page (issue 33, item 3), in Debian's chromium: once a hand
is over, its seed and commitment reach the page, and the page itself (the reader's own
browser, README "Fair deals") recomputes the deal and the commitment from the seed and
says whether they match; the hand still played offers nothing to verify."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from bot_harness import play_turn, rooms_of, running_bot, start_with_computers
from test_live_browser import ARTIFACTS, NARROW
from test_sandbox_browser import CHROMIUM_ARGS, chromium_path

from engine.cards import cards_of, shown_order
from sandbox.testing import running_double
from sandbox.webapp import LIGHT, init_data, page_address


async def test_the_page_verifies_a_finished_hands_deal_in_the_browser(tmp_path: Path) -> None:
    chromium = chromium_path()
    from playwright.async_api import async_playwright

    async with running_double() as double:
        ana = double.create_user("Ana", username="ana")
        bob = double.create_user("Bob", username="bob")
        group = double.create_group("Verify", members=[ana, bob])
        async with (
            running_bot(double, tmp_path / "hearts.sqlite3", pages=True) as app,
            async_playwright() as playwright,
        ):
            _, table = await start_with_computers(double, app, group, [ana, bob])
            game = table.game
            assert game is not None
            dealt = list(game.hands)
            proof = game.deal_proof()
            assert proof is not None
            while game.hand_number == 1:  # Ana and Bob in their DMs, the computers
                moved = [await play_turn(double, p, table) for p in (ana, bob)]
                if moved == [None, None]:
                    await asyncio.sleep(0.05)
            url = app.bot_data.settings.webapp_url
            browser = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            context = await browser.new_context(viewport=NARROW, device_scale_factor=2)
            await context.route("https://telegram.org/**", lambda route: route.abort())
            page = await context.new_page()
            page.set_default_timeout(8000)
            data = init_data(double.token, {"id": ana.id, "first_name": ana.name})
            await page.goto(page_address(f"{url}?g={table.id}", data, LIGHT))
            await page.wait_for_selector("#cards .card")
            await page.click("#scores-button")
            await page.wait_for_selector("#verify button")
            # Hand 1 is over; hand 2, being played, has nothing to verify yet.
            offered = await page.eval_on_selector_all(
                "#verify button", "(bs) => bs.map((b) => b.dataset.hand)"
            )
            assert offered == ["1"] and game.hand_number == 2
            assert (await page.inner_text("#verify")).startswith("🔐 Verify deal")
            await page.click('#verify button[data-hand="1"]')
            await page.wait_for_selector("#verified.ok")
            lines = (await page.inner_text("#verified")).splitlines()
            assert lines[0].startswith("Hand 1: ✅"), lines
            assert lines[1:3] == [f"🔓 {proof.seed}", f"🔐 {proof.commitment}"]
            shown = [line.split(": ", 1)[1] for line in lines[3:]]
            expected = [" ".join(c.symbol for c in shown_order(cards_of(hand))) for hand in dealt]
            assert shown == expected
            ARTIFACTS.mkdir(exist_ok=True)
            await page.screenshot(path=str(ARTIFACTS / "table-360-verified.png"))
            # Its result stays through the page's next states (cards played meanwhile).
            await page.wait_for_timeout(300)
            assert await page.is_visible("#verified.ok")
            await page.close()
            # The hand's commitment under the cards: one line on a 360 px phone, in every
            # language the bot speaks.
            for language in ("en", "es", "pt_BR", "ru", "fa", "hi"):
                await rooms_of(app).languages.choose_for_person(ana.id, language)
                sealed = await context.new_page()
                await sealed.goto(page_address(f"{url}?g={table.id}", data, LIGHT))
                await sealed.wait_for_selector("#sealed:not([hidden])")
                box = await sealed.evaluate(
                    """() => {
                        const e = document.getElementById('sealed');
                        const range = document.createRange();
                        range.selectNodeContents(e);
                        const rects = [...range.getClientRects()];
                        return {
                            text: e.textContent,
                            lines: new Set(rects.map((r) => Math.round(r.bottom))).size,
                            left: Math.min(...rects.map((r) => r.left)),
                            right: Math.max(...rects.map((r) => r.right)),
                        };
                    }"""
                )
                short = game.deal_proof()
                assert short is not None and short.commitment[:12] + "…" in box["text"], box
                assert box["lines"] == 1 and box["left"] >= 0 and box["right"] <= 360, box
                await sealed.close()
            await rooms_of(app).languages.choose_for_person(ana.id, "en")
            # A page sent a changed commitment (one digit) says it does not match.
            forged = await context.new_page()
            forged.set_default_timeout(8000)
            await forged.route_web_socket(re.compile(".*"), change_commitment)
            await forged.goto(page_address(f"{url}?g={table.id}", data, LIGHT))
            await forged.wait_for_selector("#cards .card")
            await forged.click("#scores-button")
            await forged.click('#verify button[data-hand="1"]')
            await forged.wait_for_selector("#verified.bad")
            said = await forged.inner_text("#verified")
            assert said.startswith("Hand 1: ❌ This seed does not give this commitment."), said
            await browser.close()


async def change_commitment(ws: Any) -> None:
    """Between the page and the bot: every state's first hand's commitment, one digit off."""
    server = ws.connect_to_server()

    def forward(message: str | bytes) -> None:
        state = json.loads(message)
        for hand in state.get("history", {}).get("hands", [])[:1]:
            last = hand["commitment"][-1]
            hand["commitment"] = hand["commitment"][:-1] + ("1" if last == "0" else "0")
        ws.send(json.dumps(state))

    server.on_message(forward)
