"""Issue 50, item 11: what Telegram refuses never replaces an answer.

Every argument of every ``/event`` command, and the organiser's name, carries markup
(``<b>``, ``<expert>``, a bare ``&``); each command is answered, the person's words shown
as they typed them, and the double (which parses HTML as Telegram does, "Unsupported start
tag") refused nothing the bot sent.
"""

from __future__ import annotations

import itertools
import shlex
from datetime import UTC, datetime
from pathlib import Path

import pytest
from bot_harness import running_bot
from test_e2e_tournaments import create_tournament, said

from bot.i18n import translator
from bot.screens.parts import HTML, say
from bot.tournaments.parsing import BadRequest, parse_new, usernames
from sandbox.markup import parse_html
from sandbox.testing import running_double

NAME = "<b>Cup & <expert>"  # no "/": a word with one is a time zone
SHOWN = "\u2068" + NAME + "\u2069"
_NOW = datetime(2031, 1, 1, tzinfo=UTC)

REFUSED_NEW = [
    ('"Spring Cup" size=4 level=<expert>', "unknown option or value 'level=<expert>'"),
    ("Cup Mars/<b>x</b>", "unknown time zone 'Mars/<b>x</b>'"),
    ("Cup only=@ann,<bob>", "'<bob>' is not one"),
    ("Cup invite=@cat&dog", "'cat&dog' is not one"),
    ("Cup deadline=<i>soon&</i>", "'<i>soon&</i>' is not a date"),
    ("Cup size=<b>4</b>", "size= takes a whole number from 3 to 6"),
    ("Cup 2031-06-01 25:99 UTC", "'2031-06-01T25:99' is not a date"),
]
ON_THE_EVENT = [
    ("/event <expert>", "unknown command '<expert>'"),
    ("/event watch <b>on</b>", "unknown option or value '<b>on</b>'"),
    ("/event only @ann <bob>", "'<bob>' is not one"),
    ("/event invite @cat&dog", "'cat&dog' is not one"),
    ("/event remove <expert>&co", "No one called \u2068<expert>&co\u2069 is registered"),
    ('/event new "<i>Other</i>"', f"There's already an event open here: {SHOWN}"),
    ("/event", f"🏆 {SHOWN} — a Hearts event by \u2068K<b>&\u2069"),
    ("/event withdraw", "You're not registered."),
    ("/event pause", f"⏸ {SHOWN} is paused by \u2068K<b>&\u2069"),
    ("/event resume", f"▶ {SHOWN} carries on (\u2068K<b>&\u2069)"),
    ("/event cancel", f"✖ {SHOWN} was cancelled by \u2068K<b>&\u2069"),
]


async def test_every_event_command_with_markup_in_every_argument_is_answered(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        # Admins of the same name, in turn: each within the commands' rate.
        admins = [double.create_user("K<b>&", username=f"kay{n}") for n in range(5)]
        group = double.create_group("Chem <Eng> & co", admins=admins)
        turn = itertools.cycle(admins)
        async with running_bot(double, tmp_path / "db.sqlite3"):
            for words, answer in REFUSED_NEW:
                await next(turn).send(group, f"/event new {words}")
                await said(double, group.id, answer)
            await create_tournament(double, next(turn), group, f'"{NAME}"')
            await said(double, group.id, f"🏆 {SHOWN} — a Hearts event")
            for command, answer in ON_THE_EVENT:
                await next(turn).send(group, command)
                await said(double, group.id, answer)
            assert [(e.method, e.description) for e in double.errors] == []


@pytest.mark.parametrize(("words", "answer"), REFUSED_NEW)
def test_a_refusal_of_event_new_is_html_telegram_accepts(words: str, answer: str) -> None:
    """The sentence as the bot writes it for Telegram: the person's words escaped (no bare
    ``&`` either), and it reads as they typed it."""
    with pytest.raises(BadRequest) as refused:
        parse_new(shlex.split(words), "UTC", _NOW)
    written = say(translator("en"), refused.value.said, HTML)
    assert "&" not in written.replace("&amp;", "").replace("&lt;", "").replace("&gt;", "")
    assert answer in parse_html(written)[0]


def test_usernames_refused_are_escaped() -> None:
    with pytest.raises(BadRequest) as refused:
        usernames("only", "@ann <bob>")
    assert "&lt;bob&gt;" in say(translator("fa"), refused.value.said, HTML)
