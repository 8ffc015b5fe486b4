"""The table core (issue 31): phases declared once, commands in, effects out, one runner.

The property test drives random sequences of commands (moves by people, pages, computers
and stand-ins; illegal moves; timeouts; take-overs; cards chosen to pass; a move storage
refuses) through the core and the runner with a real SQLite storage, and after every
command checks that each phase the table went through is a declared transition and that
the table reloaded from storage is the one in memory. A command refused, or one storage
refuses, leaves the table exactly as it was, everything it holds written out (issue 52:
a command makes a new state, swapped in once stored; none writes an undo).
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
import typing
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.basics import UserError
from bot.core import effects, phases
from bot.core.commands import (
    AddComputer,
    AskHint,
    AskReview,
    Cancel,
    ChooseCard,
    Command,
    Deal,
    EmptySeat,
    GiveHint,
    MakeMove,
    Mover,
    OpenLobby,
    Rejoin,
    SetRules,
    Sit,
    Stand,
    Start,
    StopWaiting,
    TakeOver,
    TimeOut,
    Wait,
)
from bot.core.phases import TRANSITIONS, IllegalTransition, Phase
from bot.core.runner import EFFECTS, Handler, Runner, nothing
from bot.i18n import msg
from bot.tables.model import Seat, Table, TableOptions
from bot.tables.play import Moves
from bot.tables.registry import TableRegistry
from bot.timers import Background
from engine import Game, IllegalMove, Move, Rules
from engine.game import MOON_CHOICES
from storage import Storage, open_storage

# ---------------------------------------------------------------------- phases


def test_every_phase_declares_where_it_may_go_and_the_ended_ones_go_nowhere() -> None:
    assert set(TRANSITIONS) == set(Phase)
    assert TRANSITIONS[Phase.FINISHED] == TRANSITIONS[Phase.CANCELLED] == frozenset()
    for phase in Phase:
        if phase.live:
            assert Phase.CANCELLED in TRANSITIONS[phase], phase


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (Phase.LOBBY, Phase.FINISHED),
        (Phase.DEALT, Phase.LOBBY),
        (Phase.FINISHED, Phase.DEALT),
        (Phase.CANCELLED, Phase.LOBBY),
        (Phase.CANCELLED, Phase.DEALT),
        (Phase.FINISHED, Phase.CANCELLED),
    ],
)
def test_a_step_not_declared_is_refused_and_the_table_stays_where_it_was(
    before: Phase, after: Phase
) -> None:
    table = _table(4)
    table.phase = before
    with pytest.raises(IllegalTransition) as refused:
        phases.check(table.phase, after)
    assert table.phase is before
    assert str(refused.value) == f"A table cannot go from {before.value} to {after.value}."


def test_every_effect_has_its_place_in_the_declared_order_once() -> None:
    kinds = typing.get_args(effects.Effect)
    assert sorted(k.__name__ for k in effects.ORDER) == sorted(k.__name__ for k in kinds)
    assert len(set(effects.ORDER)) == len(effects.ORDER)
    assert effects.ORDER[: len(effects.DURABLE)] == effects.DURABLE
    assert effects.ORDER[-len(effects.REACTIONS) :] == effects.REACTIONS


def test_storage_keeps_its_statuses_a_dealt_game_is_active() -> None:
    assert {p: phases.stored_status(p) for p in Phase} == {
        Phase.LOBBY: "lobby",
        Phase.DEALT: "active",
        Phase.FINISHED: "finished",
        Phase.CANCELLED: "cancelled",
    }
    assert phases.of_stored("lobby") is Phase.LOBBY
    assert phases.of_stored("active") is Phase.DEALT
    assert phases.of_stored("finished") is Phase.FINISHED
    assert phases.of_stored("cancelled") is Phase.CANCELLED
    assert phases.of_stored("quarantined") is Phase.CANCELLED
    with pytest.raises(ValueError):
        phases.of_stored("paused")
    game = Game(Rules(), seed=1)
    assert phases.of_game(game) is Phase.DEALT


# ---------------------------------------------------------------------- the runner


def _table(players: int, humans: int = 2) -> Table:
    seats: list[Seat | None] = [
        Seat("human", f"P{n}", user_id=100 + n) if n < humans else Seat("computer", f"C{n}")
        for n in range(players)
    ]
    return Table(
        id=0,
        chat_id=-5,
        thread_id=None,
        chat_title="T",
        creator_id=100,
        creator_name="P0",
        rules=Rules(players=players, target=26),
        options=TableOptions(),
        seats=seats,
    )


def _runner(handlers: dict[type, Handler] | None = None) -> Runner:
    """A runner whose effects do nothing but those `handlers` carry out."""
    return Runner({kind: nothing for kind in EFFECTS} | (handlers or {}))


def _recording(seen: list[str], *kinds: type[effects.Effect]) -> dict[type, Handler]:
    """Handlers that note the name of each effect of `kinds` they carry out in `seen`."""
    handlers: dict[type, Handler] = {}
    for kind in kinds:

        async def note(table: Table, effect: Any, name: str = kind.__name__) -> None:
            seen.append(name)

        handlers[kind] = note
    return handlers


async def test_effects_run_in_the_declared_order_whatever_order_their_handlers_came_in() -> None:
    seen: list[str] = []
    runner = _runner(_recording(seen, *reversed(effects.ORDER)))
    table = _table(4)
    await runner.run(table, Deal(Game(table.rules, seed=3)))
    assert seen == ["StoreDeal", "ShowDeal", "ArmNext", "PushPages"]
    seen.clear()
    game = table.game
    assert game is not None
    # The last card of a hand: its result, then the next hand's deal, in one command.
    rng = random.Random(3)
    while not (game.phase == "play" and len(game.tricks) == 12 and len(game.trick) == 3):
        await runner.run(table, MakeMove(_legal(game, rng), Mover.COMPUTER))
    seen.clear()
    hand = game.hand_number
    outcome = await runner.run(table, MakeMove(_legal(game, rng), Mover.PERSON))
    assert outcome.path == [Phase.DEALT] and game.hand_number == hand + 1
    assert seen.index("StoreMove") == 0
    assert [effects.ORDER.index(getattr(effects, name)) for name in seen] == sorted(
        effects.ORDER.index(getattr(effects, name)) for name in seen
    )
    assert "AnnounceHand" in seen and seen[-3:] == ["ShowAll", "ArmNext", "PushPages"]


async def test_a_move_storage_refuses_is_undone_and_nothing_after_it_runs() -> None:
    seen: list[str] = []

    async def refuse(table: Table, effect: effects.StoreMove) -> None:
        raise OSError("disk full")

    others = _recording(seen, *(k for k in effects.ORDER if k is not effects.StoreMove))
    runner = _runner({effects.StoreMove: refuse, **others})
    table = _table(4)
    await runner.run(table, Deal(Game(table.rules, seed=4)))
    game = table.game
    assert game is not None
    seen.clear()
    before = game.to_json()
    seat = game.waiting_for()[0]
    table.ui.selections[seat] = [c.code for c in game.hand(seat)[:3]]
    chosen = list(table.ui.selections[seat])
    with pytest.raises(OSError):
        await runner.run(table, MakeMove(Move.pass_cards(seat, chosen), Mover.PERSON))
    assert table.game is not None and table.game.to_json() == before
    assert table.phase is Phase.DEALT and table.ui.selections[seat] == chosen
    assert seen == []


async def test_a_reaction_that_fails_is_logged_and_the_move_stands(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[str] = []

    async def broken(table: Table, effect: effects.ArmNext) -> None:
        raise RuntimeError("clock broke")

    recorded = _recording(seen, effects.StoreDeal, effects.PushPages)
    runner = _runner({effects.ArmNext: broken, **recorded})
    table = _table(4)
    await runner.run(table, Deal(Game(table.rules, seed=5)))
    assert seen == ["StoreDeal", "PushPages"] and table.phase is Phase.DEALT
    assert "ArmNext failed for game 0" in caplog.text


async def test_the_new_state_is_swapped_into_the_table_everyone_holds_once_stored() -> None:
    """Issue 52, item 1: the table and its game keep their identity (the registry, the
    screens and the clock hold them), the command's changes move in once stored, and what
    the screens wrote while it was stored (a message id landing) stays."""
    runner = _runner()
    table = _table(4)
    await runner.run(table, Deal(Game(table.rules, seed=8)))
    game, ui = table.game, table.ui
    assert game is not None
    seat = game.waiting_for()[0]
    table.ui.selections[seat] = [c.code for c in game.hand(seat)[:3]]
    before = game.to_json()

    async def store(new: Table, effect: effects.StoreMove) -> None:
        assert new is not table and new.game is not game and game.to_json() == before
        assert table.ui.selections[seat]  # nothing moved in before it is stored
        table.ui.table_message_id = 77  # the screens, meanwhile
        table.ui.dm_message_ids[seat] = 78

    runner = _runner({effects.StoreMove: store})
    chosen = table.ui.selections[seat]
    await runner.run(table, MakeMove(Move.pass_cards(seat, chosen), Mover.PERSON))
    assert table.game is game and game.has_passed(seat) and table.ui is ui
    assert seat not in table.ui.selections
    assert table.ui.table_message_id == 77 and table.ui.dm_message_ids[seat] == 78


LOBBY_STEPS = st.lists(
    st.tuples(
        st.sampled_from(["sit", "wait", "stop", "stand", "computer", "empty", "rules"]),
        st.integers(0, 5),
        st.booleans(),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(steps=LOBBY_STEPS)
def test_any_lobby_change_refused_or_not_stored_leaves_the_lobby_as_it_was(
    steps: list[tuple[str, int, bool]],
) -> None:
    """Issue 52, item 1: lobby commands build new seats; one refused, or one storage
    refuses (`refuse`), leaves the lobby exactly as it was, written out whole."""

    async def run() -> None:
        refusing = [False]

        async def store(table: Table, _: effects.StoreLobby) -> None:
            if refusing[0]:
                raise OSError("disk full")

        runner = _runner({effects.StoreLobby: store})
        table = _table(4, humans=1)
        table.seats[2] = table.seats[3] = None
        for kind, n, refuse in steps:
            user = 200 + n
            command: Command = {
                "sit": Sit(user, f"U{n}"),
                "wait": Wait(user, f"U{n}"),
                "stop": StopWaiting(user),
                "stand": Stand(user),
                "computer": AddComputer(),
                "empty": EmptySeat(n),
                "rules": SetRules(
                    Rules(players=3 + n % 3, target=26),
                    TableOptions(computer_level=("easy", "pro")[n % 2]),
                ),
            }[kind]
            whole = _serialised(table)
            refusing[0] = refuse
            try:
                await runner.run(table, command)
            except (UserError, OSError) as error:
                assert refuse or isinstance(error, UserError)
                assert _serialised(table) == whole, kind
            else:
                assert not refuse
                assert len(table.seats) == table.rules.players

    asyncio.run(run())


# ---------------------------------------------------------------------- property


@dataclass
class Lab:
    storage: Storage
    registry: TableRegistry
    runner: Runner
    table: Table
    refuse_next: bool = False
    refuse_lobby: bool = False
    """Storage refuses the next new lobby (`CreateLobby`)."""
    refuse_table: bool = False
    seen: list[str] = field(default_factory=list)


def _legal(game: Game, rng: random.Random) -> Move:
    if game.phase == "pass":
        seat = rng.choice(game.waiting_for())
        return Move.pass_cards(seat, rng.sample(game.hand(seat), 3))
    if game.phase == "play":
        assert game.current_player is not None
        return Move.play(game.current_player, rng.choice(game.legal_plays()))
    assert game.moon_shooter is not None
    return Move.moon(game.moon_shooter, rng.choice(MOON_CHOICES))


async def _open_lab(
    path: Path, players: int, seed: int, empty: int = 0, refuse_start: bool = False
) -> Lab:
    """A table dealt and stored; `empty`: how many of its computers' seats are empty in
    the lobby, filled by the host's Start (one person waiting to sit too); `refuse_start`:
    storage refuses the first Start, which leaves the lobby as it was."""
    storage = await open_storage(path)
    registry = TableRegistry(storage.games, Background())

    # Only the durable effects touch storage here: the screens are the adapters' business.
    async def store_deal(table: Table, effect: effects.StoreDeal) -> None:
        await moves.store_deal(table, effect)

    async def store_move(table: Table, effect: effects.StoreMove) -> None:
        await moves.store_move(table, effect)

    async def store_table(table: Table, _: effects.StoreTable) -> None:
        if lab.refuse_table:
            lab.refuse_table = False
            raise OSError("disk full")
        await registry.save(table)

    async def store_cancel(table: Table, _: effects.StoreCancel) -> None:
        await storage.games.cancel_game(table.id)

    async def create_lobby(table: Table, _: effects.CreateLobby) -> None:
        if lab.refuse_lobby:
            lab.refuse_lobby = False
            raise OSError("disk full")
        table.id = await storage.games.create_lobby(
            table.chat_id,
            None,
            table.creator_id,
            table.rules,
            table.stored_seats(),
            table.stored_meta(),
        )

    seen: list[str] = []
    others = [k for k in effects.ORDER if k not in effects.DURABLE]
    runner = _runner(
        {
            **_recording(seen, *others),
            effects.StoreDeal: store_deal,
            effects.StoreMove: store_move,
            effects.StoreTable: store_table,
            effects.StoreCancel: store_cancel,
            effects.CreateLobby: create_lobby,
        }
    )
    moves = Moves(registry, None, None, runner, storage.games)  # type: ignore[arg-type]
    table = _table(players)
    for n in range(players - empty, players):
        table.seats[n] = None
    if empty:
        table.pending[300] = "Waiting"
    for _, s in table.humans():
        assert s.user_id is not None
        await storage.people.upsert_user(s.user_id, s.name, None)
    table.id = await storage.games.create_lobby(
        table.chat_id, None, 100, table.rules, table.stored_seats(), table.stored_meta()
    )
    registry.add(table, 0)
    lab = Lab(storage, registry, runner, table, seen=seen)
    real = storage.games.record_move

    async def record_move(*args: Any, **kwargs: Any) -> int:
        if lab.refuse_next:
            lab.refuse_next = False
            raise OSError("disk full")
        return await real(*args, **kwargs)

    storage.games.record_move = record_move  # type: ignore[method-assign]
    if not empty and not refuse_start:
        await runner.run(table, Deal(Game(table.rules, seed=seed)))
        return lab
    if refuse_start:
        real_start = storage.games.start_game

        async def refuse(*args: Any, **kwargs: Any) -> None:
            storage.games.start_game = real_start  # type: ignore[method-assign]
            raise OSError("disk full")

        storage.games.start_game = refuse  # type: ignore[method-assign]
        seats, pending, whole = _seats(table), dict(table.pending), _serialised(table)
        with pytest.raises(OSError):
            await runner.run(table, Start(Game(table.rules, seed=seed)))
        assert _serialised(table) == whole
        assert table.phase is Phase.LOBBY and table.game is None
        assert _seats(table) == seats and table.pending == pending
        assert lab.seen == []
        stored = Table.from_stored(await storage.games.load_game(table.id))
        assert stored.phase is Phase.LOBBY and _seats(stored) == seats
    await runner.run(table, Start(Game(table.rules, seed=seed)))
    assert None not in table.seats and not table.pending
    assert [s.kind for s in table.seats[players - empty :] if s] == ["computer"] * empty
    return lab


def _serialised(table: Table) -> str:
    """Everything a table holds, written out: what a refused command must leave as it was."""
    seats = [None if s is None else asdict(s) for s in table.seats]
    game = None if table.game is None else table.game.to_json()
    whole = {
        "id": table.id,
        "phase": table.phase.value,
        "rules": repr(table.rules),
        "seats": seats,
        "meta": table.stored_meta(),
        "screens": table.ui.to_dict(),
        "game": game,
        "tournament": table.tournament_id,
    }
    return json.dumps(whole, sort_keys=True, default=str)


def _seats(table: Table) -> list[tuple[Any, ...]]:
    return [
        (s.kind, s.name, s.user_id, s.level, s.away, s.timeouts) if s else None for s in table.seats
    ]


async def _assert_stored_as_in_memory(lab: Lab) -> None:
    table = lab.table
    stored = await lab.storage.games.load_game(table.id)
    again = Table.from_stored(stored)
    assert again.phase is table.phase
    assert stored.status == table.status
    assert _seats(again) == _seats(table)
    assert again.game is not None and table.game is not None
    assert again.game.to_json() == table.game.to_json()
    if table.phase.live:
        assert lab.registry.version(table.id) == stored.last_seq


def _declared(before: Phase, path: list[Phase]) -> None:
    for after in path:
        assert after == before or after in TRANSITIONS[before], (before, after)
        before = after


async def _step(lab: Lab, kind: str, rng: random.Random) -> None:
    table = lab.table
    game = table.game
    assert game is not None
    before_phase = table.phase
    whole = _serialised(table)
    if not table.phase.dealt:  # the game ended: every command is refused
        with pytest.raises(UserError):
            await lab.runner.run(table, MakeMove(Move.play(0, "2C"), Mover.PERSON))
        assert _serialised(table) == whole
        return
    waiting = game.waiting_for()
    seat = rng.choice(waiting)
    s = table.seats[seat]
    assert s is not None
    command: Command
    if kind == "illegal":
        wrong = [n for n in range(len(table.seats)) if n not in waiting] or [seat]
        other = rng.choice(wrong)
        cards = game.hand(other)
        move = Move.play(other, cards[0]) if cards else Move.moon(other, "add_to_others")
        snapshot = game.to_json()
        mover = rng.choice(list(Mover))
        with pytest.raises((IllegalMove, UserError)):
            await lab.runner.run(table, MakeMove(move, mover))
        assert table.game is not None and table.game.to_json() == snapshot
        assert _serialised(table) == whole
        assert table.phase is before_phase
        return
    if kind == "choose":
        hand = game.hand(seat)
        card = rng.choice(hand) if hand else None
        if card is None:
            return
        try:
            await lab.runner.run(table, ChooseCard(seat, card))
        except UserError:
            assert _serialised(table) == whole
        assert table.phase is before_phase
        return
    if kind == "cancel":
        outcome = await lab.runner.run(table, Cancel())
        _declared(before_phase, outcome.path)
        assert table.phase is Phase.CANCELLED
        await _assert_stored_as_in_memory(lab)
        whole = _serialised(table)
        with pytest.raises(UserError):
            await lab.runner.run(table, Cancel())
        assert _serialised(table) == whole
        return
    if kind == "take_over":
        taken = rng.randrange(len(table.seats))
        lab.refuse_table = rng.random() < 0.4
        try:
            await lab.runner.run(table, TakeOver(taken))
        except OSError:
            assert _serialised(table) == whole and not lab.refuse_table
        lab.refuse_table = False
        assert table.phase is before_phase
        await _assert_stored_as_in_memory(lab)
        return
    move = _legal(game, rng)
    s_mover = table.seats[move.seat]
    assert s_mover is not None
    if kind == "time_out" and s_mover.kind == "human" and not s_mover.away:
        command = TimeOut(move, 3)
    elif s_mover.kind == "computer":
        command = MakeMove(move, Mover.COMPUTER)
    elif s_mover.away:
        command = MakeMove(move, Mover.STAND_IN)
    else:
        command = MakeMove(move, rng.choice([Mover.PERSON, Mover.PAGE]))
    if kind == "refused":
        lab.refuse_next = True
        snapshot, seats = game.to_json(), _seats(table)
        lab.seen.clear()
        with pytest.raises(OSError):
            await lab.runner.run(table, command)
        assert table.game is not None and table.game.to_json() == snapshot
        assert _serialised(table) == whole
        assert table.phase is before_phase and _seats(table) == seats and lab.seen == []
        await _assert_stored_as_in_memory(lab)
        return
    outcome = await lab.runner.run(table, command)
    _declared(before_phase, outcome.path)
    assert table.phase is outcome.path[-1]
    await _assert_stored_as_in_memory(lab)


async def _rematch(lab: Lab, rng: random.Random) -> None:
    """🔁 New game after the table's game: a new lobby with its rules, its host and the
    game's computers and free people seated, stored (once after storage refused it), and
    read back from storage as it is in memory."""
    old = lab.table
    if old.phase.live:  # 🔁 New game comes once the game ended: its people are free again
        await lab.storage.games.cancel_game(old.id)
    people = [s for s in old.seats if s is not None and s.kind == "human"]
    host = rng.choice([*people, Seat("human", "Stranger", 900)])
    assert host.user_id is not None
    await lab.storage.people.upsert_user(host.user_id, host.name, None)
    free = frozenset(s.user_id for s in people if s.user_id is not None and rng.random() < 0.6)
    command = OpenLobby(
        host.user_id, host.name, rng.random() < 0.8, rng.random() < 0.7, tuple(old.seats), free
    )
    new = Table(
        id=0,
        chat_id=old.chat_id,
        thread_id=None,
        chat_title=old.chat_title,
        creator_id=host.user_id,
        creator_name=host.name,
        rules=old.rules,
        options=old.options,
        seats=[None] * old.rules.players,
    )
    if rng.random() < 0.3:
        lab.refuse_lobby = True
        with pytest.raises(OSError):
            await lab.runner.run(new, command)
        assert new.seats == [None] * old.rules.players and not new.pending and new.id == 0
    await lab.runner.run(new, command)
    # The host first, then the game's seats in order while a seat is empty.
    wanted: list[tuple[str, int | None]] = []
    if command.host_free and command.host_dm_open:
        wanted.append(("human", host.user_id))
    for s in old.seats:
        if s is not None and len(wanted) < len(new.seats):
            if s.kind == "computer":
                wanted.append(("computer", None))
            elif s.user_id in free and s.user_id != host.user_id:
                wanted.append(("human", s.user_id))
    assert [(s.kind, s.user_id) for s in new.seats if s is not None] == wanted
    waiting = command.host_free and not command.host_dm_open
    assert new.pending == ({host.user_id: host.name} if waiting else {})
    stored = await lab.storage.games.load_game(new.id)
    again = Table.from_stored(stored)
    assert stored.status == "lobby" and again.phase is Phase.LOBBY
    assert _seats(again) == _seats(new) and again.pending == new.pending
    assert again.rules == old.rules and again.options == old.options


def _changes_phase(game: Game, move: Move) -> bool:
    after = game.copy()
    move.apply(after)
    return after.phase != game.phase or after.hand_number != game.hand_number


async def _directed(lab: Lab, kind: str, rng: random.Random) -> None:
    """Steps aimed where a refused move matters most: the move that would change the
    phase (``refuse_at_edge``), and a person's move after they timed out, whose count of
    timeouts a press resets (``refuse_after_timeout``)."""
    table = lab.table
    for _ in range(60):
        game = table.game
        if game is None or not table.phase.dealt:
            return
        move = _legal(game, rng)
        s = table.seats[move.seat]
        assert s is not None
        person = s.kind == "human" and not s.away
        if kind == "refuse_at_edge" and _changes_phase(game, move):
            if not person:
                return await _step(lab, "refused", rng)
            break
        if kind == "refuse_after_timeout" and person and game.phase == "play":
            if s.timeouts:
                lab.refuse_next = True
                seats, snapshot, whole = _seats(table), game.to_json(), _serialised(table)
                with pytest.raises(OSError):
                    await lab.runner.run(table, MakeMove(move, Mover.PERSON))
                assert _serialised(table) == whole
                assert _seats(table) == seats and table.game.to_json() == snapshot
                await _assert_stored_as_in_memory(lab)
                return
            outcome = await lab.runner.run(table, TimeOut(move, 3))
            _declared(Phase.DEALT, outcome.path)
            continue
        mover = Mover.COMPUTER if s.kind == "computer" else Mover.STAND_IN
        await lab.runner.run(table, MakeMove(move, Mover.PERSON if person else mover))
    else:
        return
    await _step(lab, "refused", rng)


async def _run(
    players: int, seed: int, kinds: list[str], empty: int = 0, refuse_start: bool = False
) -> set[Phase]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "hearts.db"
        lab = await _open_lab(path, players, seed, empty, refuse_start)
        visited = {lab.table.phase}
        try:
            await _assert_stored_as_in_memory(lab)
            for kind in kinds:
                if kind.startswith("refuse_"):
                    await _directed(lab, kind, rng)
                repeat = 13 if kind == "burst" else 0 if kind.startswith("refuse_") else 1
                for _ in range(repeat):
                    await _step(lab, "move" if kind == "burst" else kind, rng)
                    visited.add(lab.table.phase)
                visited.add(lab.table.phase)
            await _rematch(lab, rng)
        finally:
            await lab.storage.close()
    return visited


KINDS = st.sampled_from(
    [
        "move",
        "move",
        "burst",
        "burst",
        "illegal",
        "choose",
        "time_out",
        "take_over",
        "refused",
        "refuse_at_edge",
        "refuse_after_timeout",
    ]
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    players=st.sampled_from([3, 4, 5]),
    seed=st.integers(0, 10_000),
    kinds=st.lists(KINDS, max_size=40),
    cancel=st.booleans(),
    empty=st.integers(0, 2),
    refuse_start=st.booleans(),
)
def test_any_sequence_of_commands_takes_declared_steps_and_storage_agrees(
    players: int, seed: int, kinds: list[str], cancel: bool, empty: int, refuse_start: bool
) -> None:
    """`cancel`: the sequence ends with the host's cancel (and a command after it);
    `empty`, `refuse_start`: the game begins with the host's Start filling the lobby's
    empty seats, after a Start storage refused (`_open_lab`)."""
    ending = ["cancel", "move"] if cancel else []
    run = _run(players, seed, [*kinds, *ending], empty, refuse_start)
    asyncio.run(asyncio.wait_for(run, 120))


def test_a_whole_game_goes_through_every_phase_of_a_hand_to_the_end() -> None:
    async def play() -> set[Phase]:
        return await _run(4, 11, ["burst"] * 40)

    visited = asyncio.run(play())
    assert {Phase.DEALT, Phase.FINISHED} <= visited


# ---------------------------------------------------------------------- the lobby


async def test_a_lobby_change_is_stored_then_shown_and_one_storage_refuses_is_undone() -> None:
    seen: list[str] = []
    refuse = [False]

    async def store(table: Table, _: effects.StoreLobby) -> None:
        seen.append("StoreLobby")
        if refuse[0]:
            raise OSError("disk full")

    runner = _runner({effects.StoreLobby: store, **_recording(seen, effects.ShowLobby)})
    table = _table(4, humans=1)
    table.seats[2] = table.seats[3] = None
    await runner.run(table, Sit(7, "Ann"))
    await runner.run(table, Wait(8, "Bob"))
    assert seen == ["StoreLobby", "ShowLobby"] * 2
    assert _seats(table)[2][:3] == ("human", "Ann", 7) and table.pending == {8: "Bob"}
    refuse[0] = True
    before, pending = _seats(table), dict(table.pending)
    for command in (
        AddComputer(),
        Stand(7),
        Sit(8, "Bob"),
        SetRules(Rules(players=3), table.options),
    ):
        with pytest.raises(OSError):
            await runner.run(table, command)
        assert _seats(table) == before and table.pending == pending
        assert table.rules.players == 4
    refuse[0] = False
    seen.clear()
    await runner.run(table, AddComputer())
    with pytest.raises(UserError):
        await runner.run(table, AddComputer())  # full now
    with pytest.raises(UserError):
        await runner.run(table, Stand(99))
    with pytest.raises(UserError):
        await runner.run(table, EmptySeat(9))
    assert seen == ["StoreLobby", "ShowLobby"]
    await runner.run(table, Deal(Game(table.rules, seed=1)))
    with pytest.raises(UserError):
        await runner.run(table, Sit(9, "Cy"))  # a game is in progress


async def test_a_take_over_and_a_rejoin_store_the_seat_first_and_are_undone_if_refused() -> None:
    seen: list[str] = []
    refuse = [False]

    async def store(table: Table, _: effects.StoreTable) -> None:
        seen.append("StoreTable")
        if refuse[0]:
            raise OSError("disk full")

    others = _recording(seen, *(k for k in effects.ORDER if k is not effects.StoreTable))
    runner = _runner({effects.StoreTable: store, **others})
    table = _table(4)
    await runner.run(table, Deal(Game(table.rules, seed=2)))
    seen.clear()
    back = msg("👋 {name} is back.", name="P1")
    with pytest.raises(UserError):
        await runner.run(table, Rejoin(1, back))  # not away
    refuse[0] = True
    with pytest.raises(OSError):
        await runner.run(table, TakeOver(1))
    assert table.seats[1] is not None and not table.seats[1].away
    refuse[0] = False
    await runner.run(table, TakeOver(1))
    assert table.seats[1].away
    assert seen == ["StoreTable", "StoreTable", "ShowAll", "ArmNext"]
    seen.clear()
    assert table.seats[1] is not None
    table.seats[1] = replace(table.seats[1], timeouts=3)
    table.ui.idle_message_ids[1] = 55
    refuse[0] = True
    with pytest.raises(OSError):
        await runner.run(table, Rejoin(1, back))
    assert table.seats[1].away and table.seats[1].timeouts == 3
    assert table.ui.idle_message_ids == {1: 55}
    refuse[0] = False
    seen.clear()
    await runner.run(table, Rejoin(1, back))
    assert not table.seats[1].away and table.seats[1].timeouts == 0
    assert table.ui.idle_message_ids == {}
    assert seen == ["StoreTable", "TellGroup", "ResendScreen", "ArmNext"]


async def test_a_deal_stores_the_game_and_the_tables_own_state_in_one_transaction(
    tmp_path: Path,
) -> None:
    """The deal's one durable step holds the table's own state too (who waits to sit, gone
    once the host starts): with a separate save refused after the game was stored, memory
    went back to the lobby while storage held a started game (and Start then failed with
    an error no toast could carry). What its screens keep is theirs to store, not the
    deal's: a lobby's message id stays out of the game's meta."""
    storage = await open_storage(tmp_path / "deal.sqlite3")
    try:
        registry = TableRegistry(storage.games, Background())

        async def store_deal(table: Table, effect: effects.StoreDeal) -> None:
            await moves.store_deal(table, effect)

        runner = _runner({effects.StoreDeal: store_deal})
        moves = Moves(registry, None, None, runner, storage.games)  # type: ignore[arg-type]
        table = _table(4)
        table.pending[300] = "Waiting"
        for _, s in table.humans():
            assert s.user_id is not None
            await storage.people.upsert_user(s.user_id, s.name, None)
        table.id = await storage.games.create_lobby(
            table.chat_id, None, 100, table.rules, table.stored_seats(), table.stored_meta()
        )
        registry.add(table, 0)
        table.ui.table_message_id = 4321  # the screens' state: not the deal's to store

        async def refuse(game_id: int, meta: dict[str, Any]) -> None:
            raise OSError("disk full")

        storage.games.set_meta = refuse  # type: ignore[method-assign]
        await runner.run(table, Start(Game(table.rules, seed=1)))
        stored = await storage.games.load_game(table.id, verify=False)
        assert table.phase is Phase.DEALT and table.game is not None
        assert stored.status == "active" and stored.game is not None
        assert stored.meta["pending"] == {} and "ui" not in stored.meta
        assert "4321" not in json.dumps(stored.meta)
    finally:
        await storage.close()


async def test_start_fills_the_empty_seats_with_computers_and_needs_a_person() -> None:
    seen: list[str] = []
    runner = _runner(_recording(seen, *effects.ORDER))
    table = _table(4, humans=0)
    table.seats = [None, None, Seat("computer", "C2"), None]
    with pytest.raises(UserError):
        await runner.run(table, Start(Game(table.rules, seed=1)))
    assert table.seats == [None, None, Seat("computer", "C2"), None] and seen == []
    table.seats[1] = Seat("human", "Ann", user_id=7)
    table.pending[8] = "Bob"
    await runner.run(table, Start(Game(table.rules, seed=1)))
    assert [s.kind if s else None for s in table.seats] == [
        "computer",
        "human",
        "computer",
        "computer",
    ]
    assert table.pending == {} and table.phase is Phase.DEALT
    assert seen == ["StoreDeal", "ShowDeal", "ArmNext", "PushPages"]
    with pytest.raises(UserError):
        await runner.run(table, Start(Game(table.rules, seed=2)))  # a game is in progress


async def test_a_cancel_is_stored_then_clears_reminders_shows_the_end_and_forgets() -> None:
    seen: list[str] = []
    refuse = True

    async def store(table: Table, _: effects.StoreCancel) -> None:
        if refuse:
            raise OSError("disk full")
        seen.append("StoreCancel")

    others = _recording(seen, *(k for k in effects.ORDER if k is not effects.StoreCancel))
    runner = _runner({effects.StoreCancel: store, **others})
    table = _table(4)
    await runner.run(table, Deal(Game(table.rules, seed=6)))
    seen.clear()
    said = msg("✖ The game was cancelled by {name}.", name="P0")
    with pytest.raises(OSError):
        await runner.run(table, Cancel(standings=True, told=said))
    assert seen == [] and table.phase is Phase.DEALT  # nobody is told of an end not stored
    refuse = False
    outcome = await runner.run(table, Cancel(standings=True, told=said))
    assert seen == ["StoreCancel", "ClearNudges", "ClearNudges", "ShowEnd", "Forget"]
    assert effects.ShowEnd(None, True, said, False) in outcome.effects
    assert table.phase is Phase.CANCELLED


async def test_a_hint_asks_the_coach_once_per_decision_and_its_answer_is_counted_once() -> None:
    seen: list[str] = []
    runner = _runner(_recording(seen, *effects.ORDER))
    table = _table(4)
    table.options = TableOptions(hints=True)
    await runner.run(table, Deal(Game(table.rules, seed=7)))
    seen.clear()
    asked = await runner.run(table, AskHint(0))
    assert asked.effects == [effects.AskCoach(0, "p1")] and seen == ["AskCoach"]
    stored_form = {"kind": "pass", "best": {"cards": ["QS"]}}
    seen.clear()
    await runner.run(table, GiveHint(0, "p1", stored_form))
    assert seen == ["SaveNow", "ShowSeat"]
    assert table.ui.hints[0] == {"key": "p1", **stored_form}
    assert table.hints_used == {1: {0: 1}}
    # The hint on the screen: nothing more to ask, and a second answer is not counted.
    assert (await runner.run(table, AskHint(0))).effects == []
    assert (await runner.run(table, GiveHint(0, "p1", stored_form))).effects == []
    assert table.hints_used == {1: {0: 1}}
    with pytest.raises(UserError):
        await runner.run(table, GiveHint(1, "t1.0.0", stored_form))  # not that decision
    table.options = TableOptions(hints=False)
    with pytest.raises(UserError):
        await runner.run(table, AskHint(1))  # hints are off
    table.options, table.tournament_id = TableOptions(hints=True), 3
    with pytest.raises(UserError):
        await runner.run(table, AskHint(1))  # no hints in a tournament
    with pytest.raises(UserError):
        await runner.run(table, AskReview(0, 1))  # its game still runs
    table.tournament_id = None
    with pytest.raises(UserError):
        await runner.run(table, AskReview(0, 1))  # the hand isn't over yet
    with pytest.raises(UserError):
        await runner.run(table, AskReview(0, 2))  # no such hand
