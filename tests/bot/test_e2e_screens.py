"""A player's living DM screen: one per person and game, closed with one line saying why
the moment it stops applying, and every refusal of a press there true (issue 51, item 1)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from bot_harness import open_table, play_turn, running_bot, table_in

from bot.tables.model import Table
from engine import Game
from sandbox.double import BotApiDouble
from sandbox.people import Group, SandboxUser
from sandbox.testing import running_double
from sandbox.views import MessageView

LEFT = "🚪 You left this game; a computer player holds your seat. Send /rejoin to take it back."
MOVED = "⬇ Your cards are in a new message below."


def card_screens(person: SandboxUser) -> list[MessageView]:
    """The person's DM messages that show cards to press."""
    return [
        m
        for m in person.dm_view().bot_messages
        if any((b.callback_data or "").startswith("c:") for b in m.all_buttons())
    ]


def a_card(screen: MessageView) -> str:
    data = next(b.callback_data for b in screen.all_buttons() if b.callback_data)
    assert data is not None and data.startswith("c:")
    return data


@dataclass
class Scene:
    double: BotApiDouble
    alice: SandboxUser
    group: Group
    table: Table
    screen: MessageView
    """Alice's first screen, as it was dealt."""

    def shown(self, message_id: int) -> MessageView:
        message = self.alice.dm_view().message(message_id)
        assert message is not None
        return message

    async def closed_with(self, message_id: int, line: str) -> None:
        """Wait until the message says only `line`, without a button."""
        await self.double.wait_for(
            lambda: self.shown(message_id).text == line and not self.shown(message_id).labels,
            5,
        )

    async def one_new_screen(self) -> MessageView:
        """Wait for Alice's one living screen, a new one at the bottom, and return it."""
        await self.double.wait_for(
            lambda: (
                [m.message_id for m in card_screens(self.alice)]
                not in ([], [self.screen.message_id])
            ),
            5,
        )
        await self.double.idle()
        living = card_screens(self.alice)
        assert len(living) == 1, [m.text for m in living]
        return living[0]


@asynccontextmanager
async def dealt(tmp_path: Path) -> AsyncIterator[Scene]:
    """Alice and Bob with two computers, dealt: the game waits on Bob's pass (he never
    passes), so it stays in its first hand while Alice comes and goes."""
    async with running_double() as double:
        alice, bob = double.create_user("Alice"), double.create_user("Bob")
        group = double.create_group("Leavers", members=[alice, bob])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await alice.start_bot()
            await bob.start_bot()
            await double.wait_for(lambda: bob.dm_view().last() is not None, 5)
            lobby = await open_table(double, alice, group, computers=2)
            await bob.press(group, lobby, "✋ Join")
            await alice.press(group, lobby, "▶ Start")
            await double.wait_for(lambda: card_screens(alice), 5)
            table = table_in(app, group)
            yield Scene(double, alice, group, table, card_screens(alice)[0])


async def test_leaving_in_the_group_closes_the_screen_and_a_press_there_says_so(
    tmp_path: Path,
) -> None:
    async with dealt(tmp_path) as scene:
        alice, old = scene.alice, scene.screen
        await alice.send(scene.group, "/leave")
        await scene.closed_with(old.message_id, LEFT)
        # A press that was on its way (or a client that kept the button) hears the truth,
        # not "You timed out 3 times in a row".
        for data in (a_card(old), old.button("📋 Cards played").callback_data):  # type: ignore[union-attr]
            assert data is not None
            assert await alice.press_forged(alice.dm, old.message_id, data) == LEFT
        assert card_screens(alice) == []

        await alice.send(scene.group, "/rejoin")
        new = await scene.one_new_screen()
        assert new.message_id > old.message_id
        assert scene.shown(old.message_id).text == LEFT  # it stays closed
        assert await alice.press(alice.dm, new.message_id, "📋 Cards played") is None


async def test_leaving_and_rejoining_in_the_dm_leaves_one_living_screen(tmp_path: Path) -> None:
    async with dealt(tmp_path) as scene:
        alice, old = scene.alice, scene.screen
        await alice.send(alice.dm, "/leave")
        await scene.closed_with(old.message_id, LEFT)
        await alice.send(alice.dm, "/rejoin")
        new = await scene.one_new_screen()
        assert scene.shown(old.message_id).text == LEFT
        # Its buttons act: 📋 opens the cards played, a card is chosen to pass.
        assert await alice.press(alice.dm, new.message_id, "📋 Cards played") is None
        said = await alice.press(alice.dm, new.message_id, data=a_card(new))
        assert said in ("1/3 selected", "Passed. Waiting for the others…")


async def test_a_screen_sent_again_closes_the_one_before(tmp_path: Path) -> None:
    """/start in the DM mid-game brings the screen to the bottom: the one above says where
    it went, and has no buttons left."""
    async with dealt(tmp_path) as scene:
        alice, old = scene.alice, scene.screen
        await alice.start_bot()
        await scene.closed_with(old.message_id, MOVED)
        await scene.one_new_screen()


async def test_a_person_away_who_comes_back_to_the_dm_is_told_why_not_dealt_in(
    tmp_path: Path,
) -> None:
    async with dealt(tmp_path) as scene:
        alice, old = scene.alice, scene.screen
        await alice.send(scene.group, "/leave")
        await scene.closed_with(old.message_id, LEFT)
        before = len(alice.dm_view().bot_messages)
        await alice.start_bot()
        await scene.double.wait_for(
            lambda: any(m.text == LEFT for m in alice.dm_view().bot_messages[before:]), 5
        )
        assert card_screens(alice) == []


def shown(person: SandboxUser, message_id: int) -> MessageView:
    """A message of the person's DM as it is now."""
    message = person.dm_view().message(message_id)
    assert message is not None
    return message


async def until_her_turn(double: BotApiDouble, game: Game, seat: int | None, hand: int) -> None:
    """Until the game waits for `seat` again (the computers move in between), or `hand` is
    over."""
    await double.wait_for(
        lambda: game.hand_number != hand or game.phase == "over" or seat in game.waiting_for(),
        30,
    )


def screens_ever(person: SandboxUser) -> list[MessageView]:
    """Every message with card buttons the person's DM was ever sent (deleted ones too)."""
    return [
        m
        for m in person.dm_view().messages
        if m.from_bot and any((b.callback_data or "").startswith("c:") for b in m.all_buttons())
    ]


@asynccontextmanager
async def alone(
    tmp_path: Path, title: str
) -> AsyncIterator[tuple[BotApiDouble, SandboxUser, Table, Game, MessageView]]:
    """Alice alone with three computers in the group `title`, dealt: the double, Alice,
    the table, its game and her first card screen."""
    async with running_double() as double:
        alice = double.create_user("Alice")
        group = double.create_group(title, members=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await alice.start_bot()
            await double.wait_for(lambda: alice.dm_view().last() is not None, 5)
            lobby = await open_table(double, alice, group, computers=3)
            table = table_in(app, group)
            await alice.press(group, lobby, "▶ Start")
            await double.wait_for(lambda: card_screens(alice), 5)
            game = table.game
            assert game is not None
            yield double, alice, table, game, card_screens(alice)[0]


async def test_the_screen_comes_back_to_the_bottom_on_the_next_turn(tmp_path: Path) -> None:
    """Issue 51, item 8: once something lands below the card screen (here the answer to
    /help), the reader's next turn brings it back to the bottom, one message sent and the
    old one deleted; with nothing below, it is only edited."""
    async with alone(tmp_path, "Thumbs") as (double, alice, table, game, first):
        await alice.send(alice.dm, "/help")
        below = await double.wait_for(lambda: alice.dm_view().find("here in our chat"), 5)
        assert below.message_id > first.message_id

        async def bottom() -> MessageView:
            """Alice's card screen once it is the newest message in her chat."""

            def newest() -> MessageView | None:
                screens = card_screens(alice)
                # (Its "your turn" nudge may follow it: FAST sends it at once.)
                kept = [
                    m
                    for m in alice.dm_view().bot_messages
                    if not (m.text or "").startswith("👉 Your turn in")
                ]
                return kept[-1] if screens and kept and kept[-1] == screens[-1] else None

            return await double.wait_for(newest, 10)

        hand, seat = game.hand_number, table.seat_of(alice.id)

        while game.hand_number == hand and game.phase != "over":
            await until_her_turn(double, game, seat, hand)
            if await play_turn(double, alice, table) is None:
                continue
            await double.idle()
            if len(screens_ever(alice)) > 1:
                break
        moved = await bottom()
        assert moved.message_id > below.message_id
        assert [m.message_id for m in screens_ever(alice)] == [
            first.message_id,
            moved.message_id,
        ]
        await double.wait_for(lambda: shown(alice, first.message_id).deleted, 10)
        # Nothing lands below it any more: the rest of the hand edits it in place.
        while game.hand_number == hand and game.phase != "over":
            await until_her_turn(double, game, seat, hand)
            await play_turn(double, alice, table)
        await double.idle()
        assert [m.message_id for m in screens_ever(alice)] == [
            first.message_id,
            moved.message_id,
        ]


async def test_a_screen_that_cannot_be_sent_again_is_drawn_where_it_is(tmp_path: Path) -> None:
    """Issue 51, item 8: when the card screen's trip to the bottom fails (Telegram errs),
    it stays where it was and is drawn anew there: its reader sees their turn, not the
    moment before it."""
    async with alone(tmp_path, "Errs") as (double, alice, table, game, first):
        seat = table.seat_of(alice.id)
        await alice.send(alice.dm, "/help")
        await double.wait_for(lambda: alice.dm_view().find("here in our chat"), 5)
        double.fail("sendMessage", "500", times=10_000)

        def drawn() -> str:
            message = shown(alice, first.message_id)
            assert not message.deleted
            return message.text or ""

        hand = game.hand_number

        def over() -> bool:
            return game.hand_number != hand or game.phase == "over"

        while not over():
            await double.wait_for(lambda: over() or seat in game.waiting_for(), 30)
            if over():
                break
            if game.phase == "play":
                await double.wait_for(lambda: "Your turn." in drawn(), 10)
            await play_turn(double, alice, table)
        double.fail("sendMessage", None)
        # No screen came below: the one there was kept, and drawn where it is.
        assert {m.message_id for m in screens_ever(alice)} <= {first.message_id}
        assert not alice.dm_view().message(first.message_id).deleted  # type: ignore[union-attr]


async def test_a_replay_asked_for_in_the_dm_does_not_leave_the_screen_above_it(
    tmp_path: Path,
) -> None:
    """▶ Replay (as 🔍 Review) under the card screen posts below it: the reader's next
    turn brings the screen back under it."""
    async with alone(tmp_path, "Replays") as (double, alice, table, game, _):
        seat = table.seat_of(alice.id)
        while game.hand_number == 1:
            await until_her_turn(double, game, seat, hand=1)
            if game.hand_number == 1:
                await play_turn(double, alice, table)
        await double.idle()
        (screen,) = card_screens(alice)
        assert await alice.press(alice.dm, screen.message_id, "▶ Replay") == "▶ Hand 1"
        await double.wait_for(
            lambda: (alice.dm_view().find("▶ Hand 1") or screen).message_id > screen.message_id,
            10,
        )
        replay = alice.dm_view().find("▶ Hand 1")
        assert replay is not None

        def below_replay() -> bool:
            return any(m.message_id > replay.message_id for m in card_screens(alice))

        # Her turns of hand 2, until the screen comes below the replay.
        while not below_replay():
            await double.wait_for(
                lambda: below_replay() or seat in game.waiting_for() or game.hand_number > 2,
                30,
            )
            assert game.hand_number == 2, "hand 2 ended with the screen above the replay"
            if not below_replay():
                await play_turn(double, alice, table)
        await double.wait_for(lambda: shown(alice, screen.message_id).deleted, 10)
        (moved,) = card_screens(alice)
        assert moved.message_id > replay.message_id
