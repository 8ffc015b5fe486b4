"""Chats, users and the life of a game: lobby, start, moves, finish, cancel, lookups."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest
from sqlalchemy import select, text
from storage_testkit import VARIANTS, play_stored, random_move, seats_for

from domain.games import StoredSeat
from domain.people import ChatSettings, LanguageChoices
from engine import Game, Move, Rules
from storage import GameNotFound, Storage, WrongGameStatus
from storage import journal as journal_module
from storage.database import rows_changed


async def test_chat_settings_default_then_saved(store: Storage) -> None:
    default = await store.people.get_chat_settings(42)
    assert default == ChatSettings(42)
    assert default.rules == Rules().to_dict()
    assert (default.turn_timer_s, default.computer_level) == (
        None,  # not chosen: the bot's DEFAULT_TURN_TIMER applies
        "standard",
    )
    assert default.track_cards is True
    chosen = ChatSettings(42, Rules(players=5).to_dict(), 30, "strong", False, hints=False)
    await store.people.save_chat_settings(chosen)
    assert await store.people.get_chat_settings(42) == chosen


async def test_language_choices_are_stored_apart_from_a_chats_settings(
    store: Storage,
) -> None:
    assert await store.people.language_choices() == LanguageChoices()
    await store.people.save_person_language(7, chosen="", app="ru")
    await store.people.save_person_language(8, chosen="fa", app="en")
    await store.people.save_chat_language(-42, chosen="es", first="ru")
    await store.people.save_chat_language(-43, chosen="", first="hi")
    # A chat's language never touches its rules or timer, nor they it.
    await store.people.save_chat_settings(ChatSettings(-42, turn_timer_s=30))
    choices = await store.people.language_choices()
    assert choices.chosen_by_person == {8: "fa"}
    assert choices.person_app == {7: "ru", 8: "en"}
    assert choices.chosen_by_chat == {-42: "es"}
    assert choices.chat_first == {-42: "ru", -43: "hi"}
    assert (await store.people.get_chat_settings(-43)).turn_timer_s is None
    await store.people.save_chat_language(-42, chosen="", first="ru")
    assert (await store.people.language_choices()).chosen_by_chat == {}


async def test_users_and_private_chats(store: Storage) -> None:
    assert await store.people.dm_open(5) is False
    await store.people.upsert_user(5, "Ada", "ada")
    await store.people.set_dm_open(5, True)
    await store.people.upsert_user(5, "Ada L.", None)  # a new name keeps the flag
    user = await store.people.get_user(5)
    assert user is not None and (user.display_name, user.username, user.dm_open) == (
        "Ada L.",
        None,
        True,
    )
    await store.people.set_dm_open(6, True)  # never seen before
    assert await store.people.dm_open(6) is True
    await store.people.set_dm_open(5, False)
    assert await store.people.dm_open(5) is False
    user = await store.people.get_user(5)  # the flag changes, never the name
    assert user is not None and (user.display_name, user.dm_open) == ("Ada L.", False)
    from storage.schema import users

    when = select(users.c.updated_at).where(users.c.user_id == 5)
    before = (await store.database.read(when))[0][0]
    await asyncio.sleep(0.01)
    await store.people.set_dm_open(5, True)
    assert (await store.database.read(when))[0][0] > before  # and when it changed
    seen = await store.people.get_user(6)  # named by its id until upsert_user names them
    assert seen is not None and (seen.display_name, seen.username) == ("6", None)


async def test_a_persons_seat_is_looked_up_without_loading_the_game(
    store: Storage,
) -> None:
    seats = seats_for(4, [11, 12])
    game_id = await store.games.create_lobby(-1, None, 11, Rules(), seats[:2], {})
    assert await store.games.seat_of(game_id, 12) == 1
    await store.games.start_game(game_id, seats, Game(Rules(), seed=1))
    assert await store.games.seat_of(game_id, 11) == 0
    assert await store.games.seat_of(game_id, 13) is None  # a stranger (computers have no id)
    assert await store.games.seat_of(game_id + 1000, 11) is None  # no such game


async def test_lobby_start_play_finish(store: Storage) -> None:
    rules = Rules(players=4, target=40)
    seats = seats_for(4, [11, 12])
    game_id = await store.games.create_lobby(-1, 77, 11, rules, seats[:2], {"message_id": 9})
    lobby = await store.games.load_game(game_id)
    assert (lobby.status, lobby.thread_id, lobby.game, lobby.meta) == (
        "lobby",
        77,
        None,
        {"message_id": 9},
    )
    assert [s.user_id for s in lobby.seats] == [11, 12]
    await store.games.update_lobby(game_id, seats=seats, meta={"message_id": 10})
    assert (await store.games.load_game(game_id)).seats == tuple(seats)
    assert (await store.games.game_in_chat(-1, 77)) is not None
    assert (await store.games.game_in_chat(-1, None)) is None
    found = await store.games.active_game_for_user(12)
    assert found is not None and found.id == game_id and found.seat_of(12) == 1

    game = Game(rules, seed=1)
    await store.games.start_game(game_id, seats, game)
    with pytest.raises(WrongGameStatus):
        await store.games.update_lobby(game_id, meta={})
    import random

    rng = random.Random(1)
    seq = 0
    while game.phase != "over":
        move = random_move(game, rng)
        move.apply(game)
        seq = await store.games.record_move(game_id, move, game, meta={"seq": seq + 1})
    stored = await store.games.load_game(game_id)
    assert stored.status == "finished" and stored.finished_at is not None
    assert stored.last_seq == seq and stored.meta == {"seq": seq}
    assert stored.game is not None and stored.game.to_json() == game.to_json()
    assert await store.games.active_game_for_user(12) is None
    assert await store.games.game_in_chat(-1, 77) is None
    with pytest.raises(WrongGameStatus, match="finished"):
        await store.games.record_move(game_id, Move.play(0, "2C"), game)
    table = await store.standings.game_table(game_id)
    assert table.totals == tuple(game.scores) and table.winners == game.winners
    assert [h.points for h in table.hands] == [h.points for h in game.hand_history]
    assert [h.shooter for h in table.hands] == [h.shooter for h in game.hand_history]


async def test_start_refuses_a_game_that_cannot_be_replayed(store: Storage) -> None:
    rules = Rules(players=3)
    seats = seats_for(3)
    game_id = await store.games.create_lobby(-1, None, 1, rules, seats)
    game = Game(rules, seed=2)
    Move.pass_cards(0, game.hand(0)[:3]).apply(game)
    with pytest.raises(ValueError, match="before any move"):
        await store.games.start_game(game_id, seats, game)
    assert (await store.games.load_game(game_id)).status == "lobby"


@pytest.mark.parametrize("explicit_dealer", [None, 2])
async def test_first_dealer_drawn_or_given_replays(
    store: Storage, explicit_dealer: int | None
) -> None:
    # Game(rules, seed) draws its dealer from the seed; Game(..., first_dealer=d) does
    # not, and deals differently. Both must replay.
    game_id, game = await play_stored(
        store, VARIANTS["four"], seed=9, max_moves=30, first_dealer=explicit_dealer
    )
    assert (await store.games.replay(game_id)).to_json() == game.to_json()


async def test_unknown_games_and_bad_seats(store: Storage) -> None:
    with pytest.raises(GameNotFound):
        await store.games.load_game(999)
    with pytest.raises(GameNotFound):
        await store.games.set_meta(999, {})
    with pytest.raises(ValueError, match="numbered"):
        await store.games.create_lobby(-1, None, 1, Rules(), [StoredSeat.computer(4, "A")])
    with pytest.raises(ValueError, match="numbered"):
        await store.games.create_lobby(
            -1, None, 1, Rules(), [StoredSeat.computer(1, "A"), StoredSeat.computer(1, "B")]
        )
    with pytest.raises(ValueError):
        StoredSeat(0, "human", "nobody")


async def test_a_lobby_keeps_its_empty_seats_where_they_are(store: Storage) -> None:
    """Issue 30.1: a lobby's seats are a list with holes until the deal (a seat emptied
    before a later one, a rematch's seats filled in advance); a game's have none."""
    rules = Rules(players=5)
    seats = seats_for(5, [11, 12, 13])
    game_id = await store.games.create_lobby(-1, None, 11, rules, [seats[0], seats[2], seats[4]])
    assert [s.seat for s in (await store.games.load_game(game_id)).seats] == [0, 2, 4]
    await store.games.update_lobby(game_id, seats=[seats[1], seats[3]])  # its rules as stored
    assert (await store.games.load_game(game_id)).seats == (seats[1], seats[3])
    with pytest.raises(ValueError, match="numbered"):
        await store.games.update_lobby(game_id, seats=[seats[1], StoredSeat.computer(5, "Out")])
    with pytest.raises(ValueError, match="numbered"):
        await store.games.update_lobby(game_id, Rules(players=3), seats=[seats[3]])
    assert (await store.games.load_game(game_id)).seats == (seats[1], seats[3])  # nothing changed
    with pytest.raises(ValueError, match="numbered"):
        await store.games.start_game(
            game_id, [*seats[:4], StoredSeat.computer(6, "Far")], Game(rules)
        )
    await store.games.start_game(game_id, seats, Game(rules, seed=1))
    assert (await store.games.load_game(game_id)).seats == tuple(seats)


async def test_cancel_keeps_the_journal(store: Storage) -> None:
    game_id, _ = await play_stored(store, VARIANTS["three"], seed=4, max_moves=5, user_ids=[3])
    await store.games.cancel_game(game_id)
    assert (await store.games.load_game(game_id)).status == "cancelled"
    assert [e.seq for e in await store.games.journal(game_id)] == [1, 2, 3, 4, 5]
    assert await store.games.active_game_for_user(3) is None
    with pytest.raises(WrongGameStatus):
        await store.games.cancel_game(game_id)


async def test_the_journal_is_append_only(store: Storage) -> None:
    """Enforced by the database itself (a trigger in each), whatever the code asks."""
    game_id, _ = await play_stored(store, VARIANTS["four"], seed=4, max_moves=2)
    statements = ["UPDATE moves SET move = '{}'", "DELETE FROM moves"]
    if store.dialect != "postgresql":
        statements.append("DELETE FROM moves WHERE seq = 2")
    else:
        statements.append("TRUNCATE moves CASCADE")
    for sql in statements:
        with pytest.raises(Exception, match="append-only"):
            await store.database.transact(rows_changed, text(sql))
    assert len(await store.games.journal(game_id)) == 2


async def test_a_failed_write_rolls_back_everything(
    store: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    import random

    rules = VARIANTS["three"]
    game_id = await store.games.create_lobby(-1, None, 1, rules, seats_for(3))
    game = Game(rules, seed=6)
    await store.games.start_game(game_id, seats_for(3), game)
    rng = random.Random(6)
    while True:
        move = random_move(game, rng)
        before = game.to_json()
        move.apply(game)
        if game.phase == "over":
            break
        await store.games.record_move(game_id, move, game)
    stored = await store.games.load_game(game_id)

    def broken(*args: object) -> None:
        raise RuntimeError("disk on fire")

    # The last move fails after its journal row, its hand and its snapshot were written.
    monkeypatch.setattr(journal_module, "_write_results", broken)
    with pytest.raises(RuntimeError, match="disk on fire"):
        await store.games.record_move(game_id, move, game)
    after = await store.games.load_game(game_id)
    assert (after.status, after.last_seq) == ("active", stored.last_seq)
    assert after.game is not None and after.game.to_json() == before
    assert len((await store.standings.game_table(game_id)).hands) == len(game.hand_history) - 1
    monkeypatch.undo()  # and the lock was released: the retry goes through
    assert await store.games.record_move(game_id, move, game) == stored.last_seq + 1
    assert (await store.games.load_game(game_id)).status == "finished"


async def test_game_and_moves_gives_the_dealt_game_and_each_move_with_its_stand_in_mark(
    store: Storage,
) -> None:
    game_id, played = await play_stored(
        store, Rules(players=4), seed=5, user_ids=[7, 8, 9, 10], max_moves=40, own_moves={1: 6}
    )
    start, moves = await store.games.game_and_moves(game_id)
    assert start.hand_number == 1 and start.phase == "pass"
    assert len(moves) == 40
    # Seat 1 made six moves itself; a computer made the rest for it.
    assert [stand_in for m, stand_in in moves if m.seat == 1][:7] == [False] * 6 + [True]
    assert not any(stand_in for m, stand_in in moves if m.seat != 1)
    for move, _ in moves:
        move.apply(start)
    assert start.to_json() == played.to_json()


async def test_an_updates_id_is_stored_with_the_move_it_made(store: Storage) -> None:
    """`domain.handling`: the move and the fact its update was handled commit together."""
    from domain.handling import Handling

    rules = VARIANTS["four"]
    game_id = await store.games.create_lobby(-1, None, 1, rules, seats_for(4))
    game = Game(rules, seed=9)
    await store.games.start_game(game_id, seats_for(4), game)
    move = random_move(game, random.Random(9))
    move.apply(game)
    handled = Handling(7001)
    await store.games.record_move(game_id, move, game, handled=handled)
    assert handled.stored
    assert await store.ledger.was_handled(7001)
    assert not await store.ledger.was_handled(7002)  # an update that made no move: not recorded


async def test_now_and_then_a_move_drops_the_updates_that_can_no_longer_come_back(
    store: Storage,
) -> None:
    """A move made by an update whose id is a multiple of 1,000 drops, in its own
    transaction, the handled updates more than `handling.KEEP` ids older (Telegram never
    sends them again); the newer ones stay, and the moves are stored in order."""
    from domain.handling import KEEP, Handling

    rules = VARIANTS["four"]
    game_id = await store.games.create_lobby(-1, None, 1, rules, seats_for(4))
    game = Game(rules, seed=10)
    await store.games.start_game(game_id, seats_for(4), game)
    rng = random.Random(10)
    pruning = 3 * KEEP
    made_by = [KEEP + 1, pruning - KEEP - 1, pruning - KEEP, pruning]
    for seq, update_id in enumerate(made_by, start=1):
        move = random_move(game, rng)
        move.apply(game)
        handled = Handling(update_id)
        assert await store.games.record_move(game_id, move, game, handled=handled) == seq
    assert [await store.ledger.was_handled(u) for u in made_by] == [False, False, True, True]
    stored = await store.games.load_game(game_id)
    assert stored.last_seq == 4 and stored.game is not None
    assert stored.game.to_json() == game.to_json()


async def test_a_flood_of_updates_asks_the_ledger_together_and_hears_in_order(
    store: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every update asks the ledger before its handler: 300 asking at once (a flood of
    commands) go in one query or two, not one each behind the others, and each hears its
    own answer in the order they asked (commands sent in a row are answered in order)."""
    from domain.handling import Handling

    rules = VARIANTS["four"]
    game_id = await store.games.create_lobby(-1, None, 1, rules, seats_for(4))
    game = Game(rules, seed=9)
    await store.games.start_game(game_id, seats_for(4), game)
    rng = random.Random(9)
    for update_id in (9005, 9150, 9299):
        move = random_move(game, rng)
        move.apply(game)
        await store.games.record_move(game_id, move, game, handled=Handling(update_id))
    reads = 0
    read = store.database.read

    async def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal reads
        reads += 1
        return await read(*args, **kwargs)

    monkeypatch.setattr(store.database, "read", counted)
    heard: list[tuple[int, bool]] = []

    async def ask(update_id: int) -> None:
        heard.append((update_id, await store.ledger.was_handled(update_id)))

    await asyncio.gather(*(ask(u) for u in range(9000, 9300)))
    assert heard == [(u, u in (9005, 9150, 9299)) for u in range(9000, 9300)]
    assert reads <= 2, reads
    assert await store.ledger.was_handled(9150) and not await store.ledger.was_handled(9151)


async def test_a_press_is_stored_with_its_answer_until_it_is_answered(store: Storage) -> None:
    """Issue 29.9: a press whose move is stored keeps its callback query's id and toast,
    so a process that takes over answers it if its predecessor could not; once answered
    (or too old) it is not listed again."""
    from domain.handling import Handling, Unanswered

    rules = VARIANTS["four"]
    game_id = await store.games.create_lobby(-1, None, 1, rules, seats_for(4))
    game = Game(rules, seed=9)
    await store.games.start_game(game_id, seats_for(4), game)
    rng = random.Random(9)
    before_ms = int(time.time() * 1000)
    for update_id, callback_id in ((8001, "cq-1"), (8002, None), (8003, "cq-3")):
        move = random_move(game, rng)
        move.apply(game)
        handled = Handling(update_id, callback_id, render=lambda said: f"«{said}»")
        handled.promise("Played Q♠")
        await store.games.record_move(game_id, move, game, handled=handled)
    pending = await store.ledger.unanswered(before_ms)
    assert [(p.update_id, p.callback_id, p.answer) for p in pending] == [
        (8001, "cq-1", "«Played Q♠»"),
        (8003, "cq-3", "«Played Q♠»"),
    ]
    assert all(isinstance(p, Unanswered) and p.handled_at_ms >= before_ms for p in pending)
    await store.ledger.mark_answered(8001)
    assert [p.update_id for p in await store.ledger.unanswered(before_ms)] == [8003]
    later = int(time.time() * 1000) + 60_000
    assert await store.ledger.unanswered(later) == []  # too old for Telegram: left alone


async def test_a_move_on_sqlite_is_one_trip_to_the_database_thread(sqlite_store: Storage) -> None:
    """Every trip to aiosqlite's thread is a wake-up of that thread and of the event loop
    and a handover of the GIL: a move (and the rating of a finished game, twelve
    statements) goes there once, BEGIN IMMEDIATE to COMMIT, and is stored whole."""
    raw = await sqlite_store.database._writer.get_raw_connection()  # type: ignore[union-attr]
    thread = raw.dbapi_connection._connection  # type: ignore[union-attr]
    rules = VARIANTS["four"]
    game_id = await sqlite_store.games.create_lobby(-1, None, 1, rules, seats_for(4, [1, 2]))
    game = Game(rules, seed=3)
    await sqlite_store.games.start_game(game_id, seats_for(4, [1, 2]), game)
    trips = 0
    queue = thread._execute

    async def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal trips
        trips += 1
        return await queue(*args, **kwargs)

    thread._execute = counted
    rng = random.Random(3)
    moves = 0
    while game.phase != "over":
        move = random_move(game, rng)
        move.apply(game)
        before = trips
        moves += 1
        assert await sqlite_store.games.record_move(game_id, move, game) == moves
        assert trips == before + 1
    thread._execute = queue
    stored = await sqlite_store.games.load_game(game_id)
    assert (stored.status, stored.last_seq) == ("finished", moves)
    assert [c.player for c in await sqlite_store.standings.rating_changes(game_id)] == [1, 2]


async def test_a_move_on_sqlite_runs_its_compiled_statements_on_sqlite3_and_stores_the_same(
    sqlite_store: Storage,
) -> None:
    """A move that does not end its game runs the journal's Core statements, compiled
    once, on the writer's own sqlite3 connection (SQLAlchemy's work around each statement,
    and around BEGIN and COMMIT, was twice SQLite's own): none goes through SQLAlchemy, and
    the game, its hands, its meta and the handled update are stored as before; the last
    move (results, ratings) still goes through SQLAlchemy."""
    from sqlalchemy import Engine, event

    from domain.handling import Handling

    sent: list[str] = []

    def count(*args: object) -> None:
        sent.append(str(args[2]))

    game_id = await sqlite_store.games.create_lobby(-1, None, 1, Rules(), seats_for(4, [1, 2]))
    game = Game(Rules(players=4, target=1), seed=5)
    await sqlite_store.games.start_game(game_id, seats_for(4, [1, 2]), game)
    rng = random.Random(5)
    event.listen(Engine, "before_cursor_execute", count)
    try:
        moves = 0
        while game.phase != "over":
            move = random_move(game, rng)
            move.apply(game)
            moves += 1
            meta = {"moves": moves}
            handled = Handling(6000 + moves)
            stored = await sqlite_store.games.record_move(
                game_id, move, game, meta, handled=handled
            )
            assert stored == moves
            if moves == 3:
                assert sent == []  # three moves, and not one statement through SQLAlchemy
    finally:
        event.remove(Engine, "before_cursor_execute", count)
    appended = [s for s in sent if s.startswith("INSERT INTO moves")]
    assert len(appended) == 1 and any(s.startswith("INSERT INTO game_results") for s in sent)
    stored = await sqlite_store.games.load_game(game_id)  # replays its journal to it
    assert (stored.status, stored.last_seq, stored.meta) == ("finished", moves, {"moves": moves})
    assert stored.game is not None and stored.game.to_json() == game.to_json()
    assert [m.seq for m in await sqlite_store.games.journal(game_id)] == list(range(1, moves + 1))
    table = await sqlite_store.standings.game_table(game_id)
    assert table.totals == tuple(game.scores) and len(table.hands) == 1
    assert [h.points for h in table.hands] == [h.points for h in game.hand_history]
    assert all([await sqlite_store.ledger.was_handled(6000 + m) for m in (1, moves // 2, moves)])


async def test_a_refused_move_on_sqlite_stores_nothing_and_leaves_the_writer_usable(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move the database cannot take (another process holds its write lock past the
    busy timeout) raises `StorageUnavailable` saying why, stores nothing, and once the lock
    is free the same move is stored with the same number; a move refused by the journal
    (its game cancelled) rolls back too: no transaction is left open on the writer."""
    import sqlite3

    from storage import database
    from storage.errors import StorageUnavailable

    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 100)
    path = tmp_path / "held.db"
    store = await Storage.open(path)
    try:
        game_id = await store.games.create_lobby(-1, None, 1, Rules(), seats_for(4, [1]))
        game = Game(Rules(players=4), seed=8)
        await store.games.start_game(game_id, seats_for(4, [1]), game)
        rng = random.Random(8)
        first = random_move(game, rng)
        first.apply(game)
        assert await store.games.record_move(game_id, first, game) == 1
        second = random_move(game, rng)
        second.apply(game)
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StorageUnavailable, match="database is locked"):
            await store.games.record_move(game_id, second, game)
        assert store.database.write_failure == "database is locked"
        other.execute("ROLLBACK")
        other.close()
        assert [m.seq for m in await store.games.journal(game_id)] == [1]
        assert await store.games.record_move(game_id, second, game) == 2
        assert store.database.write_failure is None

        other_id = await store.games.create_lobby(-2, None, 1, Rules(), seats_for(4, [2]))
        await store.games.start_game(other_id, seats_for(4, [2]), Game(Rules(players=4), seed=9))
        await store.games.cancel_game(other_id)
        with pytest.raises(WrongGameStatus, match="cancelled"):
            await store.games.record_move(other_id, second, game)
        third = random_move(game, rng)
        third.apply(game)
        assert await store.games.record_move(game_id, third, game) == 3
        stored = await store.games.load_game(game_id)
        assert stored.game is not None and stored.game.to_json() == game.to_json()
    finally:
        await store.close()


async def test_the_small_writes_on_sqlite_are_one_trip_each(
    sqlite_store: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writes made as people press and play (a press answered, a table's screen state,
    a person's name, their DM, their language) are one transaction in one trip to the
    writer's aiosqlite thread each (`Database.transact`), not a trip for BEGIN,
    each statement and COMMIT, and an upsert's ON CONFLICT is compiled once, not at every
    call (SQLAlchemy gives it no cache key)."""
    from sqlalchemy.dialects.sqlite.base import SQLiteCompiler

    compiled: list[str] = []
    original = SQLiteCompiler.visit_on_conflict_do_update

    def counted(self: object, *args: object, **kw: object) -> str:
        compiled.append("again")
        return original(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(SQLiteCompiler, "visit_on_conflict_do_update", counted)
    game_id = await sqlite_store.games.create_lobby(-1, None, 1, Rules(), seats_for(4, [1]))
    raw = await sqlite_store.database._writer.get_raw_connection()  # type: ignore[union-attr]
    thread = raw.dbapi_connection._connection  # type: ignore[union-attr]
    writes = {
        "answered": lambda: sqlite_store.ledger.mark_answered(8001),
        "meta": lambda: sqlite_store.games.set_meta(game_id, {"message_id": 5}),
        "user": lambda: sqlite_store.people.upsert_user(9, "Ivy", "ivy"),
        "dm": lambda: sqlite_store.people.set_dm_open(9, True),
        "language": lambda: sqlite_store.people.save_person_language(9, chosen="", app="fa"),
    }
    for write in writes.values():  # each compiled here, if no test before compiled it
        await write()
    compiled.clear()
    trips = 0
    queue = thread._execute

    async def trip(*args: Any, **kwargs: Any) -> Any:
        nonlocal trips
        trips += 1
        return await queue(*args, **kwargs)

    thread._execute = trip
    try:
        made = {}
        for name, write in writes.items():
            before = trips
            await write()
            made[name] = trips - before
    finally:
        thread._execute = queue
    assert made == dict.fromkeys(writes, 1) and compiled == []
    user = await sqlite_store.people.get_user(9)
    assert user is not None and (user.display_name, user.username, user.dm_open) == (
        "Ivy",
        "ivy",
        True,
    )
    assert (await sqlite_store.games.load_game(game_id)).meta == {"message_id": 5}
    assert (await sqlite_store.people.language_choices()).person_app == {9: "fa"}


async def test_a_refused_write_names_no_bound_value(
    store: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    """Every engine hides its parameters: a write the database refuses (here a second
    row with the same key) says which constraint, never the values bound to it (a
    person's name, a move), in the error or in the log."""
    from sqlalchemy import Connection
    from sqlalchemy.exc import IntegrityError

    from storage.schema import users

    row = {"user_id": 4242, "display_name": "Zelda Quartermain", "updated_at": 17}
    await store.people.upsert_user(4242, "Zelda Quartermain", None)

    def again(db: Connection) -> None:
        db.execute(users.insert(), row)

    with pytest.raises(IntegrityError) as refused:
        await store.database.transact(again)
    message = str(refused.value)
    assert "users" in message.lower()
    assert "Zelda" not in message and "Quartermain" not in message
    assert "parameters hidden" in message
    assert "Zelda" not in caplog.text
