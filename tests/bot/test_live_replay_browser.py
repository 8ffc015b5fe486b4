"""▶ Replay on the table page, in chromium (Playwright): a hand in progress is refused;
once the hand is over its replay steps through it card by card, forward, back and by a
trick's number, and every frame the page shows (each seat's cards face up, the trick, who
took it) is the one the stored journal gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bot_harness import open_table, rooms_of, running_bot, table_in
from test_sandbox_browser import CHROMIUM_ARGS, chromium_path

from domain.people import ChatSettings
from engine import Rules
from engine.replay import Frame, frames, replays
from sandbox.testing import running_double
from sandbox.webapp import LIGHT, init_data, page_address

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
PHONE = {"width": 390, "height": 844}
NOT_OVER = "That hand isn't over yet: nobody sees a hand before it ends."

SHOWN = """() => {
    const section = document.getElementById('replay');
    const codes = (root) => [...root.querySelectorAll('.card')].map((c) => c.dataset.code);
    return {
        frame: Number(section.dataset.frame),
        step: section.dataset.step,
        hands: [...document.querySelectorAll('#replay-hands .replay-seat')].map(codes),
        table: [...document.querySelectorAll('#replay-trick .play')]
            .map((p) => [Number(p.dataset.seat), p.querySelector('.card').dataset.code]),
        winner: [...document.querySelectorAll('#replay-trick .play.winner')]
            .map((p) => Number(p.dataset.seat)),
        caption: document.getElementById('replay-caption').innerText,
    };
}"""


def expected(frame: Frame) -> dict[str, Any]:
    return {
        "step": frame.step,
        "hands": [[c.code for c in cards] for cards in frame.hands],
        "table": [[seat, card.code] for seat, card in frame.table],
        "winner": [] if frame.winner is None else [frame.winner],
    }


async def at_frame(page: Any, index: int) -> dict[str, Any]:
    await page.wait_for_function(
        "(k) => document.getElementById('replay').dataset.frame === String(k)", arg=index
    )
    shown: dict[str, Any] = await page.evaluate(SHOWN)
    return shown


async def test_a_replay_steps_through_a_finished_hand_as_the_journal_has_it(
    tmp_path: Path,
) -> None:
    chromium = chromium_path()
    try:
        from playwright.async_api import async_playwright
    except ImportError as exc:  # pragma: no cover - a broken install
        pytest.fail(f"playwright is not installed ({exc}); pip install -e '.[test]'")
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        group = double.create_group("Replays", members=[ann])
        async with (
            running_bot(double, tmp_path / "hearts.sqlite3", pages=True) as app,
            async_playwright() as playwright,
        ):
            await ann.start_bot()
            await double.idle()
            # One hand is the whole game: the computers play it once Ann leaves.
            await rooms_of(app).storage.people.save_chat_settings(
                ChatSettings(group.id, rules=Rules(target=1, ties="share").to_dict())
            )
            lobby = await open_table(double, ann, group, computers=3)
            await ann.press(group, lobby, "▶ Start")
            table = table_in(app, group)
            await double.wait_for(lambda: table.game is not None, 5)
            url = app.bot_data.settings.webapp_url
            browser = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            context = await browser.new_context(viewport=PHONE, device_scale_factor=2)
            await context.route("https://telegram.org/**", lambda route: route.abort())
            page = await context.new_page()
            page.set_default_timeout(8000)
            data = init_data(double.token, {"id": ann.id, "first_name": ann.name})
            await page.goto(page_address(f"{url}?g={table.id}", data, LIGHT))
            await page.wait_for_selector("#cards .card")

            # The hand being played: refused, and nothing of it shown.
            await page.evaluate("() => window.HeartsReplay.ask(1)")
            await page.wait_for_function(
                "(t) => document.getElementById('toast').textContent === t", arg=NOT_OVER
            )
            assert await page.query_selector("#replay") is None

            # Ann passes on the page herself: the coach reviews that choice of hers.
            game = table.game
            assert game is not None
            seat = table.seat_of(ann.id)
            assert seat is not None
            passed = [c.code for c in game.hand(seat)[:3]]
            for code in passed:
                await page.click(f'#cards .card[data-code="{code}"]')
                await page.wait_for_selector(f'#cards .card.chosen[data-code="{code}"]')
            await page.click("#pass:not([disabled])")
            await double.wait_for(lambda: game.phase != "pass" or game.has_passed(seat), 5)
            await ann.send(group, "/leave")
            await double.wait_for(lambda: table.status == "finished", 60)
            games = rooms_of(app).storage.games
            start, journal = await games.game_and_moves(table.id)
            (hand,) = replays(start, [move for move, _ in journal])
            steps = frames(hand)

            # The game is over: the scores panel offers its hand; ▶ opens the replay.
            # The game is over: the open page shows its scores, with its hand.
            await page.click('#replays button[data-hand="1"]')
            await page.wait_for_selector("#replay:not([hidden])")
            shown = await at_frame(page, 0)
            assert {k: shown[k] for k in ("step", "hands", "table", "winner")} == expected(steps[0])
            for index in range(1, len(steps)):
                await page.click("#replay-forward")
                shown = await at_frame(page, index)
                want = expected(steps[index])
                assert {k: shown[k] for k in want} == want, index
                if steps[index].winner is not None:
                    trick = hand.tricks[steps[index].trick - 1]
                    assert "Ann" in shown["caption"] or trick.winner != 0
            assert await page.is_disabled("#replay-forward")
            await page.click("#replay-back")
            shown = await at_frame(page, len(steps) - 2)
            assert shown["hands"] == expected(steps[-2])["hands"]
            # A trick's number shows it taken.
            await page.click('#replay-tricks button[data-trick="5"]')
            five = next(k for k, f in enumerate(steps) if f.trick == 5 and f.winner is not None)
            shown = await at_frame(page, five)
            assert shown["winner"] == [hand.tricks[4].winner]
            assert len(shown["table"]) == len(hand.tricks[4].plays)
            # The coach's review of Ann's one choice, her pass: the cards it found costly
            # are marked in the deal, or it was well played.
            await page.wait_for_function(
                "() => document.getElementById('replay-review').innerText.length > 0",
                timeout=60000,
            )
            review = await page.inner_text("#replay-review")
            await page.click("#replay-first")
            await at_frame(page, 0)
            mistakes = await page.eval_on_selector_all(
                "#replay-hands .card.mistake", "(cards) => cards.map((c) => c.dataset.code)"
            )
            if "well played" in review:
                assert mistakes == []
            else:
                assert "The pass: you passed" in review, review
                # The cards of hers the expert would have kept.
                assert mistakes and set(mistakes) <= set(passed), (mistakes, passed)
            # The chat's "open table" of a replay (``?r=1``) opens the page at that hand.
            await page.goto(page_address(f"{url}?g={table.id}&r=1", data, LIGHT))
            await page.wait_for_selector("#replay:not([hidden])")
            shown = await at_frame(page, 0)
            assert shown["hands"] == expected(steps[0])["hands"]
            ARTIFACTS.mkdir(exist_ok=True)
            await page.screenshot(path=str(ARTIFACTS / "replay.png"))
            await browser.close()
