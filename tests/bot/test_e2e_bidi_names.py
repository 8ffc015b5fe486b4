"""A name that carries right-to-left controls (issue 29.6): in every language, every name is
isolated (FSI…PDI) and its own bidi controls are gone, so nothing after a name is reversed."""

from __future__ import annotations

from pathlib import Path

import pytest
from bot_harness import running_bot, table_in

from bot.i18n import BIDI_CONTROLS, FSI, LANGUAGES, LRI, PDI, isolated_name, plain_name
from sandbox.double import BotApiDouble
from sandbox.people import SandboxUser
from sandbox.testing import running_double
from sandbox.views import Button

RLI = "\u2067"
NAMES = {
    "host": "Mallory\u202e",  # ends in RIGHT-TO-LEFT OVERRIDE, never closed
    "guest": f"{RLI}Eve",  # an unpaired RIGHT-TO-LEFT ISOLATE
    "group": "\u202bNight\u202a club",  # embeddings, never popped
}


def _data(prefix: str) -> object:
    return lambda b: isinstance(b, Button) and (b.callback_data or "").startswith(prefix)


def texts(double: BotApiDouble, chat_id: int) -> list[str]:
    """Every text and button label the bot sent to a chat, every edit included."""
    out = []
    for event in double.events:
        message = event.message
        if event.chat_id == chat_id and event.kind in ("sent", "edited") and message:
            if not message.from_bot:
                continue
            out.append(message.text or "")
            out += [b.label for b in message.all_buttons()]
    return out


def assert_contained(text: str) -> None:
    """No bidi control but our isolates, and every line ends outside all of them: whatever
    follows a name on its line is laid out in the message's own direction."""
    stray = {c for c in text if c in BIDI_CONTROLS} - {FSI, PDI, LRI}
    assert not stray, f"{sorted(map(hex, map(ord, stray)))} in {text!r}"
    for line in text.split("\n"):
        depth = 0
        for char in line:
            depth += char in (FSI, LRI)
            depth -= char == PDI
            assert depth >= 0, f"a PDI closes nothing in {line!r}"
        assert depth == 0, f"an isolate left open in {line!r}"


def test_a_name_loses_its_controls_and_is_isolated() -> None:
    assert plain_name(NAMES["host"]) == "Mallory"
    assert plain_name(NAMES["group"]) == "Night club"
    assert plain_name("\u202e\u2066") == "?"  # nothing but controls: still a name to show
    assert isolated_name(NAMES["guest"]) == f"{FSI}Eve{PDI}"


@pytest.mark.parametrize("language", list(LANGUAGES))
async def test_names_with_bidi_controls_stay_inside_their_isolates_in_every_language(
    tmp_path: Path, language: str
) -> None:
    async with running_double() as double:
        host: SandboxUser = double.create_user(NAMES["host"], language_code=language)
        guest: SandboxUser = double.create_user(NAMES["guest"], language_code=language)
        group = double.create_group(NAMES["group"], members=[host, guest])
        async with running_bot(double, tmp_path / "hearts.sqlite3") as app:
            for person in (host, guest):
                await person.start_bot()
            await double.wait_for(lambda: guest.dm_view().last() is not None, 5)
            await host.send(group, "/newgame")  # the group takes the host's language
            lobby = await double.wait_for(
                lambda: next(
                    (
                        m.message_id
                        for m in double.chat_view(group.id).bot_messages
                        if any(_data("lj:")(b) for b in m.all_buttons())  # type: ignore[operator]
                    ),
                    None,
                ),
                5,
            )
            await guest.press(group, lobby, _data("lj:"))  # type: ignore[arg-type]
            table = table_in(app, group)
            for _ in range(2):
                await host.press(group, lobby, _data("la:"))  # type: ignore[arg-type]
            await host.press(group, lobby, _data("ls:"))  # type: ignore[arg-type]
            await double.wait_for(lambda: table.game is not None, 5)

            def names_shown() -> bool:
                table_message = double.chat_view(group.id).message(lobby)
                dms = texts(double, host.dm) + texts(double, guest.dm)
                return (
                    table_message is not None
                    and f"{FSI}Eve{PDI}" in (table_message.text or "")
                    and f"{FSI}Mallory{PDI}" in (table_message.text or "")
                    # one of them passes to the other: "Pass 0/3 → Eve" (or → Mallory)
                    and any(f"{FSI}Eve{PDI}" in t or f"{FSI}Mallory{PDI}" in t for t in dms)
                )

            await double.wait_for(names_shown, 5)
            said = texts(double, group.id) + texts(double, host.dm) + texts(double, guest.dm)
            for text in said:
                assert_contained(text)
            # Nothing stored keeps the controls either.
            assert [s.name for s in table.seats if s is not None][:2] == ["Mallory", "Eve"]
