"""The table page's replay request over its WebSocket (`bot.live.replay`), through the real
server: a finished hand of the page's own game comes as frames matching the journal, with
a caption each and then the coach's review; another game, a malformed or a missing hand
get a clear answer; no message ever carries the game's deal key."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from bot_harness import finished_game, open_table, rooms_of, running_bot, table_in
from sqlalchemy import select
from test_live_server import open_page, signed, until

from engine.replay import frames, hand_data, replays
from sandbox.testing import running_double
from storage.schema import games


async def _ask(page: Any, request_id: int, game: Any, hand: Any) -> dict[str, Any]:
    await page.socket.send_str(
        json.dumps({"t": "replay", "id": request_id, "game": game, "hand": hand})
    )
    await until(lambda: any(m.get("id") == request_id for m in page.received))
    return next(m for m in page.received if m.get("id") == request_id)


async def test_the_page_replays_its_own_games_finished_hands(tmp_path: Path) -> None:
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        bob = double.create_user("Bob", username="bob")
        group = double.create_group("Hearts", members=[ann])
        other = double.create_group("Elsewhere", members=[bob])
        async with running_bot(double, tmp_path / "hearts.sqlite3", pages=True) as app:
            await finished_game(double, app, group, [ann])
            await finished_game(double, app, other, [bob])
            storage = rooms_of(app).storage
            (mine,) = await storage.standings.chat_games(group.id, None)
            (theirs,) = await storage.standings.chat_games(other.id, None)
            start, journal = await storage.games.game_and_moves(mine.game_id)
            (hand,) = replays(start, [move for move, _ in journal])
            async with open_page(app, signed(double, ann), mine.game_id) as page:
                await until(lambda: bool(page.states()))
                said = await _ask(page, 7, mine.game_id, 1)
                assert said["t"] == "replay" and said["game"] == mine.game_id
                want = hand_data(hand)
                assert {k: said[k] for k in want} == want  # the frames the journal gives
                assert len(said["captions"]) == len(frames(hand)) == len(said["frames"])
                assert said["names"] == [s.display_name for s in mine.seats]
                # Another's game, a hand that never was, a malformed one.
                refused = await _ask(page, 8, theirs.game_id, 1)
                assert refused == {
                    "t": "answer",
                    "id": 8,
                    "text": "That button isn't valid any more.",
                }
                missing = await _ask(page, 9, mine.game_id, 2)
                assert missing["text"] == "There is no hand 2 in this game."
                malformed = await _ask(page, 10, mine.game_id, "1")
                assert malformed["text"] == "That button isn't valid any more."
                # The coach's review of Ann's seat follows (a computer played it for her).
                await until(lambda: page.last("marks") is not None, 30)
                marks = page.last("marks")
                assert marks is not None and marks["hand"] == 1 and marks["marks"] == []
                assert "nothing of yours to review" in marks["review"][0]
                keys = await storage.database.read(select(games.c.deal_key))
                for (key,) in keys:
                    assert key is None or all(key not in raw for raw in page.raw)


async def test_a_watcher_replays_a_finished_hand_of_the_table_on_the_page(tmp_path: Path) -> None:
    """A member of the group watching a live table (issue 33.1) replays its finished hands
    on the page as its players do (issue 33.2): the frames the journal gives, and no
    review marks (a watcher has no seat of their own to review)."""
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        eve = double.create_user("Eve", username="eve")
        group = double.create_group("Hearts", members=[ann, eve])
        async with running_bot(double, tmp_path / "hearts.sqlite3", pages=True) as app:
            await ann.start_bot()
            await double.idle()
            lobby = await open_table(double, ann, group)
            await ann.press(group, lobby, "▶ Start")  # Ann and three computers
            table = table_in(app, group)
            await double.wait_for(lambda: table.game is not None, 5)
            await ann.send(group, "/leave")  # a computer plays on for her
            await double.wait_for(
                lambda: table.game is not None and table.game.hand_number >= 2, 60
            )
            storage = rooms_of(app).storage
            watch = signed(double, eve, start_param=f"w{table.id}")
            async with open_page(app, watch) as page:
                await until(lambda: bool(page.states()))
                assert page.states()[-1]["watching"] is True
                said = await _ask(page, 3, table.id, 1)
                start, journal = await storage.games.game_and_moves(table.id)
                hand = replays(start, [move for move, _ in journal])[0]
                want = hand_data(hand)
                assert said["t"] == "replay" and {k: said[k] for k in want} == want
                assert said["you"] == -1
                # A hand that has not been dealt yet is refused in words.
                later = await _ask(page, 4, table.id, 99)
                assert later["text"] == "There is no hand 99 in this game."
                await asyncio.sleep(1.0)
                assert page.last("marks") is None
