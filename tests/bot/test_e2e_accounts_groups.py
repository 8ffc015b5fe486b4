"""Two bot accounts on one PostgreSQL database keep to their own groups (issue 50.8): A
serves Alpha, B serves Beta, and Ann has finished games in both.

- 📣 Post to my groups, pressed under Ann's daily deal played with B, posts her card to
  Beta only: Alpha is A's to post to;
- A's event in Alpha cannot be entered through B: neither B's ``/start e<id>`` link nor a
  Register press sent to B registers anyone in it;
- one live seat per person across both (issue 50.3): Bob, seated in B's lobby in Beta, is
  refused a seat at A's table in Alpha, which names Beta.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

from bot_harness import FAST, open_table, rooms_of, table_in
from test_e2e_accounts import TOKEN_A, TOKEN_B
from test_e2e_daily import NOW, _dm_has, daily_table, play
from test_e2e_daily import quick_computers as quick_computers  # an autouse fixture
from test_e2e_tournaments import create_tournament

from bot.app import build_application, polling
from bot.config import Settings
from bot.timers import ManualClock
from engine import Rules
from sandbox.double import BotApiDouble
from sandbox.postgres_server import PostgresServer
from sandbox.testing import running_double

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "storage"))
from storage_testkit import play_stored


@asynccontextmanager
async def bot(double: BotApiDouble, url: str, clock: ManualClock) -> AsyncIterator[object]:
    settings = Settings(
        bot_token=double.token,
        telegram_api_base_url=double.base_url,
        telegram_api_file_url=double.base_file_url,
        database_url=url,
        computer_think_ms=50,
    )
    app = build_application(settings, replace(FAST, clock=clock))
    async with polling(app, poll_timeout=1):
        yield app


def bot_texts(double: BotApiDouble, chat_id: int) -> list[str]:
    return [m.text or "" for m in double.chat_view(chat_id).bot_messages]


async def test_each_account_posts_and_registers_only_in_its_own_groups(
    postgres: PostgresServer,
) -> None:
    url = await postgres.database()
    clock = ManualClock(NOW)
    async with (
        running_double(token=TOKEN_A, bot_username="hearts_a_bot") as da,
        running_double(token=TOKEN_B, bot_username="hearts_b_bot") as db,
    ):
        ann_a, bob_a = (da.create_user(n, user_id=i) for n, i in (("Ann", 501), ("Bob", 502)))
        ann_b, bob_b = (db.create_user(n, user_id=i) for n, i in (("Ann", 501), ("Bob", 502)))
        alpha_a = da.create_group("Alpha", members=[ann_a, bob_a], admins=[ann_a])
        alpha_b = db.create_group("Alpha", members=[ann_b, bob_b], admins=[ann_b])
        beta_b = db.create_group("Beta", members=[ann_b, bob_b], admins=[ann_b])
        async with bot(da, url, clock) as app_a, bot(db, url, clock) as app_b:
            # A is used in Alpha first (an event opened there), B in Beta: each serves its own.
            await create_tournament(da, ann_a, alpha_a, '"Alpha Cup" size=4')
            await bob_b.send(beta_b, "/help")
            await db.wait_for(lambda: bot_texts(db, beta_b.id), 5)
            # B in Alpha too: it says once that A serves Alpha, and nothing more.
            alpha_b.add_bot(by=ann_b)
            await db.wait_for(lambda: bot_texts(db, alpha_b.id), 5)
            # Ann's finished games: in Alpha with A, in Beta with B.
            for seed, (app, group) in enumerate(((app_a, alpha_a), (app_b, beta_b)), start=1):
                store = rooms_of(app).storage  # type: ignore[arg-type]
                await play_stored(
                    store, Rules(target=20), seed=seed, chat_id=group.id, user_ids=[501, 502]
                )

            # A's event cannot be entered through B: not by B's link, not by a press.
            (event,) = await rooms_of(app_a).storage.tournaments.tournaments_in_chat(  # type: ignore[arg-type]
                alpha_a.id
            )
            await bob_b.start_bot(f"e{event.id}")
            await db.wait_for(lambda: any("Registration" in t for t in bot_texts(db, bob_b.dm)), 5)
            assert bot_texts(db, bob_b.dm)[-1] == "Registration for this event is closed."
            last = db.chat_view(beta_b.id).bot_messages[-1].message_id
            refused = await bob_b.press_forged(beta_b, last, f"er:{event.id}:0:")
            assert refused == "That button isn't valid any more."
            assert await rooms_of(app_a).storage.tournaments.registrations(event.id) == []  # type: ignore[arg-type]

            # Ann plays the day's deal with B; her card goes to Beta, never to Alpha.
            await ann_b.send(ann_b.dm, "/daily")
            await db.wait_for(lambda: ann_b.dm_view().find("Daily deal") is not None, 10)
            await play(db, ann_b, await daily_table(app_b, ann_b), high=False)
            await db.wait_for(lambda: _dm_has(db, ann_b, "📣 Post to my groups"), 20)
            alpha_before = len(bot_texts(db, alpha_b.id))
            beta_before = len(bot_texts(db, beta_b.id))
            said = await ann_b.press(ann_b.dm, None, "📣 Post to my groups")
            assert said == "📣 Posted to your groups: 1"
            await db.wait_for(lambda: len(bot_texts(db, beta_b.id)) > beta_before, 10)
            card = bot_texts(db, beta_b.id)[-1].replace("\u2068", "").replace("\u2069", "")
            assert card.startswith("📣 Ann's daily deal:")
            await db.idle()
            assert len(bot_texts(db, alpha_b.id)) == alpha_before

            # Bob sits in B's lobby in Beta: A's table in Alpha cannot seat him too.
            await open_table(db, bob_b, beta_b)
            await bob_a.start_bot()
            lobby = await open_table(da, ann_a, alpha_a)
            refused = await bob_a.press(alpha_a, lobby, "✋ Join")
            assert (
                refused
                == "You're already at a table in \u2068Beta\u2069. Finish or /leave it first."
            )
            assert table_in(app_a, alpha_a).seat_of(bob_a.id) is None  # type: ignore[arg-type]
