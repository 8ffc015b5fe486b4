"""Whole games through the real python-telegram-bot stack, over HTTP, against the double."""

from __future__ import annotations

from pathlib import Path

from bot_harness import open_table, play_turn, rooms_of, running_bot, table_in

from sandbox.testing import running_double


async def test_one_person_and_three_computers_play_a_game_to_the_end(tmp_path: Path) -> None:
    async with running_double() as double:
        alice = double.create_user("Alice", username="alice")
        group = double.create_group("Friday Hearts", members=[alice])
        async with running_bot(double, tmp_path / "hearts.sqlite3") as app:
            await alice.start_bot()
            await double.wait_for(lambda: double.chat_view(alice.dm).last() is not None, 5)
            lobby_id = await open_table(double, alice, group, computers=3, target="50")
            toast = await alice.press(group, lobby_id, "▶ Start")
            assert toast == "Dealing the cards…"
            table = table_in(app, group)
            game = table.game
            assert game is not None
            moves = 0
            while game.phase != "over":
                answer = await play_turn(double, alice, table)
                if answer is None:
                    await double.wait_for(
                        lambda: (
                            game.phase == "over" or table.seat_of(alice.id) in game.waiting_for()
                        ),
                        10,
                    )
                else:
                    moves += 1
            assert moves > 13
            assert max(int(abs(s)) for s in game.scores) >= 50
            await double.wait_for(
                lambda: any(m.has_photo for m in double.chat_view(group.id).visible), 10
            )
            await rooms_of(app).outbox.flush()
            group_text = "\n".join(m.text or "" for m in double.chat_view(group.id).visible)
            assert "Game over" in group_text
            await double.wait_for(
                lambda: any(
                    "Game over" in (m.text or "") for m in double.chat_view(alice.dm).visible
                ),
                5,
            )
            assert not double.unanswered_callbacks()
            # The finished game counts in the player's record and the chat's leaderboard.
            await alice.send(alice.dm, "/stats")
            record = await double.wait_for(
                lambda: next(
                    (m for m in alice.dm_view().bot_messages if "Your record" in (m.text or "")),
                    None,
                ),
                5,
            )
            assert "Games: 1" in (record.text or "")
            # Asked in the group, the record says whose it is (issue 30.7).
            await alice.send(group, "/stats")
            theirs = await double.wait_for(
                lambda: next(
                    (
                        m
                        for m in double.chat_view(group.id).bot_messages
                        if "Games: 1" in (m.text or "")
                    ),
                    None,
                ),
                5,
            )
            assert (theirs.text or "").startswith("\u2068Alice\u2069's record\n"), theirs.text
            # The finished table's header names no hand to play or pass (issue 30.7).
            header = (double.chat_view(group.id).message(lobby_id).text or "").split("\n")[0]  # type: ignore[union-attr]
            assert header == f"♥ Hearts · finished after hand {game.hand_number}", header
            await alice.send(group, "/scores")
            board = await double.wait_for(
                lambda: next(
                    (
                        m
                        for m in double.chat_view(group.id).bot_messages
                        if "All-time leaderboard" in (m.text or "")
                    ),
                    None,
                ),
                5,
            )
            assert "1. " in (board.text or "")
