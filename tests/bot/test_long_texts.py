"""A text Telegram would refuse as too long is cut to fit, never left unsent (issue 29,
item 8).

A person named with 4,096 characters opened a table whose message Telegram refused
("message is too long"): nobody could see the lobby, and it held its people for 6 hours.
Names are cut to a display length where they enter the bot, and the outbox cuts any text
over Telegram's 4,096 characters (its HTML kept valid) instead of failing; the double
refuses what Telegram refuses, so these tests would see a 400.
"""

from __future__ import annotations

from pathlib import Path

from bot_harness import open_table, rooms_of, running_bot, table_in
from hypothesis import given
from hypothesis import strategies as st

from bot.basics import NAME_LIMIT, Person
from bot.i18n import english
from bot.telegram.fit import ELLIPSIS, fit_html, utf16_len
from bot.telegram.outbox import Outbox
from sandbox.markup import parse_html
from sandbox.testing import make_bot, running_double

t = english()


async def test_a_person_with_a_4096_character_name_opens_a_table_everyone_sees(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        long, bob = double.create_user("L" * 4096), double.create_user("Bob " + "ß" * 4000)
        group = double.create_group("Long", members=[long, bob], admins=[long])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            for person in (long, bob):
                await person.start_bot()
            await double.idle()
            lobby = await open_table(double, long, group, computers=1)
            assert await bob.press(group, lobby, "✋ Join") == t(
                "You're in! Your cards will come in a DM."
            )
            table = table_in(app, group)
            assert table.seat_of(long.id) == 0 and table.seat_of(bob.id) == 2
            names = [s.name for s in table.seats if s is not None and s.kind == "human"]
            assert names == ["L" * (NAME_LIMIT - 1) + ELLIPSIS, "Bob " + "ß" * 27 + ELLIPSIS]
            await double.idle()
            shown = double.chat_view(group.id).message(lobby)
            assert shown is not None and names[1] in (shown.text or "")
            assert await long.press(group, lobby, "▶ Start") == t("Dealing the cards…")
            await double.wait_for(lambda: table.game is not None, 5)
            await double.idle()
            assert not [e for e in double.errors if e.error_code == 400], double.errors
            assert rooms_of(app).registry.of_user(bob.id) is table


async def test_a_message_or_edit_over_telegrams_limit_is_cut_to_fit() -> None:
    async with running_double() as double, make_bot(double) as bot:
        group = double.create_group("Limits", members=[double.create_user("Ann")])
        outbox = Outbox(bot, group_interval=0.0, per_second=100)
        text = "<b>Game over!</b> " + "Ann &amp; Bob · " * 400 + "<i>the end</i>"
        assert utf16_len(text) > 4096
        message_id = await outbox.send(group.id, text)
        assert message_id is not None
        outbox.edit(group.id, message_id, "<b>" + "😀" * 3000 + "</b>")
        await outbox.flush(timeout=10.0)
        await outbox.close()
        shown = double.chat_view(group.id).message(message_id)
        assert shown is not None and shown.text is not None
        # A 😀 counts two; the tags count too (the cut is made on the HTML, never too short
        # for Telegram's count after parsing it).
        assert shown.text == "😀" * 2044 + ELLIPSIS
        sent = double.chat_view(group.id).bot_messages[0]
        assert not [e for e in double.errors if e.error_code == 400], double.errors
        assert sent.message_id == message_id


def test_display_names_are_cut_once_and_short_ones_kept() -> None:
    assert Person(1, "Ana").name == "Ana"
    assert Person(1, "N" * NAME_LIMIT).name == "N" * NAME_LIMIT
    cut = Person(1, "N" * (NAME_LIMIT + 1)).name
    assert cut == "N" * (NAME_LIMIT - 1) + ELLIPSIS and Person(1, cut).name == cut


_pieces = st.sampled_from(
    ["<b>", "</b>", "<i>", "</i>", '<a href="https://t.me/x">', "</a>", "&amp;", "&lt;", "\n"]
)
_html = st.lists(
    st.one_of(_pieces, st.text(alphabet=st.sampled_from("ab ♥😀ß"), min_size=1)), max_size=60
)


@given(pieces=_html, limit=st.integers(5, 120))
def test_a_cut_text_fits_and_stays_valid_html(pieces: list[str], limit: int) -> None:
    # Tags balanced as the bot writes them (each closed in order).
    source, open_tags = "", []
    for piece in pieces:
        if piece.startswith("</"):
            if open_tags and open_tags[-1] == piece[2:-1]:
                source += piece
                open_tags.pop()
        elif piece.startswith("<"):
            name = piece[1:].split(">")[0].split(" ")[0]
            if name not in open_tags:
                source += piece
                open_tags.append(name)
        else:
            source += piece
    source += "".join(f"</{name}>" for name in reversed(open_tags))
    cut = fit_html(source, limit)
    assert utf16_len(cut) <= limit or cut == source
    plain, _ = parse_html(cut)  # raises if a tag or an entity was cut in two
    if cut == source:
        assert utf16_len(source) <= limit
    else:
        assert plain.endswith(ELLIPSIS)
        assert parse_html(source)[0].startswith(plain[:-1].rstrip())
