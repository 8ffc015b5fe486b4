"""Replays through the real python-telegram-bot stack against the Bot API double: a
finished hand replays as text (▶ Replay under its result, `/replay`'s list, a hand's
buttons), its lines match the stored journal; a hand in progress, a stranger and a forged
button are refused with a clear toast."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from bot_harness import finished_game, open_table, rooms_of, running_bot, table_in

from bot.flood import CommandLimiter
from bot.replays.replays import cards_text
from domain.people import ChatSettings
from engine import Rules
from engine.replay import replays
from sandbox.double import BotApiDouble
from sandbox.testing import running_double
from sandbox.views import MessageView

STRANGER = "Only the players of that game and the members of its group can replay it."
NOT_OVER = "That hand isn't over yet: nobody sees a hand before it ends."


@asynccontextmanager
async def running_double_and_bot(
    tmp_path: Path, *, pages: bool = False
) -> AsyncIterator[tuple[BotApiDouble, Any]]:
    async with (
        running_double() as double,
        running_bot(double, tmp_path / "h.sqlite3", pages=pages) as app,
    ):
        yield double, app


def _text(double: BotApiDouble, chat_id: int, message_id: int) -> str:
    message = double.chat_view(chat_id).message(message_id)
    return (message.text or "") if message is not None else ""


def _replay_text(double: BotApiDouble, chat_id: int) -> MessageView | None:
    for message in reversed(double.chat_view(chat_id).bot_messages):
        if (message.text or "").startswith("▶ Hand "):
            return message
    return None


async def test_a_finished_hand_replays_as_text_and_matches_the_journal(tmp_path: Path) -> None:
    async with running_double_and_bot(tmp_path) as (double, app):
        ann = double.create_user("Ann", username="ann")
        bob = double.create_user("Bob", username="bob")  # not in the group, never seated
        group = double.create_group("Hearts", members=[ann])
        await finished_game(double, app, group, [ann])
        games = rooms_of(app).storage.games
        (listed,) = await rooms_of(app).storage.standings.chat_games(group.id, None)
        stored = await games.load_game(listed.game_id)
        start, journal = await games.game_and_moves(stored.id)
        (hand,) = replays(start, [move for move, _ in journal])
        names = [s.display_name for s in stored.seats]

        # ▶ Replay under the hand's result, in the group: a new message, the hand as text.
        toast = await ann.press(group, None, "▶ Replay")
        assert toast == "▶ Hand 1"
        await double.wait_for(lambda: _replay_text(double, group.id) is not None, 5)
        shown = _replay_text(double, group.id)
        assert shown is not None and shown.text is not None
        # Names are isolated (FSI…PDI) for right-to-left languages.
        lines = shown.text.replace("\u2068", "").replace("\u2069", "").splitlines()
        assert lines[0].startswith(f"▶ Hand 1 of game {stored.id}")
        for seat, cards in enumerate(hand.deal):  # the deal, face up
            assert f"{names[seat]}: {cards_text(cards)}" in lines
        for trick in hand.tricks:  # each trick in one line: the cards in order, who took it
            plays = ", ".join(f"{names[s]} {c.symbol}" for s, c in trick.plays)
            taker = names[trick.winner]
            assert f"{trick.number}. {plays} → {taker} ({trick.points})" in lines
        assert len(shown.text) <= 4096
        # The deal's proof a tap away (issue 51): its seed short, and 📋 the seed whole.
        assert stored.game is not None
        proof = stored.game.deal_proof(1)
        assert proof is not None
        assert f"🔐 {proof.commitment[:12]}…" in shown.text
        copy = shown.button("📋 Copy seed")
        assert copy is not None and copy.copy_text == proof.seed

        # /replay lists the game; its button lists the hands; a hand shows in that message.
        await ann.send(group, "/replay")
        await double.wait_for(lambda: double.chat_view(group.id).find("▶ Replays") is not None, 5)
        listing = double.chat_view(group.id).find("▶ Replays")
        assert listing is not None and f"Game {stored.id}: " in (listing.text or "")
        await ann.press(group, listing.message_id, f"▶ Game {stored.id}")
        listed = listing.message_id
        await double.wait_for(lambda: "Choose a hand" in _text(double, group.id, listed), 5)
        await ann.press(group, listing.message_id, "Hand 1")
        await double.wait_for(lambda: _text(double, group.id, listed).startswith("▶ Hand 1"), 5)

        # /scores shows the last game, with its ▶ Replay.
        await ann.send(group, "/scores")
        await double.wait_for(lambda: double.chat_view(group.id).find("leaderboard") is not None, 5)
        scores = double.chat_view(group.id).find("leaderboard")
        assert scores is not None and scores.button("▶ Replay") is not None
        await ann.press(group, scores.message_id, "▶ Replay")
        # In a message of its own: the scores stay (issue 51).
        chosen = await double.wait_for(
            lambda: next(
                (
                    m
                    for m in double.chat_view(group.id).bot_messages
                    if m.message_id > scores.message_id and "Choose a hand" in (m.text or "")
                ),
                None,
            ),
            5,
        )
        assert "leaderboard" in _text(double, group.id, scores.message_id)
        assert f"Game {stored.id}" in (chosen.text or "")

        # A stranger's forged press in their own DM is refused; so is a made-up game.
        await bob.start_bot()
        await double.wait_for(lambda: bob.dm_view().last() is not None, 5)
        dm_message = bob.dm_view().last()
        assert dm_message is not None
        said = await bob.press_forged(bob.dm, dm_message.message_id, f"rh:{stored.id}:1:n")
        assert said == STRANGER
        said = await bob.press_forged(bob.dm, dm_message.message_id, "rh:987654:1:n")
        assert said == "That button isn't valid any more."
        said = await ann.press_forged(group, listed, f"rh:{stored.id}:7:")
        assert said == "There is no hand 7 in this game."
        # Ann played it: a ▶ Replay pressed in her DM (beside 🔍 Review on a player's
        # screen; Ann left before the end, so hers was closed) brings the replay there.
        dm_message = ann.dm_view().last()
        assert dm_message is not None
        said = await ann.press_forged(ann.dm, dm_message.message_id, f"rh:{stored.id}:1:n")
        assert said == "▶ Hand 1"
        await double.wait_for(lambda: _replay_text(double, ann.dm) is not None, 5)


async def test_a_hand_in_progress_is_refused(tmp_path: Path) -> None:
    async with running_double_and_bot(tmp_path) as (double, app):
        ann = double.create_user("Ann", username="ann")
        group = double.create_group("Hearts", members=[ann])
        await ann.start_bot()
        await double.wait_for(lambda: ann.dm_view().last() is not None, 5)
        lobby = await open_table(double, ann, group, computers=3)
        await ann.press(group, lobby, "▶ Start")
        table = table_in(app, group)
        await double.wait_for(lambda: table.game is not None, 5)
        said = await ann.press_forged(group, lobby, f"rh:{table.id}:1:n")
        assert said == NOT_OVER
        said = await ann.press_forged(group, lobby, f"rg:{table.id}:0:")
        assert said == "No hand of that game is over yet."
        await ann.send(group, "/replay")
        await double.wait_for(lambda: double.chat_view(group.id).find("▶ Replays") is not None, 5)
        listing = double.chat_view(group.id).find("▶ Replays")
        assert listing is not None
        assert f"Game {table.id}: " in (listing.text or "") and not list(listing.all_buttons())
        await ann.send(group, "/scores")
        await double.wait_for(lambda: double.chat_view(group.id).find("This game") is not None, 5)
        scores = double.chat_view(group.id).find("This game")
        assert scores is not None and not list(scores.all_buttons())  # no hand over yet


async def test_replay_in_a_dm_points_to_the_group(tmp_path: Path) -> None:
    async with running_double_and_bot(tmp_path) as (double, _):
        ann = double.create_user("Ann", username="ann")
        await ann.start_bot()
        await ann.send(ann.dm, "/replay")
        await double.wait_for(
            lambda: double.chat_view(ann.dm).find("Send /replay in the group") is not None, 5
        )


async def test_with_the_table_page_a_replay_opens_there_too(tmp_path: Path) -> None:
    async with running_double_and_bot(tmp_path, pages=True) as (double, app):
        ann = double.create_user("Ann", username="ann")
        group = double.create_group("Hearts", members=[ann])
        await finished_game(double, app, group, [ann])
        (listed,) = await rooms_of(app).storage.standings.chat_games(group.id, None)
        game = listed.game_id
        await ann.press(group, None, "▶ Replay")
        await double.wait_for(lambda: _replay_text(double, group.id) is not None, 5)
        shown = _replay_text(double, group.id)
        assert shown is not None
        # In the group: the bot's main Mini App, at this hand (a group has no web_app button).
        link = shown.button("🃏 Open table")
        assert (
            link is not None and link.url == f"https://t.me/{app.bot.username}?startapp=g{game}r1"
        )
        ann_dm = ann.dm_view().last()
        assert ann_dm is not None
        await ann.press_forged(ann.dm, ann_dm.message_id, f"rh:{game}:1:n")
        await double.wait_for(lambda: _replay_text(double, ann.dm) is not None, 5)
        in_dm = _replay_text(double, ann.dm)
        assert in_dm is not None
        stored = double.stored_message(ann.dm, in_dm.message_id)
        assert stored is not None and stored.reply_markup is not None
        pages = [b for row in stored.reply_markup["inline_keyboard"] for b in row if "web_app" in b]
        assert [b["web_app"]["url"].split("/app/")[1] for b in pages] == [f"?g={game}&r=1"]


async def test_in_a_forum_topic_replays_stay_in_the_topic(tmp_path: Path) -> None:
    async with running_double_and_bot(tmp_path) as (double, app):
        # Ann types six commands faster than anyone would (a fast machine finishes her game
        # at once): this test is about topics, not her rate of commands.
        app.bot_data.command_limiter = CommandLimiter(burst=20)
        ann = double.create_user("Ann", username="ann")
        group = double.create_group("Forum", members=[ann], forum=True)
        topic = group.create_topic("Card games", by=ann)
        await ann.start_bot()
        await double.wait_for(lambda: ann.dm_view().last() is not None, 5)
        await rooms_of(app).storage.people.save_chat_settings(
            ChatSettings(group.id, rules=Rules(target=1, ties="share").to_dict())
        )
        await ann.send(group, "/newgame", thread_id=topic)
        lobby = await double.wait_for(
            lambda: next((m for m in double.chat_view(group.id).bot_messages if m.buttons), None),
            5,
        )
        for _ in range(3):
            await ann.press(group, lobby.message_id, "🤖 Add computer")
        await ann.press(group, lobby.message_id, "▶ Start")
        table = table_in(app, group)
        await double.wait_for(lambda: table.game is not None, 5)
        await ann.send(group, "/leave", thread_id=topic)
        await double.wait_for(lambda: table.status == "finished", 60)
        # The hand's result (with its ▶ Replay) is posted at the group's pace, after the end.
        await double.wait_for(
            lambda: any(m.button("▶ Replay") for m in double.chat_view(group.id).visible), 15
        )
        await ann.press(group, None, "▶ Replay")
        await double.wait_for(lambda: _replay_text(double, group.id) is not None, 5)
        shown = _replay_text(double, group.id)
        assert shown is not None and shown.thread_id == topic
        # /replay lists the topic's games in the topic, and none in the general chat.
        await ann.send(group, "/replay")
        await double.wait_for(
            lambda: double.chat_view(group.id).find("No game has been played here") is not None, 5
        )
        await ann.send(group, "/replay", thread_id=topic)
        await double.wait_for(lambda: double.chat_view(group.id).find("▶ Replays") is not None, 5)
        listing = double.chat_view(group.id).find("▶ Replays")
        assert listing is not None and listing.thread_id == topic
        assert f"Game {table.id}: " in (listing.text or "")
        # /scores in the topic: its ▶ Replay answers in a new message, in the topic too.
        await ann.send(group, "/scores", thread_id=topic)
        await double.wait_for(lambda: double.chat_view(group.id).find("leaderboard") is not None, 5)
        scores = double.chat_view(group.id).find("leaderboard")
        assert scores is not None and scores.thread_id == topic
        await ann.press(group, scores.message_id, "▶ Replay")
        chosen = await double.wait_for(
            lambda: next(
                (
                    m
                    for m in double.chat_view(group.id).bot_messages
                    if m.message_id > scores.message_id and "Choose a hand" in (m.text or "")
                ),
                None,
            ),
            5,
        )
        assert chosen.thread_id == topic


async def test_a_replay_after_a_restart_comes_from_the_journal(tmp_path: Path) -> None:
    database = tmp_path / "hearts.sqlite3"
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        group = double.create_group("Hearts", members=[ann])
        async with running_bot(double, database) as app:
            await finished_game(double, app, group, [ann])
            (listed,) = await rooms_of(app).storage.standings.chat_games(group.id, None)
        async with running_bot(double, database) as app:
            assert rooms_of(app).registry.get(listed.game_id) is None  # nothing in memory
            await ann.send(group, "/replay")
            await double.wait_for(
                lambda: double.chat_view(group.id).find("▶ Replays") is not None, 5
            )
            listing = double.chat_view(group.id).find("▶ Replays")
            assert listing is not None
            shown = listing.message_id
            await ann.press(group, shown, f"▶ Game {listed.game_id}")
            await double.wait_for(lambda: "Choose a hand" in _text(double, group.id, shown), 5)
            await ann.press(group, shown, "Hand 1")
            await double.wait_for(lambda: _text(double, group.id, shown).startswith("▶ Hand 1"), 5)
            assert "The tricks" in _text(double, group.id, shown)


async def test_the_longest_names_still_give_the_whole_hand_in_one_message(tmp_path: Path) -> None:
    async with running_double_and_bot(tmp_path) as (double, app):
        ann = double.create_user("Ann" + "a" * 61, username="ann")
        bob = double.create_user("Bob" + "b" * 61, username="bob")
        group = double.create_group("Hearts", members=[ann, bob])
        for person in (ann, bob):
            await person.start_bot()
        await double.idle()
        await rooms_of(app).storage.people.save_chat_settings(
            ChatSettings(group.id, rules=Rules(players=3, target=1, ties="share").to_dict())
        )
        lobby = await open_table(double, ann, group, computers=0)
        await bob.press(group, lobby, "✋ Join")
        await ann.press(group, lobby, "🤖 Add computer")
        await ann.press(group, lobby, "▶ Start")
        table = table_in(app, group)
        await double.wait_for(lambda: table.game is not None, 5)
        for person in (ann, bob):
            await person.send(group, "/leave")
        await double.wait_for(lambda: table.status == "finished", 60)
        # The hand's result (with its ▶ Replay) is posted at the group's pace, after the end.
        await double.wait_for(
            lambda: any(m.button("▶ Replay") for m in double.chat_view(group.id).visible), 15
        )
        await ann.press(group, None, "▶ Replay")
        await double.wait_for(lambda: _replay_text(double, group.id) is not None, 5)
        shown = _replay_text(double, group.id)
        assert shown is not None and shown.text is not None
        assert len(shown.text.encode("utf-16-le")) // 2 <= 4096
        lines = shown.text.splitlines()
        # The whole hand, its end too, then the deal's proof in one line.
        assert lines[-2].startswith("Standings: ") and lines[-1].startswith("🔓 Deal seed ")
        assert sum(bool(re.match(r"\d+\. ", line)) for line in lines) == 17  # every trick


async def test_scores_replays_the_game_it_shows_in_a_message_of_its_own(tmp_path: Path) -> None:
    """Issue 51, item 5: /scores showed one game's hands and its ▶ Replay opened another
    (the chat's newest with a hand over: a tournament's, or one cancelled after a hand),
    and the replay replaced the scoreboard. Now the button replays the game shown, in a
    new message; the scores stay."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "storage"))
    from storage_testkit import play_stored

    async with running_double_and_bot(tmp_path) as (double, app):
        ann = double.create_user("Ann", username="ann")
        group = double.create_group("Hearts", members=[ann])
        await finished_game(double, app, group, [ann])
        store = rooms_of(app).storage
        (shown,) = await store.standings.chat_games(group.id, None)
        # A newer game of the chat, cancelled after its first hand: not the one /scores
        # shows (that is the last finished here).
        newer, _ = await play_stored(
            store, Rules(), seed=3, chat_id=group.id, user_ids=[ann.id], hands=1
        )
        await store.games.cancel_game(newer)
        await ann.send(group, "/scores")
        await double.wait_for(lambda: double.chat_view(group.id).find("leaderboard") is not None, 5)
        scores = double.chat_view(group.id).find("leaderboard")
        assert scores is not None and "The last game here" in (scores.text or "")
        before = scores.text
        # Its final standings by place, lowest first (they were in seat order).
        finished = await store.games.load_game(shown.game_id)
        assert finished.game is not None
        totals = finished.game.scores
        order = sorted(range(len(totals)), key=lambda s: (totals[s], s))
        named = " · ".join(
            f"\u2068{finished.seats[s].display_name}\u2069 {totals[s]}" for s in order
        )
        assert f"Standings: {named}" in (before or ""), before
        assert await ann.press(group, scores.message_id, "▶ Replay") == f"▶ Game {shown.game_id}"
        listing = await double.wait_for(
            lambda: double.chat_view(group.id).find(f"▶ Game {shown.game_id}:"),
            5,
        )
        assert listing.message_id != scores.message_id and "Choose a hand" in (listing.text or "")
        assert _text(double, group.id, scores.message_id) == before  # the scores stay
