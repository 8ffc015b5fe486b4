"""Ratings through the real python-telegram-bot stack against the Bot API double: three
games in one group, each ending with the rating changes, then /rating and /scores."""

from __future__ import annotations

import re
from pathlib import Path

from bot_harness import open_table, play_turn, rooms_of, running_bot, table_in

from bot.tables.model import Table
from sandbox.double import BotApiDouble
from sandbox.people import Group, SandboxUser
from sandbox.testing import running_double


async def _play_to_the_end(double: BotApiDouble, people: list[SandboxUser], table: Table) -> None:
    game = table.game
    assert game is not None
    while game.phase != "over":
        moved = False
        for person in people:
            if game.phase != "over" and await play_turn(double, person, table) is not None:
                moved = True
        if not moved:
            await double.wait_for(
                lambda: (
                    game.phase == "over"
                    or any(table.seat_of(p.id) in game.waiting_for() for p in people)
                ),
                10,
            )


def _endings(double: BotApiDouble, group: Group) -> list[str]:
    """The game-end announcements: the score chart with the result as its caption."""
    return [
        m.text or ""
        for m in double.chat_view(group.id).bot_messages
        if m.has_photo and "Game over" in (m.text or "")
    ]


async def test_three_games_rate_everyone_and_show_it(tmp_path: Path) -> None:
    async with running_double() as double:
        alice = double.create_user("Alice", username="alice")
        bob = double.create_user("Bob", username="bob")
        group = double.create_group("Friday Hearts", members=[alice, bob])
        async with running_bot(double, tmp_path / "hearts.sqlite3") as app:
            rooms = rooms_of(app)
            for game_no in range(1, 4):
                if game_no == 1:
                    # Games to 50 (the shortest target; the chat keeps it for the next two):
                    # three rated games are what this test is about, not their length.
                    for person in (alice, bob):
                        await person.start_bot()
                    await double.wait_for(lambda: bob.dm_view().last() is not None, 5)
                    lobby_id = await open_table(double, alice, group, target="50")
                    await bob.press(group, lobby_id, "✋ Join")
                    for _ in range(2):
                        await alice.press(group, lobby_id, "🤖 Add computer")
                    await alice.press(group, lobby_id, "▶ Start")
                    table = table_in(app, group)
                    await double.wait_for(lambda t=table: t.game is not None, 5)
                else:
                    await alice.send(group, "/newgame")
                    await double.wait_for(lambda: rooms.registry.in_chat(group.id, None), 5)
                    lobby = next(
                        m
                        for m in reversed(double.chat_view(group.id).bot_messages)
                        if "Join" in str(m.labels)
                    )
                    await bob.press(group, lobby.message_id, "✋ Join")
                    for _ in range(2):
                        await alice.press(group, lobby.message_id, "🤖 Add computer")
                    await alice.press(group, lobby.message_id, "▶ Start")
                    table = await double.wait_for(
                        lambda: (
                            (t := rooms.registry.in_chat(group.id, None)) is not None
                            and t.game is not None
                            and t
                        ),
                        5,
                    )
                assert table.rules.target == 50
                await _play_to_the_end(double, [alice, bob], table)
                # The game's end says how each person's rating moved.
                await double.wait_for(lambda n=game_no: len(_endings(double, group)) == n, 10)
                ending = _endings(double, group)[-1]
                changes = re.search(r"📈 Ratings: (.*)", ending)
                assert changes is not None, ending
                assert re.fullmatch(r"Alice [+−±]\d+ · Bob [+−±]\d+", changes.group(1))

            stored = {p: await rooms.storage.player_rating(p.id, group.id) for p in (alice, bob)}
            assert all(s is not None and s.games == 3 for s in stored.values())

            await alice.send(group, "/rating")
            rating = await double.wait_for(
                lambda: next(
                    (
                        m
                        for m in double.chat_view(group.id).bot_messages
                        if "Alice's rating" in (m.text or "")
                    ),
                    None,
                ),
                5,
            )
            assert rating.has_photo  # the chart of its history
            ada = stored[alice]
            assert ada is not None
            text = rating.text or ""
            assert f"Here: {ada.skill.shown:,} ± {ada.skill.spread}" in text
            assert f"{ada.place} of 2 · 3 rated games (provisional)" in text
            assert "Overall: " in text

            await bob.send(group, "/scores")
            board = await double.wait_for(
                lambda: next(
                    (
                        m.text or ""
                        for m in double.chat_view(group.id).bot_messages
                        if "Ratings here" in (m.text or "")
                    ),
                    None,
                ),
                5,
            )
            assert "All-time leaderboard" in board
            first = max(stored.items(), key=lambda kv: kv[1].skill.conservative)  # type: ignore[union-attr]
            assert f"1. {first[0].name} — " in board
            assert "(provisional)" in board
            assert "🤖 Computer players: standard " in board

            # In a DM, /rating is the overall one.
            await bob.send(bob.dm, "/rating")
            mine = await double.wait_for(
                lambda: next(
                    (m for m in bob.dm_view().bot_messages if "Bob's rating" in (m.text or "")),
                    None,
                ),
                5,
            )
            assert "Overall: " in (mine.text or "") and "Here: " not in (mine.text or "")
            assert not double.unanswered_callbacks()
