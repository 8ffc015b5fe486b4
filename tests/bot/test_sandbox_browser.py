"""The sandbox page in a real headless browser: Debian's chromium driven by Playwright.

The runner's world (the real bot, the double, the web page) runs in this process; the
browser opens a table in the group, adds three computers, starts, passes three cards and
plays a few tricks in Ana's DM, all by typing and clicking on the page. A screenshot goes
to test-artifacts/sandbox.png. Needs the `chromium` Debian package; without it the test
fails (it never downloads a browser).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from bot_harness import table_in
from system_packages import need_system_package

from bot.config import Tuning
from bot.sandbox_runner import sandbox_world
from sandbox.limits import RateLimits

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / "test-artifacts" / "sandbox.png"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
QUICK = Tuning(
    computer_delay=0.05,
    group_edit_interval=0.3,
    dm_edit_interval=0.1,
    thinker_workers=0,
    rate_limiter=True,
)
TRICKS_TO_PLAY = 3


def chromium_path() -> str:
    """Debian's chromium ($CHROMIUM overrides), or a failure that says how to install it."""
    found = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if found is None and Path("/usr/bin/chromium").exists():
        found = "/usr/bin/chromium"
    if found is None:
        # No browser is ever downloaded (fonts-noto-color-emoji makes a faithful screenshot).
        need_system_package("chromium", "the browser tests")
    assert found is not None
    return found


async def shoot(page: Any, name: str) -> None:
    """A screenshot kept as a test artifact (test-artifacts/ is not in git)."""
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SCREENSHOT.parent / f"sandbox-{name}.png"))


async def test_a_person_plays_in_the_browser(tmp_path: Path) -> None:
    chromium = chromium_path()
    try:
        from playwright.async_api import async_playwright, expect
    except ImportError as exc:  # pragma: no cover - a broken install
        pytest.fail(f"playwright is not installed ({exc}); pip install -e '.[test]'")

    async with (
        sandbox_world(
            tmp_path / "sandbox.sqlite3",
            web_port=0,
            rate_limits=RateLimits.off(),
            tuning=QUICK,
            computer_think_ms=20,
        ) as world,
        async_playwright() as playwright,
    ):
        you = world.people[0]
        browser = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1440, "height": 900})
            page.set_default_timeout(8000)
            expect.set_options(timeout=8000)
            await page.goto(world.url)
            group = page.locator(f'section.panel[data-chat-id="{world.group.id}"]')
            dm = page.locator(f'section.panel[data-chat-id="{you.dm}"]')
            await expect(dm.locator(".msg")).not_to_have_count(0)
            await expect(dm).to_contain_text("Hi \u2068Ana\u2069!")
            await expect(group).to_have_attribute("data-person", "Ana")

            # The group: /newgame, three computers, Start.
            await group.locator("input[name=text]").fill("/newgame")
            await group.locator("input[name=text]").press("Enter")
            lobby = group.locator(".msg", has=page.locator(".kb-btn", has_text="Add computer"))
            await expect(lobby).to_have_count(1)
            await expect(group.locator(".msg.out")).to_contain_text("/newgame")
            # The rules menu: every row names what it sets; a game to 50, to see it end.
            lobby_id = await lobby.get_attribute("data-message-id")
            lobby = group.locator(f'.msg[data-message-id="{lobby_id}"]')
            await lobby.locator(".kb-btn", has_text="Rules").click()
            await expect(lobby).to_contain_text("Q♠ breaks hearts")
            await lobby.locator('.kb-btn[data-callback$=":target=50"]').click()
            await expect(lobby.locator(".text")).to_contain_text("Target: 50")
            await shoot(page, "rules-menu")
            await lobby.locator(".kb-btn", has_text="Back").click()
            for count in range(1, 4):
                await lobby.locator(".kb-btn", has_text="Add computer").click()
                await expect(lobby.locator(".text")).to_contain_text(
                    re.compile(r"(🤖[\s\S]*){" + str(count) + "}")
                )
            await lobby.locator(".kb-btn", has_text="Start").click()
            await expect(group.locator(".toast", has_text="Dealing the cards")).to_be_visible()

            # Ana's DM: choose three cards, pass them.
            hand = dm.locator(".msg", has=page.locator(".kb-btn.card")).last
            await expect(hand.locator(".kb-btn.card")).to_have_count(13)
            await expect(hand).to_contain_text("Pass 3 cards")
            # The coach: a hint names three cards and why, and passes nothing.
            await hand.locator(".kb-btn", has_text="💡 Hint").click()
            await expect(hand).to_contain_text("The expert would pass")
            await expect(hand).to_contain_text("Expected points this hand")
            await shoot(page, "hint")
            for chosen in range(1, 4):
                await hand.locator(".kb-btn.card:not(.chosen)").first.click()
                await expect(hand.locator(".kb-btn.card.chosen")).to_have_count(chosen)
            await hand.locator(".kb-btn", has_text="Pass 3/3").click()
            await expect(dm.locator(".toast", has_text="Passed")).to_be_visible()

            # Play a few tricks: the engine says which cards are legal, the page plays them.
            table = table_in(world.app, world.group)
            game = table.game
            assert game is not None
            seat = table.seat_of(you.id)
            assert seat is not None
            for played in range(TRICKS_TO_PLAY):
                await world.double.wait_for(
                    lambda: game.phase == "play" and seat in game.waiting_for(), 10
                )
                card = game.legal_plays()[0]
                button = hand.locator(
                    f'.kb-btn.card[data-callback$=":{game.hand_number}:{card.code}"]'
                )
                await button.click()
                await expect(dm.locator(".toast", has_text=f"Played {card.symbol}")).to_be_visible()
                await expect(hand.locator(".kb-btn.card")).to_have_count(12 - played)

            # What a person sees now: the group's table, the DM's trick, the other DMs.
            await expect(group).to_contain_text("Hearts sandbox")
            await expect(dm).to_contain_text("Last trick")
            for other in world.people[1:]:
                other_dm = page.locator(f'section.panel[data-chat-id="{other.dm}"]')
                await expect(other_dm).to_contain_text(f"Hi \u2068{other.name}\u2069!")
            assert await page.locator(".toast.error").count() == 0
            assert not world.double.unanswered_callbacks()
            assert world.double.error_count(400) == 0

            await expect(page.locator(".toast")).to_have_count(0)  # toasts fade out
            await expect(dm).to_contain_text(re.compile(r"Trick \d+/13"))
            await shoot(page, "dm-mid-trick")
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(SCREENSHOT))

            # Ana leaves: computers play on. Her card screen closes at once, saying why and
            # with no button left on it; the game ends with one announcement and a rematch
            # button.
            await group.locator("input[name=text]").fill("/leave")
            await group.locator("input[name=text]").press("Enter")
            await expect(dm).to_contain_text("You left this game", timeout=15000)
            await expect(dm.locator(".kb-btn.card")).to_have_count(0)
            await shoot(page, "left")
            await world.double.wait_for(lambda: table.status == "finished", 60)
            await expect(group).to_contain_text("Final scores", timeout=15000)
            await expect(group.locator(".kb-btn", has_text="New game")).to_have_count(1)
            chart = group.locator(".msg.photo img")
            await expect(chart).to_have_count(1, timeout=15000)
            await chart.scroll_into_view_if_needed()
            await expect(group.locator(".msg.photo")).to_contain_text("Game over")
            await shoot(page, "game-end")
        finally:
            await browser.close()
