"""An organiser's numbers and one broken event stop nothing else (issue 12, items 1 and 9).

Every number ``/event new`` takes has a range, every date lies within a year, the username
lists are bounded; rows stored before the ranges existed load within them; and one event
whose step fails is logged and its organiser told once, while the other groups' events get
their reminders, the shared timer stays armed, and a restart resumes.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from bot_harness import FAST, rooms_of, running_bot
from test_e2e_tournaments import START, count, create_tournament, said, tick

from bot.config import Tuning
from bot.i18n import LANGUAGES, translator
from bot.telegram.chats import keyboard
from bot.timers import ManualClock
from bot.tournaments.parsing import parse_new
from bot.tournaments.render import tournament_message
from domain.tournaments import Registration, StoredTournament, TournamentOptions, TournamentState
from engine import Rules
from sandbox.limits import RateLimits
from sandbox.markup import utf16_len
from sandbox.testing import running_double

NOW = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("words", "says"),
    [
        (["grace=99999999999999"], "grace= takes a whole number from 1 to 1440"),
        (["timer=-5"], "timer= takes a whole number from 0 to 3600"),
        (["target=99999999999999999999999999"], "target= takes a whole number from 1 to 1000"),
        (["size=²"], "size= takes a whole number from 3 to 6"),
        (["top=0"], "top= takes a whole number from 1 to 1000"),
        (["9999-12-31", "23:59", "America/Los_Angeles"], "is not a date|more than a year"),
        (["2029-01-01", "10:00"], "is more than a year away"),
        (["2026-12-01", "10:00", "deadline=9999-12-31T23:59"], "is not a date|more than a year"),
        (["only=" + ",".join(f"user{n:03}" for n in range(400))], "at most 100 usernames"),
        (["invite=@ok,<b>x</b>"], "is not one"),
    ],
)
def test_every_number_and_date_of_event_new_has_a_range(words: list[str], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse_new(words, "UTC", NOW)


def test_options_stored_out_of_range_load_within_range() -> None:
    options = TournamentOptions.from_dict(
        {
            "grace_s": 99999999999999,
            "turn_timer": -5,
            "table_size": "4",
            "advance_overall": None,
            "allowed_usernames": [f"u{n}" for n in range(500)],
        }
    )
    assert options.grace_s == 24 * 3600 and options.turn_timer == 0
    assert options.table_size == 4 and options.advance_overall is None
    assert len(options.allowed_usernames) == TournamentOptions.MAX_USERNAMES


async def test_one_broken_event_stops_neither_the_others_nor_a_restart(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    clock = ManualClock(START - timedelta(days=3))
    tuning = replace(FAST, clock=clock)
    async with running_double() as double:
        kumar, lena = double.create_user("Kumar"), double.create_user("Lena")
        broken = double.create_group("Broken", members=[kumar], admins=[kumar])
        fine = double.create_group("Fine", members=[lena], admins=[lena])
        async with running_bot(double, database, tuning) as app:
            await create_tournament(double, kumar, broken, "Bad Cup 2031-06-01 18:00 Asia/Kolkata")
            await create_tournament(double, lena, fine, "Good Cup 2031-06-01 18:00 Asia/Kolkata")
            bad_id = (await rooms_of(app).storage.tournaments.tournaments_in_chat(broken.id))[0].id
        # A row as an older version (or a bad hand) may have left it: a grace period that
        # overflows any date, and a time zone that no longer exists.
        with sqlite3.connect(database) as db:
            db.execute(
                "UPDATE tournaments SET time_zone = 'Nowhere/Gone',"
                " options = json_set(options, '$.grace_s', 99999999999999) WHERE id = ?",
                (bad_id,),
            )
        async with running_bot(double, database, tuning) as app:  # resume does not raise
            bad = await rooms_of(app).storage.tournaments.get_tournament(bad_id)
            assert bad is not None and bad.options.grace_s == 24 * 3600
            await tick(app, clock, START - timedelta(hours=24))
            await said(double, fine.id, "starts tomorrow")
            await said(double, broken.id, "Something went wrong while running")
            assert "tournaments:tick" in rooms_of(app).board.scheduler
            await tick(app, clock, START - timedelta(minutes=59))
            await said(double, fine.id, "starts in an hour")
        async with running_bot(double, database, tuning) as app:
            await tick(app, clock, START + timedelta(seconds=1))
            assert count(double, broken.id, "Something went wrong while running") == 1
            assert count(double, fine.id, "Something went wrong") == 0


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_event_message_fits_telegram_with_the_most_names_allowed(language: str) -> None:
    options = TournamentOptions(allowed_usernames=tuple(f"{n:03}" + "u" * 29 for n in range(100)))
    event = StoredTournament(
        id=1,
        chat_id=-5,
        thread_id=None,
        organiser_id=1,
        organiser_name="K" * 64,
        name="C" * 80,
        rules=Rules(),
        options=options,
        time_zone="Asia/Kolkata",
        starts_at=START,
        registration_deadline=START,
        status="registration",
        current_round=0,
        state=TournamentState(),
        created_at=NOW,
    )
    entries = [
        Registration(1, n, "Ñ" * 40 + "<&>" * 8, None, "registered", NOW) for n in range(300)
    ]
    tr = translator(language)
    text, buttons = tournament_message(tr, event, entries, registration_open=True)
    markup = keyboard(buttons)  # as the Telegram adapter draws them
    # Telegram counts UTF-16 code units (and so does the double).
    assert utf16_len(text) < 4096, utf16_len(text)
    labels = [b.text for row in markup.inline_keyboard for b in row] if markup else []
    assert tr("✋ Register") in labels
    assert "… +" in text and "290" in text  # the rest are counted, not listed


@pytest.mark.alone
async def test_twelve_people_pressing_register_at_once_are_all_answered_promptly(
    tmp_path: Path,
) -> None:
    """With production pacing (the rate limiter on, a group's 3 s between edits, and the
    double holding the bot to Telegram's flood limits): half of them have not opened the
    bot's DM yet, so each of those presses also posts a line in the group."""
    clock = ManualClock(START - timedelta(days=3))
    async with running_double(RateLimits()) as double:
        kumar = double.create_user("Kumar")
        people = [double.create_user(f"P{n}", username=f"p{n}") for n in range(12)]
        group = double.create_group("Rush", members=people, admins=[kumar])
        tuning = Tuning(computer_delay=0.0, thinker_workers=0, clock=clock)
        async with running_bot(double, tmp_path / "db.sqlite3", tuning) as app:
            for person in people[:6]:
                await person.start_bot()
            message = await create_tournament(double, kumar, group, "Rush Cup 2031-06-01 18:00")
            began = time.monotonic()
            answers = await asyncio.gather(
                *(p.press(group, message, "✋ Register", timeout=15) for p in people)
            )
            answered_in = time.monotonic() - began
            assert all(answers) and answered_in < 5.0, (answers, answered_in)
            for person in people[6:]:
                await person.start_bot(f"e{(await _event_id(app, group.id))}")
            tournament_id = await _event_id(app, group.id)
            for _ in range(100):
                entries = await rooms_of(app).storage.tournaments.registrations(tournament_id)
                if sum(e.status == "registered" for e in entries) == 12:
                    break
                await asyncio.sleep(0.1)
            assert sum(e.status == "registered" for e in entries) == 12


async def _event_id(app: Any, chat_id: int) -> int:
    return (await rooms_of(app).storage.tournaments.tournaments_in_chat(chat_id))[0].id
