"""Two bot accounts on one PostgreSQL database (issue 35), each its own bot and its own Bot
API double (its own updates, its own limits), the same people and groups in both:

- each serves its own group: A's table in Alpha, B's game in Beta, each DM link naming
  its own bot;
- B added to Alpha, which A serves, says once (in Alpha's language) that @A serves it,
  and stays quiet: no lobby, no answer to the commands after;
- both doubles number their updates from 1: B's update with an id A already stored as
  handled is still handled (the ledger keeps the accounts apart);
- A restarts while B's game goes on: B's game is untouched, A resumes only its own table;
- Alpha removes A: A gives the group up, and B serves it from then on;
- people, their standings and languages are shared.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import asyncpg
from bot_harness import FAST, play_turn, rooms_of, seat_everyone, start_with_computers

from bot.app import build_application, polling
from bot.config import Settings
from bot.tables.model import Table
from sandbox.double import BotApiDouble
from sandbox.people import Group
from sandbox.postgres_server import PostgresServer
from sandbox.testing import running_double
from storage import open_storage

TOKEN_A = "7000000001:AAsandbox-test-token-not-a-real-one"
TOKEN_B = "7000000002:BBsandbox-test-token-not-a-real-one"
A, B = 7000000001, 7000000002


@asynccontextmanager
async def bot(double: BotApiDouble, url: str) -> AsyncIterator[object]:
    settings = Settings(
        bot_token=double.token,
        telegram_api_base_url=double.base_url,
        telegram_api_file_url=double.base_file_url,
        database_url=url,
        computer_think_ms=50,
    )
    app = build_application(settings, FAST)
    async with polling(app, poll_timeout=1):
        yield app


def urls(group: Group) -> list[str]:
    return [b.url for m in group.view().bot_messages for b in m.all_buttons() if b.url]


def tables(app: object) -> dict[int, Table]:
    return dict(rooms_of(app).registry.tables)  # type: ignore[arg-type]


async def test_two_accounts_share_one_database_and_keep_their_own_games(
    postgres: PostgresServer,
) -> None:
    url = await postgres.database()
    async with (
        running_double(token=TOKEN_A, bot_username="hearts_a_bot") as da,
        running_double(token=TOKEN_B, bot_username="hearts_b_bot") as db,
    ):
        ann_a, bob_a = (da.create_user(n, user_id=i) for n, i in (("Ann", 501), ("Bob", 502)))
        ann_b, bob_b = (db.create_user(n, user_id=i) for n, i in (("Ann", 501), ("Bob", 502)))
        cy_b = db.create_user("Cy", user_id=503)  # one table at a time: Ann and Bob are at A's
        alpha_a = da.create_group("Alpha", members=[ann_a, bob_a], admins=[ann_a])
        alpha_b = db.create_group("Alpha", members=[ann_b, bob_b], admins=[ann_b])
        beta_b = db.create_group("Beta", members=[ann_b, bob_b, cy_b], admins=[ann_b])
        assert alpha_a.id == alpha_b.id  # one group, seen by both bots

        first_a = AsyncExitStack()
        app_a = await first_a.enter_async_context(bot(da, url))
        # A serves Alpha: Ann opens a table, Bob joins, two computers, Start.
        lobby, table_a = await seat_everyone(da, app_a, alpha_a, [ann_a, bob_a])
        for _ in range(2):
            await ann_a.press(alpha_a, lobby, "🤖 Add computer")
        await ann_a.press(alpha_a, lobby, "▶ Start")
        await da.wait_for(lambda: table_a.game is not None, 5)
        # Alpha's admin chooses Spanish: a choice in the shared database, which B reads.
        store = await open_storage(url)
        await store.people.save_chat_language(alpha_a.id, chosen="es", first="")
        await store.close()
        async with bot(db, url) as app_b:
            # B serves Beta: Cy plays three computers there.
            _, table_b = await start_with_computers(db, app_b, beta_b, [cy_b])
            await db.wait_for(lambda: urls(beta_b))  # the dealt table's message, once edited
            assert all(u.startswith("https://t.me/hearts_b_bot") for u in urls(beta_b))
            assert urls(alpha_a) and all(
                u.startswith("https://t.me/hearts_a_bot") for u in urls(alpha_a)
            )

            # Each makes moves: Ann and Bob at A's table, Cy at B's.
            for _ in range(6):
                for person in (ann_a, bob_a):
                    await play_turn(da, person, table_a)
                await da.idle()
            handled_a = await handled(url, A)
            assert handled_a
            # B's updates are numbered by its own double: bring B's next update to an
            # id A has stored as handled; B handles it all the same.
            target = max(handled_a)
            assert table_b.game is not None
            # (a pass is three presses choosing cards, then the one that passes them)
            presses = 4 if table_b.game.phase == "pass" else 1
            while db.last_update_id < target - presses:
                await cy_b.send(cy_b.dm, "hello")
            await db.idle()
            moved = await play_turn(db, cy_b, table_b)
            assert moved is not None
            await db.idle()
            assert target in await handled(url, B)
            assert target in await handled(url, A)

            # B added to Alpha says once that A serves it, in Alpha's language.
            alpha_b.add_bot(by=ann_b)
            await db.wait_for(lambda: alpha_b.view().bot_messages, 5)
            await ann_b.send(alpha_b, "/newgame")
            await bob_b.send(alpha_b, "/scores")
            await ann_b.send(alpha_b, "/newgame@hearts_b_bot")
            await db.idle()
            said = [m.text or "" for m in alpha_b.view().bot_messages]
            assert len(said) == 1, said
            assert said[0].startswith("Este grupo lo atiende") and "@hearts_a_bot" in said[0]
            assert all(t.chat_id != alpha_b.id for t in tables(app_b).values())

            # A restarts while B's game goes on: B's table is untouched, and A
            # resumes its own table only.
            a_before = table_a.game.to_json() if table_a.game else None
            await first_a.aclose()
            assert await play_turn(db, cy_b, table_b) is not None  # B serves on
            async with bot(da, url) as again:
                resumed = tables(again)
                assert [t.chat_id for t in resumed.values()] == [alpha_a.id]
                a_game = next(iter(resumed.values())).game
                assert a_game is not None and a_game.to_json() == a_before
                assert tables(app_b) == {table_b.id: table_b}  # the same table, live
                assert await play_turn(db, cy_b, table_b) is not None
                await db.idle()
                # Alpha removes A: A gives the group up, and B, used there next, serves it.
                alpha_a.remove_bot(by=ann_a)
                await da.wait_for(lambda: not tables(again), 5)
                await ann_b.send(alpha_b, "/newgame")
                await db.wait_for(
                    lambda: any(t.chat_id == alpha_b.id for t in tables(app_b).values()), 5
                )
            b_state = table_b.game.to_json() if table_b.game else None
        store = await open_storage(url, account=B)
        try:
            stored = await store.games.load_game(table_b.id)
            assert stored.game is not None and stored.game.to_json() == b_state
        finally:
            await store.close()

    # B's game was stored as B left it; A never touched it.
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch("SELECT chat_id, account FROM games ORDER BY id")
        assert [(r["chat_id"], r["account"]) for r in rows] == [
            (alpha_a.id, A),
            (beta_b.id, B),
            (alpha_b.id, B),
        ]
        served = await connection.fetch("SELECT chat_id, account FROM served_chats")
        assert {(r["chat_id"], r["account"]) for r in served} == {(alpha_a.id, B), (beta_b.id, B)}
    finally:
        await connection.close()


async def handled(url: str, account: int) -> set[int]:
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch(
            "SELECT update_id FROM handled_updates WHERE account = $1", account
        )
        return {int(r["update_id"]) for r in rows}
    finally:
        await connection.close()


def test_the_serving_bot_is_named_in_every_shipped_language() -> None:
    from bot.i18n import ENGLISH, LANGUAGES, msg, translator
    from bot.screens.parts import HTML, say

    named = msg("This group is served by {bot}: play Hearts here with it.", bot="@hearts_a_bot")
    unnamed = msg("This group is served by another Hearts bot: play here with it.")
    english = say(translator(ENGLISH), named, HTML)
    for language in LANGUAGES:
        tr = translator(language)
        said, other = say(tr, named, HTML), say(tr, unnamed, HTML)
        assert "@hearts_a_bot" in said and "{" not in other, language
        assert (said == english) == (language == ENGLISH), language


async def test_a_language_chosen_through_one_account_reaches_the_other(tmp_path: Path) -> None:
    """Languages are shared: each account keeps them in memory, and reads the others'
    changes now and then (`Languages.refresh`; every 10 s on PostgreSQL)."""
    from bot.languages import Languages

    where = tmp_path / "hearts.db"
    a, b = await open_storage(where, account=A), await open_storage(where, account=B)
    try:
        lang_a, lang_b = await Languages.load(a.people), await Languages.load(b.people)
        await lang_a.choose_for_person(7, "ru")
        await lang_a.seen(8, "fa")
        await lang_a.choose_for_chat(-5, "hi")
        assert (lang_b.of_person(7), lang_b.of_person(8), lang_b.of_chat(-5)) == ("en",) * 3
        assert await lang_b.refresh() == 3
        assert (lang_b.of_person(7), lang_b.of_person(8), lang_b.of_chat(-5)) == ("ru", "fa", "hi")
        await lang_a.choose_for_person(7, None)  # back to the app's language: English
        await lang_a.seen(8, "en")
        await lang_b.refresh()
        assert (lang_b.of_person(7), lang_b.of_person(8)) == ("en", "en")
    finally:
        await a.close()
        await b.close()
