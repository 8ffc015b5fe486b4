"""A lobby's seats in any order of joins, leaves, ✖ and computers (issue 30, item 1).

A lobby's seats are a list with holes until the deal (a seat emptied before a later one,
a rematch's seats filled in advance), and storage keeps them so. A change storage refuses
leaves the lobby in memory as it was. The property test drives the real bot through the
Bot API double with random sequences of lobby commands over 3 to 6 seats, and after every
step compares the lobby in memory with the one reloaded from storage.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from bot_harness import open_table, rooms_of, running_bot, table_in
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from telegram.ext import Application

from bot.core import decode as cb
from bot.flood import CommandLimiter
from bot.i18n import english
from bot.tables.model import Table
from sandbox.double import BotApiDouble
from sandbox.people import Group, SandboxUser
from sandbox.testing import running_double
from storage import Storage
from storage.database import rows_changed

t = english()
WRONG = t("Something went wrong; please try again.")


def seats_of(table: Table) -> list[tuple[str, str, int | None, str] | None]:
    return [
        None if s is None else (s.kind, s.name, s.user_id, s.level if s.kind == "computer" else "")
        for s in table.seats
    ]


async def assert_stored_as_shown(app: Application, table: Table) -> None:  # type: ignore[type-arg]
    """The lobby in memory is the one storage gives back, and the indexes agree with it."""
    rooms = rooms_of(app)
    stored = Table.from_stored(await rooms.storage.games.load_game(table.id))
    assert stored.status == table.status
    if table.status == "lobby":
        assert seats_of(stored) == seats_of(table)
        assert stored.rules == table.rules
        assert stored.pending == table.pending
    else:  # dealt: every seat stored, as played
        assert seats_of(stored) == seats_of(table) and None not in table.seats
    assert len(table.seats) == table.rules.players
    people = [s.user_id for s in table.seats if s is not None and s.user_id is not None]
    assert len(people) == len(set(people)), "a person in two seats"
    for user_id in people:
        assert rooms.registry.of_user(user_id) is table


# ---------------------------------------------------------------- the two reproductions


async def on_writer(storage: Storage, sql: str) -> None:
    """Change the database on the storage's own writer connection (a trigger that refuses)."""
    await storage.database.transact(rows_changed, text(sql))


async def test_the_hosts_x_on_a_middle_seat_empties_it(tmp_path: Path) -> None:
    """Ana adds three computers and presses ✖ 2: seat 2 is empty, in the group's message and
    in storage, and stays so across a restart."""
    database = tmp_path / "db.sqlite3"
    async with running_double() as double:
        ana = double.create_user("Ana")
        group = double.create_group("Middle", members=[ana], admins=[ana])
        async with running_bot(double, database) as app:
            await ana.start_bot()
            await double.idle()
            lobby = await open_table(double, ana, group, computers=3)
            table = table_in(app, group)
            assert await ana.press(group, lobby, "✖ 2") == t("Seat emptied.")
            assert [s is None for s in table.seats] == [False, True, False, False]
            await assert_stored_as_shown(app, table)
            await double.idle()
            shown = double.chat_view(group.id).message(lobby)
            assert shown is not None and "2. " + t("— empty —") in (shown.text or "")
            assert shown.button("✖ 2") is None and shown.button("✖ 3") is not None
            assert await ana.press(group, lobby, "🤖 Add computer") == t("Computer player added.")
            assert None not in table.seats
            assert await ana.press(group, lobby, "✖ 3") == t("Seat emptied.")
            expected = seats_of(table)
        async with running_bot(double, database) as app:
            assert seats_of(table_in(app, group)) == expected


async def test_leaving_a_middle_seat_empties_it_and_joining_takes_it_back(
    tmp_path: Path,
) -> None:
    """Bob, in seat 2 with seats 3 and 4 filled, presses Leave (and later types /leave):
    he is out, in memory and in storage; his next Join takes seat 2 again."""
    async with running_double() as double:
        ana, bob = double.create_user("Ana"), double.create_user("Bob")
        group = double.create_group("Leave", members=[ana, bob], admins=[ana])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await bob.start_bot()
            await ana.start_bot()
            await double.idle()
            lobby = await open_table(double, ana, group)
            assert await bob.press(group, lobby, "✋ Join") == t(
                "You're in! Your cards will come in a DM."
            )
            for _ in range(2):
                await ana.press(group, lobby, "🤖 Add computer")
            table = table_in(app, group)
            assert table.seat_of(bob.id) == 1 and None not in table.seats

            assert await bob.press(group, lobby, "🚪 Leave") == t("You left the table.")
            assert table.seat_of(bob.id) is None and table.seats[1] is None
            await assert_stored_as_shown(app, table)
            await bob.press(group, lobby, "✋ Join")
            assert table.seat_of(bob.id) == 1
            await assert_stored_as_shown(app, table)

            await bob.send(group, "/leave")
            await double.wait_for(lambda: table.seat_of(bob.id) is None, 5)
            await double.idle()
            texts = [m.text or "" for m in double.chat_view(group.id).bot_messages]
            assert t("You left the table.") in texts and WRONG not in texts
            await assert_stored_as_shown(app, table)


async def test_a_change_storage_refuses_leaves_the_lobby_as_it_was(tmp_path: Path) -> None:
    """While storage refuses to write seats, Bob's Leave and Ana's ✖ change nothing in
    memory either: Bob still sits in seat 2, and nobody else can take it."""
    async with running_double() as double:
        ana, bob, cy = (double.create_user(n) for n in ("Ana", "Bob", "Cy"))
        group = double.create_group("Refused", members=[ana, bob, cy], admins=[ana])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            for person in (ana, bob, cy):
                await person.start_bot()
            await double.idle()
            lobby = await open_table(double, ana, group)
            await bob.press(group, lobby, "✋ Join")
            await ana.press(group, lobby, "🤖 Add computer")
            table = table_in(app, group)
            before = seats_of(table)
            storage = rooms_of(app).storage
            assert storage.dialect == "sqlite"
            await on_writer(
                storage,
                "CREATE TRIGGER refuse_seats BEFORE DELETE ON game_seats"
                " BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
            )

            assert await bob.press(group, lobby, "🚪 Leave") == WRONG
            assert await ana.press(group, lobby, "✖ 3") == WRONG
            assert seats_of(table) == before
            assert rooms_of(app).registry.of_user(bob.id) is table
            await assert_stored_as_shown(app, table)
            # Bob is still seated, so Cy's Join takes the fourth seat, not Bob's.
            assert await cy.press(group, lobby, "✋ Join") == WRONG
            assert table.seat_of(cy.id) is None and table.seat_of(bob.id) == 1

            await on_writer(storage, "DROP TRIGGER refuse_seats")
            assert await bob.press(group, lobby, "🚪 Leave") == t("You left the table.")
            await assert_stored_as_shown(app, table)


async def test_a_rule_change_storage_refuses_keeps_the_chats_defaults(tmp_path: Path) -> None:
    """While storage refuses to write the lobby, Ana's change of the target leaves the
    table and the chat's stored defaults (its next tables' rules) as they were; while it
    refuses only the defaults, the table keeps the change it stored."""
    async with running_double() as double:
        ana = double.create_user("Ana")
        group = double.create_group("Refused rules", members=[ana], admins=[ana])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            await ana.start_bot()
            await double.idle()
            lobby = await open_table(double, ana, group)
            table = table_in(app, group)
            storage = rooms_of(app).storage
            assert storage.dialect == "sqlite"
            defaults = await storage.people.get_chat_settings(group.id)
            target = table.rules.target
            await on_writer(
                storage,
                "CREATE TRIGGER refuse_lobby BEFORE UPDATE ON games"
                " BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
            )

            data = cb.ChooseRule(table.id, "target", "50").encode()
            assert target != 50
            assert await ana.press_forged(group, lobby, data) == WRONG
            assert table.rules.target == target
            await assert_stored_as_shown(app, table)
            assert await storage.people.get_chat_settings(group.id) == defaults

            await on_writer(storage, "DROP TRIGGER refuse_lobby")
            assert await ana.press_forged(group, lobby, data) == t("Rules changed.")
            assert table.rules.target == 50
            assert (await storage.people.get_chat_settings(group.id)).rules["target"] == 50

            # Storage takes the lobby but refuses the chat's defaults: the table keeps
            # the change it stored (memory as storage), the defaults stay as they were.
            defaults = await storage.people.get_chat_settings(group.id)
            for event in ("INSERT", "UPDATE"):
                await on_writer(
                    storage,
                    f"CREATE TRIGGER refuse_chats_{event} BEFORE {event} ON chats"
                    " BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
                )
            data = cb.ChooseRule(table.id, "target", "75").encode()
            assert await ana.press_forged(group, lobby, data) == WRONG
            assert table.rules.target == 75
            await assert_stored_as_shown(app, table)
            assert await storage.people.get_chat_settings(group.id) == defaults


# ---------------------------------------------------------------- any order, any size


@dataclass
class Lab:
    """One double and one bot on an event loop of their own, kept across examples (each
    example plays in a new group with new people)."""

    loop: asyncio.AbstractEventLoop
    double: BotApiDouble
    app: Application  # type: ignore[type-arg]
    groups: int = 0

    def run(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(coroutine)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    loop = asyncio.new_event_loop()
    double_cm = running_double()
    double = loop.run_until_complete(double_cm.__aenter__())
    database = tmp_path_factory.mktemp("lobby") / "db.sqlite3"
    bot_cm = running_bot(double, database)
    app = loop.run_until_complete(bot_cm.__aenter__())
    # Commands as fast as a test types them (a person's rate is tested elsewhere).
    limits = app.bot_data
    limits.command_limiter = limits.press_limiter = CommandLimiter(burst=10_000)
    limits.group_posts.people = limits.group_posts.chats = CommandLimiter(burst=10_000)
    try:
        yield Lab(loop, double, app)
    finally:
        loop.run_until_complete(bot_cm.__aexit__(None, None, None))
        loop.run_until_complete(double_cm.__aexit__(None, None, None))
        loop.close()


PEOPLE = 5
"""Ana (the host), three more who opened their DM, and one who has not (he waits as
"pending" when he presses Join)."""

command = st.one_of(
    st.tuples(st.sampled_from(["join", "leave", "/leave", "/join", "/newgame"]), st.integers(0, 4)),
    st.tuples(st.just("kick"), st.integers(0, 5)),
    st.tuples(st.just("add"), st.just(0)),
    st.tuples(st.just("players"), st.integers(3, 6)),
    st.tuples(st.just("start"), st.just(0)),
)


async def _play(lab: Lab, players: int, commands: list[tuple[str, int]]) -> None:
    double, app = lab.double, lab.app
    lab.groups += 1
    people = [double.create_user(f"P{lab.groups}-{n}") for n in range(PEOPLE)]
    host = people[0]
    group: Group = double.create_group(f"Lobby {lab.groups}", members=people, admins=[host])
    for person in people[:-1]:
        await person.start_bot()
    await double.idle()
    lobby = await open_table(double, host, group, players=str(players))
    table = table_in(app, group)
    await assert_stored_as_shown(app, table)
    said: list[str | None] = []

    async def forged(person: SandboxUser, action: str, arg: str = "") -> None:
        data = cb.Callback(action, table.id, 0, arg).encode()
        said.append(await person.press_forged(group, lobby, data))

    async def typed(person: SandboxUser, text: str) -> None:
        before = len(double.chat_view(group.id).bot_messages)
        await person.send(group, text)
        await double.wait_for(lambda: len(double.chat_view(group.id).bot_messages) > before, 5)
        said.append(double.chat_view(group.id).bot_messages[-1].text)

    for action, n in commands:
        person = people[n % PEOPLE]
        if action == "join":
            await forged(person, cb.JOIN)
        elif action == "leave":
            await forged(person, cb.LEAVE)
        elif action in ("/join", "/leave", "/newgame"):
            await typed(person, action)
        elif action == "kick":
            await forged(host, cb.KICK, str(n))
        elif action == "add":
            await forged(host, cb.ADD_COMPUTER)
        elif action == "players":
            await forged(host, cb.SET_RULE, f"players={n}")
        else:
            await forged(host, cb.START)
        await assert_stored_as_shown(app, table)
        assert WRONG not in said, (action, n, said)
        if table.status != "lobby":
            break
    await host.send(group, "/cancel")
    await double.wait_for(lambda: table.status == "cancelled", 5)


@settings(
    max_examples=24,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(players=st.sampled_from([3, 4, 5, 6]), commands=st.lists(command, max_size=14))
def test_any_order_of_lobby_commands_keeps_memory_and_storage_alike(
    lab: Lab, players: int, commands: list[tuple[str, int]]
) -> None:
    lab.run(asyncio.wait_for(_play(lab, players, commands), 60))
