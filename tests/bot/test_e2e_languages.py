"""Every reader in their own language, through the real bot against the double: four people
whose Telegram apps speak Russian, Spanish, Persian and Hindi play a hand at one table in a
group an admin set to Spanish."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from babel.messages.pofile import read_po
from bot_harness import open_table, rooms_of, running_bot, table_in

from bot.core import decode as cb
from bot.i18n import LOCALES, translator
from sandbox.double import BotApiDouble
from sandbox.markup import parse_html
from sandbox.people import SandboxUser
from sandbox.testing import running_double
from sandbox.views import MessageView


def english_sentences() -> list[str]:
    """Every run of two or more English words in the catalog's messages (placeholders and
    tags taken out): none of them may reach a reader of another language."""
    with (LOCALES / "messages.pot").open("rb") as handle:
        template = read_po(handle)
    runs: set[str] = set()
    for message in template:
        for text in message.id if isinstance(message.id, tuple) else (message.id,):
            plain = re.sub(r"<[^>]+>", "", text)
            for run in re.split(r"\{\w*\}|[\n•·:;()—–\"]", plain):
                words = re.findall(r"[A-Za-z']+", run)
                if len(words) >= 2 and sum(len(w) for w in words) >= 7:
                    runs.add(" ".join(words))
    return sorted(runs)


def _words(text: str) -> str:
    return " ".join(re.findall(r"[A-Za-z']+", text))


def said(double: BotApiDouble, chat_id: int, since: int = 0) -> Iterator[str]:
    """The text of everything the bot sent to a chat, every edit included (from event
    number `since` on)."""
    for event in double.events[since:]:
        if event.chat_id == chat_id and event.kind in ("sent", "edited") and event.message:
            message: MessageView = event.message
            if message.from_bot:
                yield message.text or ""
                for button in message.all_buttons():
                    yield button.label


async def press(double: BotApiDouble, person: SandboxUser, data: str) -> str | None:
    """Press a button of the person's DM once it shows it (by its data, in any language)."""

    def showing() -> bool:
        return any(
            b.callback_data == data for m in person.dm_view().bot_messages for b in m.all_buttons()
        )

    await double.wait_for(showing, 5)
    return await person.press(person.dm, None, data=data)


def shown(reader: str, message: str, /, **values: object) -> str:
    """What a sentence looks like once Telegram has parsed its HTML."""
    return parse_html(translator(reader)(message, **values))[0]


async def test_each_dm_in_its_persons_language_and_the_group_in_its_own(tmp_path: Path) -> None:
    async with running_double() as double:
        people = {
            "ru": double.create_user("Ольга", username="olga", language_code="ru"),
            "es": double.create_user("Bruno", username="bruno", language_code="es"),
            "fa": double.create_user("دارا", username="dara", language_code="fa"),
            "hi": double.create_user("हेमा", username="hema", language_code="hi"),
        }
        olga = people["ru"]
        group = double.create_group("Noche de corazones", members=people.values(), admins=[olga])
        async with running_bot(double, tmp_path / "hearts.sqlite3") as app:
            rooms = rooms_of(app)
            for person in people.values():
                await person.start_bot()
            await double.wait_for(lambda: all(p.dm_view().last() for p in people.values()), 5)
            # The admin sets the group to Spanish; her toast is in her own Russian.
            await olga.send(group, "/language")
            menu = await double.wait_for(
                lambda: next(
                    (
                        m
                        for m in double.chat_view(group.id).bot_messages
                        if any((b.callback_data or "").startswith("lg:") for b in m.all_buttons())
                    ),
                    None,
                ),
                5,
            )
            toast = await olga.press(group, menu.message_id, data=cb.ChooseLanguage("es").encode())
            assert toast == shown("ru", "✅ {language}", language="Español")
            assert rooms.languages.of_chat(group.id) == "es"
            # Until now the group had no language (English); from here on, none is English.
            chosen = len(double.events)
            # A member who is not an admin is told, in his language, that he cannot.
            bruno = people["es"]
            refused = await bruno.press(
                group, menu.message_id, data=cb.ChooseLanguage("hi").encode()
            )
            assert refused == shown("es", "Only a group admin can choose the group's language.")
            assert rooms.languages.of_chat(group.id) == "es"

            await olga.send(group, "/newgame")
            lobby = await double.wait_for(
                lambda: next(
                    (
                        m
                        for m in double.chat_view(group.id).bot_messages
                        if any((b.callback_data or "").startswith("lj:") for b in m.all_buttons())
                    ),
                    None,
                ),
                5,
            )
            table = table_in(app, group)
            for person in list(people.values())[1:]:
                joined = await person.press(
                    group, lobby.message_id, data=cb.SitDown(table.id).encode()
                )
                language = next(code for code, p in people.items() if p is person)
                assert joined == shown(language, "You're in! Your cards will come in a DM.")
            await olga.press(group, lobby.message_id, data=cb.StartGame(table.id).encode())
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            assert game is not None

            # One hand, each person pressing their own buttons.
            while game.hand_number == 1 and game.phase != "over":
                for language, person in people.items():
                    seat = table.seat_of(person.id)
                    if game.hand_number > 1 or seat is None or seat not in game.waiting_for():
                        continue
                    if game.phase == "pass":
                        for card in game.hand(seat)[-3:]:
                            await press(double, person, cb.TapCard(table.id, 1, card.code).encode())
                        await press(double, person, cb.PassCards(table.id, 1).encode())
                    elif game.phase == "moon":
                        await press(double, person, cb.ChooseMoon(table.id, 1, "add").encode())
                    else:
                        card = game.legal_plays()[0]
                        data = cb.TapCard(table.id, 1, card.code).encode()
                        toast = await press(double, person, data)
                        assert toast == shown(language, "Played {card}", card=card.symbol)
                await double.wait_for(
                    lambda: (
                        game.hand_number > 1
                        or game.phase == "over"
                        or any(table.seat_of(p.id) in game.waiting_for() for p in people.values())
                    ),
                    5,
                )
            await rooms.outbox.flush()

            # Each DM in its person's language, the group in Spanish.
            for language, person in people.items():
                texts = list(said(double, person.dm))
                assert any(shown(language, "Scores: {scores}", scores="") in t for t in texts), (
                    language
                )
            group_texts = list(said(double, group.id))
            assert any(shown("es", "Play from your DM with me.") in t for t in group_texts)
            assert any(shown("es", "Standings: {totals}", totals="") in t for t in group_texts)

            # No English sentence anywhere, and Telegram's parser took every message.
            english = english_sentences()
            assert len(english) > 100
            for chat_id in (group.id, *(p.dm for p in people.values())):
                for text in said(double, chat_id, since=chosen):
                    plain = _words(text)
                    leaked = [e for e in english if e in plain]
                    assert not leaked, (chat_id, leaked[:3], text)
            assert not [e for e in double.errors if e.error_code == 400]
            # Every button still fits a phone's row in every language.
            for event in double.events:
                if event.message is not None and event.message.from_bot:
                    for button in event.message.all_buttons():
                        assert len(button.label) <= 32, button.label
            assert not double.unanswered_callbacks()

            # The command menu is translated for every shipped language.
            for code in ("ru", "es", "pt", "fa", "hi"):
                commands = double.commands.get(('{"type": "all_group_chats"}', code), [])
                assert commands, code
                assert commands[0]["description"] != "Open a table of Hearts"


async def test_a_persons_own_choice_beats_their_app_and_survives_a_restart(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        ana: SandboxUser = double.create_user("Ana", username="ana", language_code="es")
        database = tmp_path / "hearts.sqlite3"
        async with running_bot(double, database) as app:
            await ana.start_bot()
            await double.wait_for(lambda: ana.dm_view().last() is not None, 5)
            rooms = rooms_of(app)
            assert rooms.languages.of_person(ana.id) == "es"
            hello = ana.dm_view().last()
            assert hello is not None
            assert translator("es")("/language — the language of my messages") not in (
                hello.text or ""
            )
            await ana.send(ana.dm, "/language")
            menu = await double.wait_for(
                lambda: next(
                    (
                        m
                        for m in ana.dm_view().bot_messages
                        if any((b.callback_data or "").startswith("lg:") for b in m.all_buttons())
                    ),
                    None,
                ),
                5,
            )
            toast = await ana.press(
                ana.dm, menu.message_id, data=cb.ChooseLanguage("pt_BR").encode()
            )
            assert toast == shown("pt_BR", "✅ {language}", language="Português (Brasil)")
            # The menu itself now reads in the new language.
            await double.wait_for(
                lambda: (
                    shown("pt_BR", "🔄 As my Telegram app")
                    in str(double.chat_view(ana.dm).message(menu.message_id).labels)
                ),  # type: ignore[union-attr]
                5,
            )
        async with running_bot(double, database) as app:
            assert rooms_of(app).languages.of_person(ana.id) == "pt_BR"
            await ana.send(ana.dm, "/help")
            help_text = await double.wait_for(
                lambda: next(
                    (m.text for m in ana.dm_view().bot_messages if "/language" in (m.text or "")),
                    None,
                ),
                5,
            )
            assert help_text.startswith("♥ Copas, aqui no nosso chat:\n")  # a DM's own list
            assert help_text == shown(
                "pt_BR",
                "♥ <b>Hearts</b>, here in our chat:\n"
                "/daily — the daily deal: the same hands for everyone\n"
                "/stats — your own record\n"
                "/rating — your rating overall\n"
                "/leave — leave the table you sit at\n"
                "/rejoin — take your seat back from the computer\n"
                "/language — the language of my messages\n"
                "/help — this list\n"
                "\n"
                "To play with friends, add me to a group and send /newgame there: /help in the "
                "group lists its commands.",
            )


async def test_a_group_takes_the_language_of_whoever_opened_its_first_table(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        hema = double.create_user("हेमा", username="hema", language_code="hi")
        bob = double.create_user("Bob", username="bob", language_code="en")
        group = double.create_group("Hearts", members=[hema, bob], admins=[hema])
        async with running_bot(double, tmp_path / "hearts.sqlite3") as app:
            for person in (hema, bob):
                await person.start_bot()
            await hema.send(group, "/newgame")
            await double.wait_for(lambda: rooms_of(app).registry.in_chat(group.id, None), 5)
            assert rooms_of(app).languages.of_chat(group.id) == "hi"
            # Not an admin: /language in the group is refused, in the group's language.
            await bob.send(group, "/language")
            refusal = shown("hi", "Only a group admin can choose the group's language.")
            await double.wait_for(
                lambda: any(m.text == refusal for m in double.chat_view(group.id).bot_messages),
                5,
            )


async def test_a_new_language_redraws_the_open_table_message_and_the_dm_at_once(
    tmp_path: Path,
) -> None:
    """Issue 30.6: a group's /language redraws its open table message (lobby or game), a
    person's /language in a DM their living DM, with no move in between."""

    async def choose(person: SandboxUser, chat_id: int, code: str) -> None:
        before = len(double.chat_view(chat_id).bot_messages)
        await person.send(chat_id, "/language")
        menu = await double.wait_for(
            lambda: next(
                (
                    m
                    for m in double.chat_view(chat_id).bot_messages[before:]
                    if any((b.callback_data or "").startswith("lg:") for b in m.all_buttons())
                ),
                None,
            ),
            5,
        )
        await person.press(chat_id, menu.message_id, data=cb.ChooseLanguage(code).encode())

    async with running_double() as double:
        ana = double.create_user("Ana", username="ana", language_code="en")
        group = double.create_group("Hearts", members=[ana], admins=[ana])
        async with running_bot(double, tmp_path / "hearts.sqlite3") as app:
            await ana.start_bot()
            await double.wait_for(lambda: ana.dm_view().last() is not None, 5)
            lobby = await open_table(double, ana, group, computers=3)
            table = table_in(app, group)

            def table_message() -> str:
                message = double.chat_view(group.id).message(lobby)
                assert message is not None
                return (message.text or "") + "\n" + str(message.labels)

            await choose(ana, group.id, "es")
            start = shown("es", "▶ Start")
            await double.wait_for(lambda: start in table_message(), 5)
            assert shown("en", "▶ Start") not in table_message()

            await ana.press(group, lobby, lambda b: (b.callback_data or "").startswith("ls:"))
            await double.wait_for(lambda: table.game is not None, 5)
            in_dm = shown("pt_BR", "Play from your DM with me.")
            await double.wait_for(
                lambda: shown("es", "Play from your DM with me.") in table_message(), 5
            )
            game = table.game
            assert game is not None
            await double.wait_for(lambda: set(game.waiting_for()) == {0}, 5)  # computers passed
            await double.idle(quiet=0.3)  # the last pass stored, not only made
            moves = rooms_of(app).registry.version(table.id)
            await choose(ana, group.id, "pt_BR")
            await double.wait_for(lambda: in_dm in table_message(), 5)

            def dm() -> str:
                screen = ana.dm_view().message(table.ui.dm_message_ids[0])
                return (screen.text or "") if screen is not None else ""

            tap = shown("ru", "Tap 3 cards to choose them, then tap <b>Pass</b>.")
            await double.wait_for(
                lambda: shown("en", "Tap 3 cards to choose them, then tap <b>Pass</b>.") in dm(), 5
            )
            await choose(ana, ana.dm, "ru")
            await double.wait_for(lambda: tap in dm(), 5)
            # Nobody moved: the new language alone redrew both.
            assert rooms_of(app).registry.version(table.id) == moves
