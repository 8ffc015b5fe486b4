"""Each update handled once by polling too: one update id twice in a getUpdates batch."""

from __future__ import annotations

from pathlib import Path

from bot_harness import card_button, open_table, running_bot, table_in

from sandbox.double import BotApiDouble
from sandbox.testing import running_double
from sandbox.views import CallbackRecord


async def _press_twice_in_one_batch(double: BotApiDouble, *, wait: float = 5.0) -> CallbackRecord:
    """The press just queued is queued again with the same id before the bot polls (no
    await between the two), so one batch carries it twice; returns its callback."""
    double.repeat_update(double.last_update_id)
    (record,) = [c for c in double.callbacks.values() if c.answer is None]
    await double.wait_for(lambda: record.answer is not None, wait)
    return record


async def test_one_update_twice_in_a_polling_batch_changes_the_game_once(
    tmp_path: Path,
) -> None:
    """Issue 29.5: "🤖 Add computer" twice in one batch adds one computer, a pass card
    chosen twice in one batch stays chosen, and each press is answered once."""
    async with running_double() as double:
        ana = double.create_user("Ana")
        group = double.create_group("Batch", members=[ana], admins=[ana])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await ana.start_bot()
            await double.wait_for(lambda: ana.dm_view().last() is not None, 5)
            lobby = await open_table(double, ana, group)
            table = table_in(app, group)

            await ana.press(group, lobby, "🤖 Add computer", wait=False)
            record = await _press_twice_in_one_batch(double)
            await double.idle(quiet=0.3)
            assert record.answer is not None
            assert sum(s is not None for s in table.seats) == 2, "Ana and one computer"

            for _ in range(2):
                await ana.press(group, lobby, "🤖 Add computer")
            await ana.press(group, lobby, "▶ Start")
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            assert game is not None and game.phase == "pass"
            seat = table.seat_of(ana.id)
            assert seat is not None
            card = game.hand(seat)[0]
            data = await card_button(double, ana, card, game.hand_number)
            await ana.press(ana.dm, None, data=data, wait=False)
            record = await _press_twice_in_one_batch(double)
            await double.idle(quiet=0.3)
            assert record.answer is not None and record.answer.text == "1/3 selected"
            assert table.ui.selections.get(seat) == [card.code], "chosen once, not unchosen"
            assert not [e for e in double.errors if e.method == "answerCallbackQuery"]
