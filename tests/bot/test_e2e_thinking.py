"""Computers think outside the table's lock (`TurnClock._computer_turn`): people's presses
at the table are answered while three computers search their passes, one computer thinks at
a time per table, and a computer's move is made only if the game still waits for it where
it thought (a person back with /rejoin takes their seat from the computer thinking in it)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from bot_harness import (
    card_button,
    open_table,
    rooms_of,
    running_bot,
    start_with_computers,
    table_in,
)
from patience import patient

from bot.computers import thinker
from engine import SeatView
from sandbox.testing import running_double

Choose = Callable[[str, str, int, SeatView, float], object]


def held(
    original: Choose,
    gate: threading.Event,
    asked: list[tuple[str, int]],
    kind: str,
    seat: int | None = None,
) -> Choose:
    """The computers' decisions, those of ``kind`` (at ``seat``) held until ``gate`` opens."""

    def choose(k: str, level: str, seed: int, view: SeatView, budget_ms: float) -> object:
        if k == kind and seat in (None, view.seat):
            asked.append((k, view.seat))
            gate.wait(20)
        return original(k, level, seed, view, budget_ms)

    return choose


async def test_a_persons_presses_are_answered_while_the_computers_think_their_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate, asked = threading.Event(), []
    monkeypatch.setattr(thinker, "_choose", held(thinker._choose, gate, asked, "pass"))
    try:
        async with running_double() as double:
            ann = double.create_user("Ann")
            group = double.create_group("Thinkers", members=[ann])
            async with running_bot(double, tmp_path / "db.sqlite3") as app:
                _, table = await start_with_computers(double, app, group, [ann])
                game = table.game
                assert game is not None and game.phase == "pass"
                await double.wait_for(lambda: len(asked) == 1, 5)  # a computer thinks
                seat = table.seat_of(ann.id)
                assert seat is not None
                for n, card in enumerate(game.hand(seat)[-3:], 1):
                    data = await card_button(double, ann, card, game.hand_number)
                    assert await ann.press(ann.dm, None, data=data) == f"{n}/3 selected"
                said = await ann.press(ann.dm, None, lambda b: b.label.startswith("Pass 3/3"))
                assert said == "Passed. Waiting for the others…"
                assert game.has_passed(seat)
                # Her stored pass armed the computers' turn again: it left them to the one
                # thinking, and no second computer started.
                await double.idle()
                assert len(asked) == 1 and not any(
                    game.has_passed(s) for s in range(4) if s != seat
                )
                gate.set()
                await double.wait_for(lambda: game.phase == "play", 10)
                assert sorted(s for _, s in asked) == sorted(s for s in range(4) if s != seat)
                # The computers play on to her turn; each move is made, then stored: wait
                # until what is stored is the game in memory (a quiet moment is no proof).
                rooms = rooms_of(app)
                await double.wait_for(lambda: seat in game.waiting_for(), 10)
                deadline = asyncio.get_running_loop().time() + patient(10)
                while (stored := (await rooms.storage.games.load_game(table.id)).game) is None or (
                    stored.to_json() != game.to_json()
                ):
                    assert asyncio.get_running_loop().time() < deadline, "not stored as played"
                    await asyncio.sleep(0.05)
    finally:
        gate.set()


async def test_a_person_back_with_rejoin_takes_their_seat_from_the_computer_thinking_in_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_double() as double:
        alice = double.create_user("Alice")
        group = double.create_group("Rejoiners", members=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await alice.start_bot()
            await double.wait_for(lambda: alice.dm_view().last() is not None, 5)
            lobby = await open_table(double, alice, group, computers=3)
            table = table_in(app, group)
            seat = table.seat_of(alice.id)
            assert seat is not None
            gate, asked = threading.Event(), []
            choose = held(thinker._choose, gate, asked, "play", seat)
            monkeypatch.setattr(thinker, "_choose", choose)
            try:
                rooms = rooms_of(app)
                rooms.clock.config = replace(rooms.clock.config, timeouts_before_away=1)
                table.options = replace(table.options, turn_timer=1)
                await alice.press(group, lobby, "▶ Start")
                s = table.seats[seat]
                assert s is not None
                # her pass ran out: she is away
                await double.wait_for(lambda: table.seats[seat].away, 10)  # type: ignore[union-attr]
                table.options = replace(table.options, turn_timer=60)
                await double.wait_for(lambda: bool(asked), 10)  # her seat's computer thinks
                game = table.game
                assert game is not None and game.current_player == seat
                await alice.send(alice.dm, "/rejoin")
                await double.wait_for(lambda: not table.seats[seat].away, 5)  # type: ignore[union-attr]
                card = game.legal_plays()[0]
                before = game.hand(seat)
                data = await card_button(double, alice, card, game.hand_number)
                assert await alice.press(alice.dm, None, data=data) == f"Played {card.symbol}"
                gate.set()  # the computer's card comes too late: it is not played
                # The computers play round to her again (waited for: each thinks a while).
                await double.wait_for(lambda: seat in game.waiting_for() or game.hand_number > 1)
                await double.idle()
                # Her card, and hers alone: the game waits for her next one.
                assert game.hand(seat) == [c for c in before if c != card]
                assert len(asked) == 1
            finally:
                gate.set()
