"""The coach cannot starve the computer players (issue 29): while a table played only by
computers runs in one group, people elsewhere press 💡 Hint 50 times at once, four people
press it 12 times each, and one asks for the reviews of hands 1–5 three times; the
computers' table moves during each attack and never waits between moves more than 1.5×
its longest wait in the few seconds right before that attack (a baseline per attack, so
a loaded machine's changing pace is in both).
Through the real python-telegram-bot stack against the Bot API double, with the worker
pool in its own process as in production."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import replace
from pathlib import Path

import pytest
from bot_harness import (
    FAST,
    MoveTimes,
    open_table,
    rooms_of,
    running_bot,
    start_with_computers,
    table_in,
)
from telegram.ext import Application

from bot.tables.model import Table
from engine import Move
from sandbox.double import BotApiDouble
from sandbox.people import Group, SandboxUser
from sandbox.testing import running_double
from storage import open_storage

TOO_FAST = "You're pressing the coach's buttons too fast. Try again in a few seconds."
ATTACKED = replace(FAST, computer_delay=1.0, thinker_workers=1)
"""The computers' pace of production (a second a card) and a worker process."""
QUIET_S = 3.0
"""The window of each baseline: about three computer moves."""
AFTER_S = 1.5
"""How long an attack's window stays open once its answers are in (the work it left)."""


def _dm_labels(double: BotApiDouble, person: SandboxUser) -> str:
    for message in reversed(double.chat_view(person.dm).bot_messages):
        if (message.text or "").startswith("♥ Hearts ·"):
            return str(message.labels)
    return ""


async def _five_hands_stored(database: Path, game_id: int) -> None:
    """The game is played on in storage, with the bot stopped, until hand 6 is dealt: its
    moves chosen at random (so the reviews of Ann's hands have work) and journaled as the
    bot journals them. The bot resumes it as after any restart. (Played through the bot,
    these five hands took a third of this test, which runs alone.)"""
    rng = random.Random(6)
    storage = await open_storage(database)
    try:
        game = (await storage.games.load_game(game_id)).game
        assert game is not None
        while game.hand_number <= 5:
            if game.phase == "pass":
                seat = game.waiting_for()[0]
                move = Move.pass_cards(seat, rng.sample(game.hand(seat), 3))
            elif game.phase == "moon":
                assert game.moon_shooter is not None
                move = Move.moon(game.moon_shooter, "add_to_others")
            else:
                assert game.current_player is not None
                move = Move.play(game.current_player, rng.choice(game.legal_plays()))
            move.apply(game)
            await storage.games.record_move(game_id, move, game)
    finally:
        await storage.close()


async def _untimed_table(
    double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
    group: Group,
    people: list[SandboxUser],
) -> Table:
    """People (and computers in the other seats) at a table without a turn timer: their
    decisions wait for them however long the attacks take."""
    for person in people:
        await person.start_bot()
    await double.wait_for(lambda: people[-1].dm_view().last() is not None, 5)
    lobby = await open_table(double, people[0], group, computers=4 - len(people), timer="0")
    for person in people[1:]:
        await person.press(group, lobby, "✋ Join")
    await people[0].press(group, lobby, "▶ Start")
    table = table_in(app, group)
    await double.wait_for(lambda: table.game is not None, 5)
    return table


@pytest.mark.alone
async def test_hints_and_reviews_never_hold_up_a_table_of_computers(tmp_path: Path) -> None:
    database = tmp_path / "hearts.sqlite3"
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        cara = double.create_user("Cara", username="cara")
        four = [double.create_user(n, username=n.lower()) for n in ("Bob", "Cid", "Dan", "Eve")]
        ann_group = double.create_group("Ann's", members=[ann])
        robots = double.create_group("Robots", members=[cara])
        friends = double.create_group("Friends", members=four)

        # Before: Ann's table plays five hands, for the reviews.
        async with running_bot(double, database) as app:
            ann_table = await _untimed_table(double, app, ann_group, [ann])
        game_id = ann_table.id
        await _five_hands_stored(database, game_id)

        async with running_bot(double, database, ATTACKED) as app:
            rooms = rooms_of(app)
            ann_table = rooms.registry.tables[game_id]
            _, robot_table = await start_with_computers(double, app, robots, [cara])
            await cara.send(robots, "/leave")  # a computer plays her seat: computers only
            moved = MoveTimes(rooms, robot_table)
            longest_wait = moved.longest_wait

            async def quiet() -> float:
                """The computers' table's longest wait with nothing else going on, taken
                right before an attack (the machine's load changes between attacks)."""
                began = time.monotonic()
                await asyncio.sleep(QUIET_S)
                baseline = longest_wait(began, time.monotonic())
                assert 0.9 < baseline < 3, baseline
                return baseline

            measured: list[tuple[float, float]] = []

            def held_up(since: float, baseline: float) -> None:
                """The computers' table moved during the attack, and never waited much
                longer than right before it."""
                until = time.monotonic()
                assert any(since < t < until for t in moved.times), "no computer move in the attack"
                wait = longest_wait(since, until)
                measured.append((baseline, wait))
                assert wait <= 1.5 * baseline, measured

            async def attack(presses: list[asyncio.Future[str | None]], people: int) -> None:
                answers = await asyncio.gather(*presses)
                hints = [a for a in answers if (a or "").startswith("💡 ")]
                # Each person: at most a burst of five presses heard, all with one same
                # answer (one job for the decision); the rest told they press too fast.
                assert people <= len(hints) <= 5 * people
                assert len(set(hints)) <= people
                assert all(a in (*hints, TOO_FAST) for a in answers), answers
                await asyncio.sleep(AFTER_S)

            # The computers' table on its own first (the worker started, warm).
            await double.wait_for(lambda: len(moved) >= 3, 30)

            # The reviews of hands 1–5, three times over (one job of each in the line at a
            # time, behind the computers' moves).
            dm = double.chat_view(ann.dm).bot_messages[-1].message_id
            baseline = await quiet()
            since = time.monotonic()
            reviews = [
                asyncio.ensure_future(ann.press_forged(ann.dm, dm, f"v:{game_id}:{h}:", timeout=60))
                for _ in range(3)
                for h in range(1, 6)
            ]
            answers = await asyncio.gather(*reviews)
            assert sorted(a for a in answers if (a or "").startswith("🔍 Reviewing")) == [
                f"🔍 Reviewing hand {h}…" for h in range(1, 6)
            ]
            await double.wait_for(
                lambda: all(ann.dm_view().find(f"🔍 Hand {h}") for h in range(1, 6)), 120
            )
            held_up(since, baseline)
            # (Meanwhile Ann's presses are allowed again: the limiter's bucket refilled.)

            # 50 presses of 💡 at once from Ann, at her pass in hand 6.
            await double.wait_for(lambda: "💡 Hint" in _dm_labels(double, ann), 10)
            hint = f"h:{game_id}:6:"
            dm = double.chat_view(ann.dm).bot_messages[-1].message_id
            baseline = await quiet()
            since = time.monotonic()
            presses = [
                asyncio.ensure_future(ann.press_forged(ann.dm, dm, hint, timeout=60))
                for _ in range(50)
            ]
            await attack(presses, 1)
            held_up(since, baseline)
            # One answer for the decision, however many presses waited for it.
            assert len(ann_table.ui.hints) == 1
            assert ann_table.hints_used[6] == {ann_table.seat_of(ann.id): 1}

            # Four people at their pass, 12 presses each.
            friends_table = await _untimed_table(double, app, friends, four)
            dms = []
            for person in four:
                await double.wait_for(lambda p=person: "💡 Hint" in _dm_labels(double, p), 10)
                dms.append(double.chat_view(person.dm).bot_messages[-1].message_id)
            data = f"h:{friends_table.id}:1:"
            baseline = await quiet()
            since = time.monotonic()
            presses = [
                asyncio.ensure_future(person.press_forged(person.dm, their_dm, data, timeout=60))
                for person, their_dm in zip(four, dms, strict=True)
                for _ in range(12)
            ]
            await attack(presses, 4)
            held_up(since, baseline)
            assert len(measured) == 3
