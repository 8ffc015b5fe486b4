"""Nothing happens that a screen did not offer (issue 50, item 2; issue 52, item 2).

Callback data and a table page's commands name a table by its id, and anyone can forge
them. Which commands each kind of table accepts at each stage is declared once
(`bot.core.accepts`) and read before anything else. Three reproductions at the daily deal,
then a property test: one bot holds a table of every kind at every stage it can be in, and
random forged presses and page commands (every prefix, every table, anyone's) change no
table unless a screen of the presser's offered that very press.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from bot_harness import FAST, finished_game, open_table, rooms_of, running_bot, table_in
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from telegram.ext import Application
from test_live_server import PageClient, open_page, signed, until

from bot.core import accepts
from bot.core import decode as cb
from bot.core.accepts import Kind, Stage
from bot.flood import CommandLimiter
from bot.i18n import english
from bot.tables.model import Table
from bot.timers import ManualClock
from domain.people import ChatSettings
from engine import Game, Rules, daily
from engine.players import ExpertPlayer
from sandbox.double import BotApiDouble
from sandbox.people import Group, SandboxUser
from sandbox.testing import running_double
from storage import Storage

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "storage"))
from storage_testkit import random_move, seats_for

t = english()
NOT_OFFERED = t("That button isn't valid any more.")
WRONG = t("Something went wrong; please try again.")
NOW = datetime(2031, 5, 31, 12, 0, tzinfo=UTC)
START = datetime(2031, 6, 1, 12, 30, tzinfo=UTC)  # 18:00 in Asia/Kolkata


def quick(seed: int) -> ExpertPlayer:
    """The day's computers, steady but on few deals (as tests/bot/test_e2e_daily.py)."""
    return ExpertPlayer(seed, deals=8, steady=True, search_pass=False)


@pytest.fixture
def quick_computers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(daily, "computer", quick)


async def start_daily(
    double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
    person: SandboxUser,
    clock: ManualClock,
) -> Table:
    """The person's /daily, once its table is dealt and waits for them."""
    rooms = rooms_of(app)
    await person.send(person.dm, "/daily")
    await double.wait_for(lambda: person.dm_view().find("Daily deal") is not None, 10)
    day = daily.day_number(clock().timestamp())
    mine = await rooms.storage.daily.game_of(day, person.id)
    assert mine is not None
    table = rooms.registry.get(mine.game_id)
    assert table is not None and table.daily == day
    game = table.game
    assert game is not None
    await double.wait_for(lambda: daily.PERSON_SEAT in game.waiting_for(), 10)
    await double.idle()
    return table


async def stored_game(
    store: Storage,
    *,
    chat_id: int,
    user_id: int,
    meta: dict[str, Any],
    tournament_id: int | None = None,
    finish: bool = True,
) -> int:
    """A game stored as the bot stores one, played at random to its end (or cancelled
    after its first eight moves)."""
    rules = Rules(target=1)
    seats = seats_for(rules.players, [user_id])
    game_id = await store.games.create_lobby(
        chat_id, None, user_id, rules, seats, meta, tournament_id=tournament_id
    )
    game = Game(rules, seed=game_id)
    await store.games.start_game(game_id, seats, game)
    rng = random.Random(game_id)
    made = 0
    while game.phase != "over" and (finish or made < 8):
        move = random_move(game, rng)
        move.apply(game)
        made += 1
        await store.games.record_move(game_id, move, game, None)
    if not finish:
        await store.games.cancel_game(game_id)
    return game_id


# ---------------------------------------------------------------- the three reproductions


async def test_a_forged_leave_does_not_hand_the_daily_deal_to_the_expert(
    tmp_path: Path, quick_computers: None
) -> None:
    """``ll:<daily game>:0:`` made a computer play the person's daily deal to the end, and
    put the result on the day's board: no screen offers leaving a daily deal."""
    async with running_double() as double:
        ann = double.create_user("Ann")
        clock = ManualClock(NOW)
        async with running_bot(double, tmp_path / "db.sqlite3", replace(FAST, clock=clock)) as app:
            rooms = rooms_of(app)
            table = await start_daily(double, app, ann, clock)
            last = ann.dm_view().last()
            assert last is not None
            said = await ann.press_forged(ann.dm, last.message_id, f"ll:{table.id}:0:")
            assert said == NOT_OFFERED
            await double.idle()
            seat = table.seats[daily.PERSON_SEAT]
            assert seat is not None and not seat.away
            stored = Table.from_stored(await rooms.storage.games.load_game(table.id))
            kept = stored.seats[daily.PERSON_SEAT]
            assert stored.status == "active" and kept is not None and not kept.away


async def test_a_forged_cancel_does_not_end_the_persons_own_daily_deal(
    tmp_path: Path, quick_computers: None
) -> None:
    """``lc:<daily game>:0:`` cancelled the daily deal mid-game (its host is its person),
    and the day counted it as it stood: a daily deal ends only at its end or the day's."""
    async with running_double() as double:
        ann = double.create_user("Ann")
        clock = ManualClock(NOW)
        async with running_bot(double, tmp_path / "db.sqlite3", replace(FAST, clock=clock)) as app:
            rooms = rooms_of(app)
            table = await start_daily(double, app, ann, clock)
            last = ann.dm_view().last()
            assert last is not None
            said = await ann.press_forged(ann.dm, last.message_id, f"lc:{table.id}:0:")
            assert said == NOT_OFFERED
            await double.idle()
            assert rooms.registry.get(table.id) is table and table.phase.dealt
            assert (await rooms.storage.games.load_game(table.id)).status == "active"


async def test_a_forged_new_game_under_a_finished_daily_deal_opens_no_lobby(
    tmp_path: Path,
) -> None:
    """``rm:<finished daily>:0:`` opened a lobby in the person's DM with the day's
    `expert` computers, and its game was rated: a daily deal is never reopened."""
    async with running_double() as double:
        ann = double.create_user("Ann")
        tuning = replace(FAST, clock=ManualClock(NOW))
        async with running_bot(double, tmp_path / "db.sqlite3", tuning) as app:
            rooms = rooms_of(app)
            await ann.start_bot()
            await double.wait_for(lambda: ann.dm_view().last() is not None, 5)
            day = daily.day_number(NOW.timestamp())
            game_id = await stored_game(
                rooms.storage, chat_id=ann.id, user_id=ann.id, meta={"daily": day}
            )
            games = await count_games(rooms.storage)
            last = ann.dm_view().last()
            assert last is not None
            said = await ann.press_forged(ann.dm, last.message_id, f"rm:{game_id}:0:")
            assert said == NOT_OFFERED
            await double.idle()
            assert await count_games(rooms.storage) == games
            assert rooms.registry.showing_in(ann.id) == []


async def count_games(store: Storage) -> int:
    rows = await store.database.read(text("SELECT COUNT(*) FROM games"))
    return int(rows[0][0])


# ---------------------------------------------------------------- every kind, every stage


@dataclass
class Lab:
    """One double and one bot on an event loop of their own, kept across examples, with a
    table of every kind at every stage it can be in, and the people who sit at them."""

    loop: asyncio.AbstractEventLoop
    double: BotApiDouble
    app: Application  # type: ignore[type-arg]
    clock: ManualClock
    people: list[SandboxUser] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    tables: dict[tuple[Kind, Stage], int] = field(default_factory=dict)
    tournament: int = 0
    day: int = 0
    presses: int = 0
    owners: dict[tuple[Kind, Stage], SandboxUser] = field(default_factory=dict)
    """Who sits at (or opened) each table."""
    pages: dict[tuple[Kind, Stage], PageClient] = field(default_factory=dict)
    """Each dealt table's page, opened by its person once (a person's hellos are paced)."""
    closing: contextlib.AsyncExitStack = field(default_factory=contextlib.AsyncExitStack)

    def run(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(coroutine)


async def _quiet_group(
    double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
    name: str,
    members: list[SandboxUser],
    rules: Rules,
) -> Group:
    """A group whose tables have no turn timer (nothing happens at a table unless pressed)."""
    group = double.create_group(name, members=members, admins=[members[0]])
    settings = ChatSettings(group.id, rules=rules.to_dict(), turn_timer_s=0)
    await rooms_of(app).storage.people.save_chat_settings(settings)
    return group


async def _dealt(
    double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
    host: SandboxUser,
    group: Group,
) -> Table:
    lobby = await open_table(double, host, group)
    table = table_in(app, group)
    for _ in range(table.rules.players - 1):
        await host.press(group, lobby, "🤖 Add computer")
    await host.press(group, lobby, "▶ Start")
    await double.wait_for(lambda: table.game is not None, 5)
    return table


async def _build(lab: Lab) -> None:
    double, app = lab.double, lab.app
    rooms = rooms_of(app)
    clock = lab.clock
    names = ["Lia", "Dan", "Cal", "Cid", "Tia", "Tom", "Two", "Ann", "Bob", "Kim", "Day"]
    people = {n: double.create_user(n) for n in [*names, "Fin", "Fay", "Mal"]}
    for person in people.values():
        await person.start_bot()
    await double.idle()
    two = Rules().with_variant("two_player")
    four = Rules()
    # A group's table: open, dealt, cancelled open and cancelled dealt, finished.
    g_lobby = await _quiet_group(double, app, "Lobby", [people["Lia"], people["Fin"]], four)
    await open_table(double, people["Lia"], g_lobby)
    lab.tables[Kind.GROUP, Stage.LOBBY] = table_in(app, g_lobby).id
    g_dealt = await _quiet_group(double, app, "Dealt", [people["Dan"], people["Fay"]], four)
    lab.tables[Kind.GROUP, Stage.DEALT] = (await _dealt(double, app, people["Dan"], g_dealt)).id
    g_cancel = await _quiet_group(double, app, "Cancelled", [people["Cal"], people["Cid"]], four)
    cancelled = await _dealt(double, app, people["Cal"], g_cancel)
    await people["Cal"].send(g_cancel, "/cancel")
    await double.wait_for(lambda: cancelled.status == "cancelled", 5)
    lab.tables[Kind.GROUP, Stage.CANCELLED] = cancelled.id
    g_over = double.create_group("Over", members=[people["Fin"], people["Fay"]])
    await finished_game(double, app, g_over, [people["Fin"], people["Fay"]])
    finished = await rooms.storage.games.last_finished_game(g_over.id, None)
    assert finished is not None
    lab.tables[Kind.GROUP, Stage.FINISHED] = finished.id
    # Two-player Hearts: open, dealt, cancelled, finished (its person left: a computer won).
    g_two = await _quiet_group(double, app, "Two", [people["Tia"], people["Two"]], two)
    await open_table(double, people["Tia"], g_two)
    lab.tables[Kind.TWO_PLAYER, Stage.LOBBY] = table_in(app, g_two).id
    g_tom = await _quiet_group(double, app, "Tom", [people["Tom"], people["Tia"]], two)
    lab.tables[Kind.TWO_PLAYER, Stage.DEALT] = (await _dealt(double, app, people["Tom"], g_tom)).id
    g_two_over = await _quiet_group(
        double, app, "Two over", [people["Two"], people["Tom"]], replace(two, target=1)
    )
    over = await _dealt(double, app, people["Two"], g_two_over)
    await people["Two"].send(g_two_over, "/leave")
    await double.wait_for(lambda: over.status == "finished", 60)
    lab.tables[Kind.TWO_PLAYER, Stage.FINISHED] = over.id
    g_two_gone = await _quiet_group(double, app, "Two gone", [people["Two"], people["Tom"]], two)
    await open_table(double, people["Two"], g_two_gone)
    gone = table_in(app, g_two_gone)
    await people["Two"].send(g_two_gone, "/cancel")
    await double.wait_for(lambda: gone.status == "cancelled", 5)
    lab.tables[Kind.TWO_PLAYER, Stage.CANCELLED] = gone.id
    # A tournament's table, dealt at its start; one finished and one cancelled, stored.
    chem = await _quiet_group(
        double, app, "Chem", [people["Kim"], people["Ann"], people["Bob"]], four
    )
    await people["Kim"].send(chem, "/event new Cup 2031-06-01 18:00 Asia/Kolkata")
    event = await double.wait_for(
        lambda: next(
            (m for m in double.chat_view(chem.id).bot_messages if "✋ Register" in str(m.labels)),
            None,
        ),
        5,
    )
    for person in (people["Ann"], people["Bob"]):
        await person.press(chem, event.message_id, "✋ Register")
    [stored_event] = await rooms.storage.tournaments.tournaments_in_chat(chem.id)
    lab.tournament = stored_event.id
    # Stored before the round deals Bob his seat: one live table at a time (issue 50.3).
    for stage, finish in ((Stage.FINISHED, True), (Stage.CANCELLED, False)):
        lab.tables[Kind.TOURNAMENT, stage] = await stored_game(
            rooms.storage,
            chat_id=chem.id,
            user_id=people["Bob"].id,
            meta={},
            tournament_id=lab.tournament,
            finish=finish,
        )
    for moment in (START - timedelta(minutes=30), START + timedelta(seconds=1)):
        clock.now = moment
        await rooms.timeline.tick()
        await rooms.outbox.flush()
    await double.wait_for(
        lambda: any(t.tournament_id is not None for t in rooms.registry.tables.values()), 5
    )
    [played] = [t for t in rooms.registry.tables.values() if t.tournament_id is not None]
    lab.tables[Kind.TOURNAMENT, Stage.DEALT] = played.id
    # The daily deal: one finished and one cancelled (a closed day), stored first (one live
    # table at a time); then played now.
    lab.day = daily.day_number(clock().timestamp())
    for stage, finish in ((Stage.FINISHED, True), (Stage.CANCELLED, False)):
        lab.tables[Kind.DAILY, stage] = await stored_game(
            rooms.storage,
            chat_id=people["Day"].id,
            user_id=people["Day"].id,
            meta={"daily": lab.day - 2},
            finish=finish,
        )
    table = await start_daily(double, app, people["Day"], clock)
    assert table.daily == lab.day
    lab.tables[Kind.DAILY, Stage.DEALT] = table.id
    lab.people = list(people.values())
    owner = {
        (Kind.GROUP, Stage.LOBBY): "Lia",
        (Kind.GROUP, Stage.DEALT): "Dan",
        (Kind.GROUP, Stage.CANCELLED): "Cal",
        (Kind.GROUP, Stage.FINISHED): "Fin",
        (Kind.TWO_PLAYER, Stage.LOBBY): "Tia",
        (Kind.TWO_PLAYER, Stage.DEALT): "Tom",
        (Kind.TWO_PLAYER, Stage.FINISHED): "Two",
        (Kind.TWO_PLAYER, Stage.CANCELLED): "Two",
        (Kind.TOURNAMENT, Stage.DEALT): "Ann",
        (Kind.TOURNAMENT, Stage.FINISHED): "Bob",
        (Kind.TOURNAMENT, Stage.CANCELLED): "Bob",
        (Kind.DAILY, Stage.DEALT): "Day",
        (Kind.DAILY, Stage.FINISHED): "Day",
        (Kind.DAILY, Stage.CANCELLED): "Day",
    }
    lab.owners = {key: people[name] for key, name in owner.items()}
    lab.groups = [g_lobby, g_dealt, g_cancel, g_over, g_two, g_tom, g_two_over, g_two_gone, chem]
    await settle(lab)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    loop = asyncio.new_event_loop()
    patch = pytest.MonkeyPatch()
    patch.setattr(daily, "computer", quick)
    double_cm = running_double()
    double = loop.run_until_complete(double_cm.__aenter__())
    database = tmp_path_factory.mktemp("accepts") / "db.sqlite3"
    clock = ManualClock(NOW)
    bot_cm = running_bot(double, database, replace(FAST, clock=clock), pages=True)
    app = loop.run_until_complete(bot_cm.__aenter__())
    app.bot_data.command_limiter = CommandLimiter(burst=100_000)  # as fast as a test types
    built = Lab(loop, double, app, clock)
    try:
        loop.run_until_complete(asyncio.wait_for(_build(built), 240))
        yield built
    finally:
        loop.run_until_complete(built.closing.aclose())
        loop.run_until_complete(bot_cm.__aexit__(None, None, None))
        loop.run_until_complete(double_cm.__aexit__(None, None, None))
        loop.close()
        patch.undo()


async def settle(lab: Lab) -> None:
    """Every message sent and every dealt table waiting for a person (nothing happens by
    itself then: no table has a turn timer)."""

    def waiting() -> bool:
        for table in rooms_of(lab.app).registry.tables.values():
            game = table.game
            if game is None or not table.phase.dealt or game.phase == "over":
                continue
            seats = [table.seats[s] for s in game.waiting_for()]
            if not any(s is not None and not s.is_computer_now for s in seats):
                return False
        return True

    await lab.double.wait_for(waiting, 30)
    await lab.double.idle()


Snapshot = tuple[Any, ...]


def _seats(table: Table) -> tuple[Any, ...]:
    return tuple(None if s is None else (s.kind, s.user_id, s.away) for s in table.seats)


def _game(table: Table) -> str | None:
    return None if table.game is None else table.game.to_json()


async def snapshot(lab: Lab) -> tuple[Snapshot, Snapshot]:
    """What storage holds of every game, and what memory holds of every live table."""
    database = rooms_of(lab.app).storage.database
    games = await database.read(
        text("SELECT id, status, last_seq, snapshot, rules, tournament_id FROM games ORDER BY id")
    )
    seats = await database.read(
        text("SELECT game_id, seat, kind, user_id FROM game_seats ORDER BY game_id, seat")
    )
    registry = rooms_of(lab.app).registry
    live = tuple(
        (
            table.id,
            table.phase,
            _seats(table),
            _game(table),
            table.rules,
            table.options,
            tuple(sorted(table.pending.items())),
            repr(table.hints_used),
        )
        for table in sorted(registry.tables.values(), key=lambda t: t.id)
    )
    return (tuple(map(tuple, games)), tuple(map(tuple, seats))), live


async def assert_memory_is_storage(lab: Lab) -> None:
    store = rooms_of(lab.app).storage
    for table in list(rooms_of(lab.app).registry.tables.values()):
        stored = Table.from_stored(await store.games.load_game(table.id, verify=False))
        assert (stored.phase, _seats(stored), _game(stored), stored.rules) == (
            table.phase,
            _seats(table),
            _game(table),
            table.rules,
        ), table.id


QUIET = frozenset({cb.JOIN, cb.LEAVE, cb.ADD_COMPUTER, cb.START, cb.CANCEL, cb.REMATCH})
"""Actions whose stamp and argument the bot does not read: a press is the button's whatever
they say."""
MENU = frozenset({cb.RULES, cb.BACK, cb.SET_RULE, cb.KICK})
"""The lobby's rules menu and its seats' ✖: one press opens or closes it, so a screen that
shows any of it offers all of it."""


def _key(data: str) -> str:
    action, game, _, _ = data.split(":", 3)
    if action in MENU:
        return f"menu:{game}"
    return f"{action}:{game}" if action in QUIET | {cb.REPLAY_GAME} else data


def offered(lab: Lab, person: SandboxUser) -> set[str]:
    """Every press a screen in the person's chats offers them now (their DM, their groups)."""
    chats = [person.id] + [g.id for g in _groups_of(lab, person)]
    return {
        _key(b.callback_data)
        for chat in chats
        for m in lab.double.chat_view(chat).bot_messages
        for b in m.all_buttons()
        if b.callback_data
    }


def _groups_of(lab: Lab, person: SandboxUser) -> list[Group]:
    return [g for g in lab.groups if person.id in lab.double.chat(g.id).members]


ARGS = ["", "2C", "QS", "AH", "s", "a", "n", "0", "1", "3", "players=3", "target=50", "en"]


@st.composite
def presses(draw: st.DrawFn) -> tuple[int, str, int, int, str, int]:
    """Who presses (a person, by number), the action, which table (or any number), the
    stamp, the argument, and where (0: their DM; n: their n-th group)."""
    return (
        draw(st.integers(0, 13)),
        draw(st.sampled_from(sorted(cb.ACTIONS))),
        draw(st.integers(0, 17)),
        draw(st.sampled_from([0, 1, 2, 5])),
        draw(st.sampled_from(ARGS)),
        draw(st.integers(0, 2)),
    )


def _game_id(lab: Lab, which: int) -> int:
    ids = sorted(lab.tables.values())
    extra = [lab.tournament, lab.day, 987_654]
    everything = ids + extra
    return everything[which % len(everything)]


async def _press(lab: Lab, press: tuple[int, str, int, int, str, int]) -> None:
    who, action, which, stamp, arg, where = press
    person = lab.people[who % len(lab.people)]
    data = cb.Callback(action, _game_id(lab, which), stamp, arg).encode()
    groups = _groups_of(lab, person)
    chat: int | Group = person.dm
    if where and groups:
        chat = groups[(where - 1) % len(groups)]
    await forge(lab, person, chat, data)


async def forge(lab: Lab, person: SandboxUser, chat: int | Group, data: str) -> None:
    """`person` sends `data` under the last message of `chat`: unless a screen of theirs
    offers it, no table changes, in storage or in memory, and memory is storage."""
    if _key(data) in offered(lab, person):
        return  # a press a screen offers: the tables' own tests follow those
    before = await snapshot(lab)
    lab.presses += 1
    chat_id = chat if isinstance(chat, int) else chat.id
    last = lab.double.chat_view(chat_id).last()
    assert last is not None
    said = await person.press_forged(chat, last.message_id, data)
    await settle(lab)
    assert said != WRONG, data
    assert await snapshot(lab) == before, (person.name, data, said)
    await assert_memory_is_storage(lab)


def test_a_forged_withdraw_does_not_forfeit_a_running_event(lab: Lab) -> None:
    """Found by the sweep below: ``ew:<event>`` in a running event (its message no longer
    shows Withdraw) forfeited the presser's seat to a computer."""
    ann = lab.owners[Kind.TOURNAMENT, Stage.DEALT]
    table = rooms_of(lab.app).registry.get(lab.tables[Kind.TOURNAMENT, Stage.DEALT])
    assert table is not None

    async def withdraw() -> str | None:
        last = ann.dm_view().last()
        assert last is not None
        return await ann.press_forged(ann.dm, last.message_id, f"ew:{lab.tournament}:0:")

    assert lab.run(withdraw()) == NOT_OFFERED
    lab.run(settle(lab))
    seat = table.seats[table.seat_of(ann.id) or 0]
    assert seat is not None and seat.user_id == ann.id and not seat.away


ARG = {cb.MOON: "a", cb.SET_RULE: "target=50", cb.KICK: "1", cb.REPLAY_HAND: "n"}
"""Each action's argument as its buttons write it (a card's is one in the presser's hand)."""


async def _sweep(lab: Lab) -> None:
    rooms = rooms_of(lab.app)
    for key, game_id in sorted(lab.tables.items()):
        person = lab.owners[key]
        table = rooms.registry.get(game_id)
        game = None if table is None else table.game
        seat = None if table is None else table.seat_of(person.id)
        hand = 1 if game is None else game.hand_number
        cards = [] if game is None or seat is None else game.hand(seat)
        for action in sorted(cb.ACTIONS):
            arg = cards[0].code if action == cb.CARD and cards else ARG.get(action, "")
            stamp = 0 if action in QUIET | MENU else hand
            if action in cb.TOURNAMENT_ACTIONS:
                game_id_or_other = lab.tournament
            elif action in cb.DAILY_ACTIONS:
                game_id_or_other = lab.day
            else:
                game_id_or_other = game_id
            data = cb.Callback(action, game_id_or_other, stamp, arg).encode()
            await forge(lab, person, person.dm, data)


def test_every_prefix_at_every_kind_and_stage_by_its_own_player(lab: Lab) -> None:
    """Every action, pressed by the person who sits at (or opened) the table, at a table of
    every kind at every stage, as its buttons would write it: what no screen of theirs
    offers changes nothing (the reproductions of issue 50.2 among them)."""
    lab.run(asyncio.wait_for(_sweep(lab), 240))


def test_every_kind_of_table_is_here_at_every_stage_it_can_be_in(lab: Lab) -> None:
    """The property below reaches each kind of table at each stage (a tournament's and a
    daily deal's table is dealt at once: they have no lobby)."""
    rooms = rooms_of(lab.app)
    found = {
        key: lab.run(accepts.standing_of(game_id, rooms.registry.tables, rooms.storage.games))
        for key, game_id in lab.tables.items()
    }
    assert found == {key: accepts.Standing(*key) for key in lab.tables}
    assert len(found) == 4 * 4 - 2


@settings(
    max_examples=160,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(press=presses())
def test_a_forged_press_changes_no_table_unless_a_screen_offered_it(
    lab: Lab, press: tuple[int, str, int, int, str, int]
) -> None:
    lab.run(asyncio.wait_for(_press(lab, press), 60))


PAGE_KINDS = ["card", "pass", "moon", "hint"]


async def _page_command(
    lab: Lab, kind: str, table_key: int, other: int, hand: int, card: str
) -> None:
    """A forged command on a seated person's page: another table's id, or a command their
    kind of table does not accept (a hint at a daily deal or a tournament's, a moon choice
    at two-player Hearts, a card or pass on the wrong hand)."""
    rooms = rooms_of(lab.app)
    dealt = sorted(k for k in lab.tables if k[1] is Stage.DEALT)
    key = dealt[table_key % len(dealt)]
    table = rooms.registry.get(lab.tables[key])
    assert table is not None and table.game is not None
    seated = [s.user_id for _, s in table.humans() if s.user_id is not None]
    person = next(p for p in lab.people if p.id == seated[0])
    game_id = lab.tables[key] if other == 0 else _game_id(lab, other)
    offers = game_id == table.id and (
        (kind in ("card", "pass") and hand == table.game.hand_number)
        or (kind == "moon" and table.game.phase == "moon")
        or (kind == "hint" and table.offers_hints())
    )
    if offers:
        return  # the page offers it (its own tests follow those)
    said: dict[str, Any] = {"type": kind, "game": game_id, "hand": hand}
    if kind == "card":
        said["card"] = card
    if kind == "moon":
        said["choice"] = "add"
    page = lab.pages.get(key)
    if page is None:
        page = await lab.closing.enter_async_context(
            open_page(lab.app, signed(lab.double, person), table.id)
        )
        await until(lambda: bool(page.states()))
        lab.pages[key] = page
    before = await snapshot(lab)
    lab.presses += 1
    answer = await page.press_paced(said, lab.presses)
    await settle(lab)
    assert answer != WRONG
    assert await snapshot(lab) == before, (key, said, answer)
    await assert_memory_is_storage(lab)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    kind=st.sampled_from(PAGE_KINDS),
    table_key=st.integers(0, 3),
    other=st.integers(0, 17),
    hand=st.sampled_from([0, 1, 2]),
    card=st.sampled_from(["2C", "QS", "AH", "ZZ"]),
)
def test_a_forged_page_command_changes_no_table_unless_the_page_offered_it(
    lab: Lab, kind: str, table_key: int, other: int, hand: int, card: str
) -> None:
    lab.run(asyncio.wait_for(_page_command(lab, kind, table_key, other, hand, card), 60))
