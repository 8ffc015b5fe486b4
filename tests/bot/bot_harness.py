"""Running the real bot against the Bot API double, and playing it as people would."""

from __future__ import annotations

import itertools
import shutil
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from telegram.ext import Application

from bot.app import build_application, polling
from bot.app import rooms_of as opened_rooms
from bot.config import Settings, Tuning
from bot.core import effects
from bot.rooms import Rooms
from bot.sandbox_runner import free_port
from bot.tables.model import Table
from domain.people import ChatSettings
from engine import Card, Rules
from sandbox.double import BotApiDouble
from sandbox.people import Group, SandboxUser
from storage import open_storage

FAST = Tuning(
    computer_delay=0.0,
    group_edit_interval=0.0,
    dm_edit_interval=0.0,
    thinker_workers=0,
    rate_limiter=False,
    nudge_delay=0.0,
    engaged_nudge_delay=0.0,
    pace_presses=False,  # the tests play at the machine's speed, faster than any hand
)


def settings_for(double: BotApiDouble, database: Path, *, pages: bool = False) -> Settings:
    """`pages`: serve the table page (a Mini App) on a free port of 127.0.0.1."""
    port = free_port() if pages else 8081
    return Settings(
        bot_token=double.token,
        telegram_api_base_url=double.base_url,
        telegram_api_file_url=double.base_file_url,
        database_path=database,
        computer_think_ms=50,
        webapp_url=f"http://127.0.0.1:{port}/app/" if pages else None,
        webapp_port=port,
    )


@asynccontextmanager
async def running_bot(
    double: BotApiDouble, database: Path, tuning: Tuning = FAST, *, pages: bool = False
) -> AsyncIterator[Application]:  # type: ignore[type-arg]
    """The bot as run_polling runs it: initialize, post_init, poll, and a clean stop."""
    if not database.exists():
        await _new_database(database)
    app = build_application(settings_for(double, database, pages=pages), tuning)
    async with polling(app, poll_timeout=1):
        yield app


_template: list[Path] = []


async def _new_database(database: Path) -> None:
    """A new SQLite database with the bot's schema: a copy of one this test process made
    once. Every revision ran for each new database (Alembic, about 0.1 s of CPU), in a
    hundred bot tests; opening the copy still checks it is up to date. Creating a schema
    from nothing stays tested by the storage tests and the tests that run the bot as a
    process (`hearts-bot`, the sandbox)."""
    if not _template:
        made = Path(tempfile.mkdtemp(prefix="hearts-template-")) / "hearts.sqlite3"
        storage = await open_storage(made)
        await storage.close()
        _template.append(made)
    database.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_template[0], database)


def rooms_of(app: Application) -> Rooms:  # type: ignore[type-arg]
    rooms = opened_rooms(app)
    assert isinstance(rooms, Rooms)
    return rooms


def table_in(app: Application, group: Group) -> Table:  # type: ignore[type-arg]
    rooms = rooms_of(app)
    for table in rooms.registry.tables.values():
        if table.chat_id == group.id:
            return table
    raise LookupError("no table in that group")


async def open_table(
    double: BotApiDouble, host: SandboxUser, group: Group, computers: int = 0, **rules: str
) -> int:
    """Host types /newgame, sets rules in the menu, adds computers; returns the lobby id."""
    before = len(double.chat_view(group.id).bot_messages)
    await host.send(group, "/newgame")
    await double.wait_for(
        lambda: any(
            "Join" in str(m.labels) for m in double.chat_view(group.id).bot_messages[before:]
        ),
        5,
    )
    lobby = next(
        m for m in reversed(double.chat_view(group.id).bot_messages) if "Join" in str(m.labels)
    )
    if rules:
        await host.press(group, lobby.message_id, "⚙ Rules")
        for option, value in rules.items():
            data = await _rule_data(double, group, lobby.message_id, option, value)
            await host.press(group, lobby.message_id, data=data)
        await wait_for_button(double, group.id, lobby.message_id, "« Back")
        await host.press(group, lobby.message_id, "« Back")
        await wait_for_button(double, group.id, lobby.message_id, "🤖 Add computer")
    for _ in range(computers):
        await host.press(group, lobby.message_id, "🤖 Add computer")
    return lobby.message_id


async def seat_everyone(
    double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
    group: Group,
    people: list[SandboxUser],
    **rules: str,
) -> tuple[int, Table]:
    """Everyone opens the bot's DM, the first opens a table (with `rules` set in its
    menu, as `open_table` sets them) and the rest join it.

    Returns the lobby message and the table; the caller presses Start (after any change
    it wants to make to the table first).
    """
    for person in people:
        await person.start_bot()
    await double.wait_for(lambda: people[-1].dm_view().last() is not None, 5)
    lobby = await open_table(double, people[0], group, **rules)
    for person in people[1:]:
        await person.press(group, lobby, "✋ Join")
    return lobby, table_in(app, group)


async def start_with_computers(
    double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
    group: Group,
    people: list[SandboxUser],
    **rules: str,
) -> tuple[int, Table]:
    """`seat_everyone`, computers in the empty seats, Start; returns when cards are dealt."""
    lobby, table = await seat_everyone(double, app, group, people, **rules)
    for _ in range(table.rules.players - len(people)):
        await people[0].press(group, lobby, "🤖 Add computer")
    await people[0].press(group, lobby, "▶ Start")
    await double.wait_for(lambda: table.game is not None, 5)
    return lobby, table


def _find_rule(
    double: BotApiDouble, group: Group, message_id: int, option: str, value: str
) -> str | None:
    message = double.chat_view(group.id).message(message_id)
    assert message is not None
    for button in message.all_buttons():
        if button.callback_data and button.callback_data.endswith(f":{option}={value}"):
            return button.callback_data
    return None


async def _rule_data(
    double: BotApiDouble, group: Group, message_id: int, option: str, value: str
) -> str:
    await double.wait_for(
        lambda: _find_rule(double, group, message_id, option, value) is not None, 5
    )
    data = _find_rule(double, group, message_id, option, value)
    assert data is not None
    return data


async def wait_for_button(double: BotApiDouble, chat_id: int, message_id: int, label: str) -> None:
    def shown() -> bool:
        message = double.chat_view(chat_id).message(message_id)
        return message is not None and any(b.label == label for b in message.all_buttons())

    await double.wait_for(shown, 5)


def _find_card(double: BotApiDouble, person: SandboxUser, card: Card, hand: int) -> str | None:
    for message in reversed(double.chat_view(person.dm).bot_messages):
        for button in message.all_buttons():
            data = button.callback_data or ""
            if data.startswith("c:") and data.endswith(f":{hand}:{card.code}"):
                return data
    return None


async def card_button(double: BotApiDouble, person: SandboxUser, card: Card, hand: int) -> str:
    """The callback data of ``card`` in the person's DM, once the DM shows that hand."""
    await double.wait_for(lambda: _find_card(double, person, card, hand) is not None, 5)
    data = _find_card(double, person, card, hand)
    assert data is not None
    return data


def _dm_has(double: BotApiDouble, person: SandboxUser, prefix: str) -> bool:
    return any(
        b.label.startswith(prefix)
        for m in double.chat_view(person.dm).bot_messages
        for b in m.all_buttons()
    )


async def play_turn(double: BotApiDouble, person: SandboxUser, table: Table) -> str | None:
    """Make ``person``'s move the way they would, by pressing buttons; None if not their turn."""
    game = table.game
    assert game is not None
    seat = table.seat_of(person.id)
    assert seat is not None
    if seat not in game.waiting_for():
        return None
    if game.phase == "pass":
        for card in game.hand(seat)[-3:]:
            data = await card_button(double, person, card, game.hand_number)
            await person.press(person.dm, None, data=data)
        await double.wait_for(lambda: _dm_has(double, person, "Pass 3/3"), 5)
        return await person.press(person.dm, None, lambda b: b.label.startswith("Pass 3/3"))
    if game.phase == "moon":
        # "+26 for everyone else", or "+(13+13i) for everyone else" in Complex Hearts.
        await double.wait_for(lambda: _dm_has(double, person, "+"), 5)
        return await person.press(person.dm, None, lambda b: b.label.endswith("everyone else"))
    card = game.legal_plays()[0]
    data = await card_button(double, person, card, game.hand_number)
    return await person.press(person.dm, None, data=data)


async def finished_game(
    double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
    group: Group,
    people: list[SandboxUser],
) -> int:
    """The people play a one-hand game (the computers play it for them: the group's rules
    say a game to 1 point, ties shared, as a tournament's do); the table's message, with
    its 🔁 New game button, is returned."""

    def charts() -> int:
        return sum(m.has_photo for m in double.chat_view(group.id).visible)

    before = charts()
    for person in people:
        await person.start_bot()
    await double.idle()
    await rooms_of(app).storage.people.save_chat_settings(
        ChatSettings(group.id, rules=Rules(target=1, ties="share").to_dict())
    )
    lobby = await open_table(double, people[0], group)
    for person in people[1:]:
        await person.press(group, lobby, "✋ Join")
    await people[0].press(group, lobby, "▶ Start")
    table = table_in(app, group)
    await double.wait_for(lambda: table.game is not None, 5)
    for person in people:
        await person.send(group, "/leave")
    await double.wait_for(lambda: table.status == "finished", 60)
    await wait_for_button(double, group.id, lobby, "🔁 New game")
    # The game's chart too (drawn after the table's message: on a busy machine it came
    # after a quiet moment, into what the test did next).
    await double.wait_for(lambda: charts() > before, 10)
    await double.idle()
    return lobby


class MoveTimes:
    """When each move of one table was made (once what comes next is armed, as the pages
    are told), to measure how long another's flood or coach held that table up."""

    def __init__(self, rooms: Rooms, table: Table) -> None:
        self.times: list[float] = []
        arm_next = rooms.clock.arm_next

        async def heard(moved: Table, effect: effects.ArmNext) -> None:
            await arm_next(moved, effect)
            if moved.id == table.id:
                self.times.append(time.monotonic())

        rooms.clock.arm_next = heard  # type: ignore[method-assign]

    def __len__(self) -> int:
        return len(self.times)

    def longest_wait(self, since: float, until: float) -> float:
        """The longest stretch between `since`, the moves made in between, and `until`."""
        times = [since, *(t for t in self.times if since < t < until), until]
        return max(b - a for a, b in itertools.pairwise(times))
