"""The table page's replay request over its WebSocket (`bot.live.replay`), through the real
server: a finished hand of the page's own game comes as frames matching the journal, with
a caption each and then the coach's review; another game, a malformed or a missing hand
get a clear answer; no message ever carries the game's deal key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot_harness import finished_game, rooms_of, running_bot
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
