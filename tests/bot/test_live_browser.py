"""The table page in Debian's chromium (Playwright), beside people playing in their DMs.

Four people play a whole hand: Ana and Bob on the table page, Carol and Dave with their DM
buttons. After every card both pages show the trick the game has; Bob's connection drops
mid-hand (the network goes away, as on a phone that sleeps), a card is played meanwhile,
and his page catches up by itself when the network is back. Screenshots of the table on a
phone-sized viewport, light (Ana) and dark (Bob), go to test-artifacts/.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bot_harness import play_turn, rooms_of, running_bot, seat_everyone
from patience import patient
from test_sandbox_browser import CHROMIUM_ARGS, chromium_path

from bot.tables.model import Table
from sandbox.double import BotApiDouble
from sandbox.people import SandboxUser
from sandbox.testing import running_double
from sandbox.webapp import DARK, LIGHT, init_data, page_address

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
PHONE = {"width": 390, "height": 844}


def trick_codes(table: Table) -> list[str]:
    game = table.game
    assert game is not None
    return sorted(c.code for _, c in game.trick)


async def shows_trick(page: Any, codes: list[str]) -> None:
    """Wait until the page's trick (not a trick flying to its taker) is `codes`."""
    await page.wait_for_function(
        """(codes) => {
            const shown = [...document.querySelectorAll('#trick .card:not(.taken)')]
                .map((c) => c.dataset.code).sort();
            return JSON.stringify(shown) === JSON.stringify(codes);
        }""",
        arg=codes,
    )


async def page_move(page: Any, table: Table, seat: int) -> None:
    """The seat's move made on its page: three cards and Pass, a legal card, or the
    moon's choice."""
    game = table.game
    assert game is not None
    if game.phase == "pass":
        for card in game.hand(seat)[:3]:
            await page.click(f'#cards .card[data-code="{card.code}"]')
            await page.wait_for_selector(f'#cards .card.chosen[data-code="{card.code}"]')
        await page.click("#pass:not([disabled])")
        # Until the pass is made (the click only sends it): the next move is read from it.
        await until(lambda: game.phase != "pass" or game.has_passed(seat))
        return
    if game.phase == "moon":
        # The seat took every point (the deals are random: fair deals), and chooses on its
        # page what its moon does, as its DM would offer.
        await page.click("button.moon")
        await until(lambda: game.phase != "moon", "the page's moon choice was not taken")
        return
    hand, before = game.hand_number, len(game.hand(seat))
    card = game.legal_plays()[-1]
    await page.click(f'#cards .card.legal[data-code="{card.code}"]')
    await until(
        lambda: game.hand_number != hand or len(game.hand(seat)) < before,
        f"the page's {card.code} was not played",
    )


async def until(done: Callable[[], bool], failed: str = "not done") -> None:
    """Until `done()` (what a click asked for is made), checked every 20 ms; a patient
    while at most."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patient(5)
    while not done():
        if loop.time() > deadline:
            raise AssertionError(failed)
        await asyncio.sleep(0.02)


async def dm_move(double: BotApiDouble, person: SandboxUser, table: Table) -> None:
    answer = await play_turn(double, person, table)
    assert answer is not None and not answer.startswith(("That", "It is not")), answer


async def test_two_play_on_the_page_and_two_in_their_dms(tmp_path: Path) -> None:
    chromium = chromium_path()
    try:
        from playwright.async_api import async_playwright
    except ImportError as exc:  # pragma: no cover - a broken install
        pytest.fail(f"playwright is not installed ({exc}); pip install -e '.[test]'")
    async with running_double() as double:
        people = [
            double.create_user(n, username=n.lower()) for n in ("Ana", "Bob", "Carol", "Dave")
        ]
        ana, bob = people[0], people[1]
        group = double.create_group("Live table", members=people)
        async with (
            running_bot(double, tmp_path / "hearts.sqlite3", pages=True) as app,
            async_playwright() as playwright,
        ):
            lobby, table = await seat_everyone(double, app, group, people)
            await ana.press(group, lobby, "▶ Start")
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            assert game is not None
            url = app.bot_data.settings.webapp_url
            browser = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            pages: dict[int, Any] = {}
            for person, theme in ((ana, LIGHT), (bob, DARK)):
                context = await browser.new_context(viewport=PHONE, device_scale_factor=2)
                await context.route("https://telegram.org/**", lambda route: route.abort())
                page = await context.new_page()
                page.set_default_timeout(8000)
                data = init_data(double.token, {"id": person.id, "first_name": person.name})
                await page.goto(page_address(f"{url}?g={table.id}", data, theme))
                await page.wait_for_selector("#cards .card")
                seat = table.seat_of(person.id)
                assert seat is not None
                pages[seat] = page
            live = rooms_of(app).live
            assert live is not None
            by_seat = {table.seat_of(p.id): p for p in people}
            dropped = caught_up = False
            bob_seat = table.seat_of(bob.id)
            by_seat_of = {p.id: table.seat_of(p.id) for p in people}
            ARTIFACTS.mkdir(exist_ok=True)
            while game.hand_number == 1:
                (seat, *_) = game.waiting_for()
                if seat in pages:
                    await page_move(pages[seat], table, seat)
                else:
                    await dm_move(double, by_seat[seat], table)
                if game.hand_number != 1 or not game.trick:
                    continue
                if len(game.tricks) == 2 and len(game.trick) == 2:
                    for name, who in (("light", ana), ("dark", bob)):
                        page = pages[by_seat_of[who.id]]
                        await shows_trick(page, trick_codes(table))
                        await page.screenshot(path=str(ARTIFACTS / f"table-{name}.png"))
                (next_seat, *_) = game.waiting_for()
                if (
                    not dropped
                    and len(game.tricks) >= 5
                    and len(game.trick) in (1, 2)  # Bob is next after at most one of them
                    and next_seat != bob_seat
                ):
                    # Bob's network goes away; his connection drops; the game goes on.
                    bob_page = pages[bob_seat]
                    await bob_page.context.set_offline(True)
                    for page in live.pages_of(bob.id):
                        await page.socket.close()
                    await asyncio.sleep(0.3)
                    assert not live.is_open(table.id, bob_seat)
                    (seat, *_) = game.waiting_for()
                    if seat in pages:
                        await page_move(pages[seat], table, seat)
                    else:
                        await dm_move(double, by_seat[seat], table)
                    assert not live.is_open(table.id, bob_seat)  # it moved while he was away
                    await bob_page.context.set_offline(False)
                    dropped = True
                    await shows_trick(bob_page, trick_codes(table))
                    # The page reconnects on its own; on a busy machine that can come a
                    # moment after the trick it fetched is on the screen.
                    for _ in range(80):
                        if live.is_open(table.id, bob_seat):
                            break
                        await asyncio.sleep(0.1)
                    caught_up = live.is_open(table.id, bob_seat)
                    continue
                for page in pages.values():
                    await shows_trick(page, trick_codes(table))
            assert dropped, "no moment came to take Bob's connection away"
            assert caught_up, "Bob's page did not reconnect within 8 s of coming back online"
            assert game.hand_number == 2 and len(game.hand_history) == 1
            # The hand's results reach both pages: the banner names the hand just scored.
            for page in pages.values():
                await page.wait_for_selector("#banner:not([hidden])")
                assert "1:" in await page.inner_text("#banner")
            assert (ARTIFACTS / "table-light.png").stat().st_size > 10_000
            assert not double.unanswered_callbacks()
            await browser.close()


NARROW = {"width": 360, "height": 740}


async def test_the_page_on_a_360_px_phone_in_every_language(tmp_path: Path) -> None:
    """The title in the reader's language, the header on one line, and 💡 Hint answered on
    the page, in each language the bot speaks."""
    from bot_harness import start_with_computers

    from bot.i18n import translator

    chromium = chromium_path()
    from playwright.async_api import async_playwright

    async with running_double() as double:
        ana = double.create_user("Ana", username="ana")
        bob = double.create_user("Bob", username="bob")
        group = double.create_group("Narrow", members=[ana, bob])
        async with (
            running_bot(double, tmp_path / "hearts.sqlite3", pages=True) as app,
            async_playwright() as playwright,
        ):
            _, table = await start_with_computers(double, app, group, [ana, bob])
            url = app.bot_data.settings.webapp_url
            browser = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            context = await browser.new_context(viewport=NARROW, device_scale_factor=2)
            await context.route("https://telegram.org/**", lambda route: route.abort())
            data = init_data(double.token, {"id": ana.id, "first_name": ana.name})
            ARTIFACTS.mkdir(exist_ok=True)
            for language in ("en", "es", "pt_BR", "ru", "fa", "hi"):
                await rooms_of(app).languages.choose_for_person(ana.id, language)
                title = translator(language)("Hearts")
                page = await context.new_page()  # a page opened anew, in the new language
                page.set_default_timeout(8000)
                await page.goto(page_address(f"{url}?g={table.id}", data, LIGHT))
                await page.wait_for_selector("#cards .card")
                await page.wait_for_function("(t) => document.title === t", arg=title)
                assert await page.inner_text("#title") == f"♥ {title}"
                bar = await page.evaluate(
                    """() => {
                        const bar = document.getElementById('bar');
                        const shown = [...bar.children].filter((e) => !e.hidden);
                        const hand = document.getElementById('hand-no');
                        const lines = (e) => {
                            const range = document.createRange();
                            range.selectNodeContents(e);
                            return new Set([...range.getClientRects()]
                                .map((r) => Math.round(r.bottom))).size;
                        };
                        return {
                            tops: shown.map((e) => Math.round(e.getBoundingClientRect().top
                                + e.getBoundingClientRect().height / 2)),
                            lines: shown.map(lines),
                            height: bar.getBoundingClientRect().height,
                            clipped: hand.scrollWidth > hand.clientWidth,
                            right: Math.max(...shown.map((e) => e.getBoundingClientRect().right)),
                            left: Math.min(...shown.map((e) => e.getBoundingClientRect().left)),
                        };
                    }"""
                )
                assert len(bar["tops"]) == 5, bar  # the tracker is on at this table
                one_line = all(n == 1 for n in bar["lines"]) and bar["height"] < 44
                assert max(bar["tops"]) - min(bar["tops"]) <= 2 and one_line, (
                    language,
                    bar,
                )
                assert not bar["clipped"] and bar["left"] >= 0 and bar["right"] <= 360, bar
                # 💡 Hint: pressed on the page, answered on the page.
                await page.click("#hint-button")
                await page.wait_for_selector("#hint:not([hidden])")
                assert (await page.inner_text("#hint")).startswith("💡")
                await page.screenshot(path=str(ARTIFACTS / f"table-360-{language}.png"))
                await page.close()
            assert not double.unanswered_callbacks()
            await browser.close()
