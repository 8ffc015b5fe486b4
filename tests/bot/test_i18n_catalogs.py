"""The message catalogs: complete, faithful to English's placeholders and HTML, current with
the source, and a missing translation falls back to English (never to a key)."""

from __future__ import annotations

import ast
import gettext
import io
import itertools
import os
import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from system_packages import need_system_package

from bot.i18n import ENGLISH, FSI, LANGUAGES, LOCALES, PDI, Msg, Tr, language_of, translator

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {
    "tr": None,
    "mark": None,
    "msg": None,
    "said": None,  # the tournaments' `msg` with every value escaped
    "plural": (1, 2),
    "plural_mark": (1, 2),
    "msg_plural": (1, 2),
}
TRANSLATED = [code for code in LANGUAGES if code != ENGLISH]


def catalog(language: str) -> Catalog:
    with (LOCALES / language / "LC_MESSAGES" / "messages.po").open("rb") as handle:
        return read_po(handle, locale=language)


def template() -> Catalog:
    with (LOCALES / "messages.pot").open("rb") as handle:
        return read_po(handle)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(f"<{tag}>")

    def handle_endtag(self, tag: str) -> None:
        self.tags.append(f"</{tag}>")


def tags(text: str) -> list[str]:
    """The HTML tags of a message, in order (parsed, not compared as text)."""
    parser = _Tags()
    parser.feed(text)
    parser.close()
    return parser.tags


def fields(text: str) -> set[str]:
    return set(re.findall(r"\{(\w*)\}", text))


def ids(message: object) -> tuple[str, ...]:
    raw = getattr(message, "id")  # noqa: B009 (a Message's id is a str or a tuple)
    return raw if isinstance(raw, tuple) else (raw,)


def strings(message: object) -> tuple[str, ...]:
    raw = getattr(message, "string")  # noqa: B009
    return raw if isinstance(raw, tuple) else (raw,)


def test_the_template_holds_every_sentence_in_the_source_and_no_other() -> None:
    found = {
        message if isinstance(message, str) else message[0]
        for _, _, message, *_ in extract_from_dir(
            str(ROOT / "bot"),
            method_map=[("**.py", "python")],
            keywords=KEYWORDS,
        )
    }
    listed = {ids(m)[0] for m in template() if m.id}
    assert found - listed == set(), "run ./dev i18n: sentences missing from the catalogs"
    assert listed - found == set(), "run ./dev i18n: sentences no longer in the source"


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_catalog_has_every_message_translated(language: str) -> None:
    translated = catalog(language)
    for message in template():
        if not message.id:
            continue
        entry = translated.get(message.id)
        assert entry is not None, f"{language}: missing {ids(message)[0]!r}"
        assert not entry.fuzzy, f"{language}: fuzzy {ids(message)[0]!r}"
        assert all(strings(entry)), f"{language}: untranslated {ids(message)[0]!r}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_translations_keep_the_placeholders_and_the_html_tags_of_english(language: str) -> None:
    for message in catalog(language):
        if not message.id:
            continue
        english = ids(message)
        allowed = set().union(*(fields(e) for e in english))
        for text in strings(message):
            assert tags(text) == tags(english[0]), (language, english[0], text)
            if len(english) == 1:
                assert fields(text) == fields(english[0]), (language, english[0], text)
            else:
                # A plural form may say "one" for {n}, never name a value English lacks.
                assert fields(text) <= allowed, (language, english[0], text)


BUTTON_MOST = 24
"""Characters a button label may take: two buttons to a row still fit a phone's width."""

LABELS_BY_NAME = {"🔄 As my Telegram app", "🔄 As the first host"}
"""Button labels the source builds before the button (the language menu's last row)."""


def button_labels() -> set[str]:
    """Every sentence the source passes to ``tr`` inside an ``InlineKeyboardButton(...)``,
    or as ``msg`` inside a screen's ``Button(...)`` (`bot.screens.seat_screen`)."""
    labels = set(LABELS_BY_NAME)
    for path in (ROOT / "bot").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("InlineKeyboardButton", "Button")
            ):
                continue
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Call)
                    and isinstance(inner.func, ast.Name)
                    and inner.func.id in ("tr", "msg")
                    and inner.args
                    and isinstance(inner.args[0], ast.Constant)
                    and isinstance(inner.args[0].value, str)
                ):
                    labels.add(inner.args[0].value)
    return labels


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_button_label_fits_a_phone_in_every_language(language: str) -> None:
    labels = button_labels()
    assert {"✋ Join", "▶ Start", "✋ Register", "📋 Cards played"} <= labels
    assert all(label in {ids(m)[0] for m in template() if m.id} for label in labels)
    tr = translator(language)
    for label in labels:
        shown = tr(label, seat="Alexandra", count=3, arrow="→", hand=12, day=1234)
        assert len(shown) <= BUTTON_MOST, (language, label, shown)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_plural_message_has_each_form_of_the_languages_plural_rule(language: str) -> None:
    translated = catalog(language)
    assert translated.num_plurals >= 1
    plurals = [m for m in translated if m.id and isinstance(m.id, tuple)]
    assert plurals, "the catalogs have sentences with counts"
    for message in plurals:
        assert len(strings(message)) == translated.num_plurals, (language, message.id)
    tr = translator(language)
    # Each count gets its own form, by the language's rule (Russian: 1, 2–4, 5–20, 21).
    for n in (1, 2, 5, 21):
        assert str(n) in tr.plural("{n} player", "{n} players", n)


def test_russian_counts_take_russian_plural_forms() -> None:
    tr = translator("ru")
    forms = {tr.plural("{n} player", "{n} players", n).replace(str(n), "") for n in (1, 3, 5)}
    assert len(forms) == 3


def test_a_missing_translation_falls_back_to_english_never_to_a_key() -> None:
    partial = catalog("ru")
    played = "Played {card}"
    del partial[played]
    out = io.BytesIO()
    write_mo(out, partial)
    tr = Tr("ru", gettext.GNUTranslations(io.BytesIO(out.getvalue())))
    assert tr(played, card="Q♠") == "Played Q♠"
    assert tr("That game is over.") == translator("ru")("That game is over.")
    assert tr("That game is over.") != "That game is over."
    # An unshipped language is English.
    assert translator("de")("That game is over.") == "That game is over."


def test_telegram_language_codes_map_to_the_shipped_languages() -> None:
    assert language_of("ru") == "ru"
    assert language_of("pt-br") == "pt_BR"
    assert language_of("pt") == "pt_BR"
    assert language_of("es-419") == "es"
    assert language_of("fa") == "fa"
    assert language_of("de") is None
    assert language_of(None) is None


def test_persian_isolates_every_value_so_names_and_numbers_keep_their_direction() -> None:
    tr = translator("fa")
    text = tr("Played {card}", card="Q♠")
    assert f"{FSI}Q♠{PDI}" in text
    counted = tr.plural("{n} player", "{n} players", 4)
    assert f"{FSI}4{PDI}" in counted
    assert FSI not in translator("es")("Played {card}", card="Q♠")


def test_a_said_message_is_english_when_printed_and_the_readers_language_when_said() -> None:
    said = Msg("Played {card}", {"card": "Q♠"})
    assert str(said) == "Played Q♠"
    assert translator("es")(said) != "Played Q♠"


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_chart_labels_use_a_font_that_has_the_languages_letters(language: str) -> None:
    from bot.screens.render import CHART_FONTS, chart_font

    if not any(os.path.exists(path) for path in CHART_FONTS.get(language, CHART_FONTS[""])):
        package = "fonts-lohit-deva" if language == "hi" else "fonts-dejavu-core"
        need_system_package(package, f"the chart's {language} labels")
    family = chart_font(language, 20).getname()[0] or ""
    assert ("Devanagari" if language == "hi" else "DejaVu") in family


KEYBOARD_DP = 340
"""An inline keyboard's width on a 360 px (dp) phone: the screen less the chat's margins."""


def label_dp(text: str) -> float:
    """A button label's width in dp as Telegram's apps draw it (about 14 sp, medium), by
    kind of character: an estimate that puts "🃏 Omnibus 10♦" and "⏱ •no timer" just past
    the room of three and four buttons to a row, where a 360 px phone cut them."""
    width = 0.0
    for char in text:
        code, kind = ord(char), unicodedata.category(char)
        if kind in ("Mn", "Me", "Cf") or 0xFE00 <= code <= 0xFE0F:
            continue  # joining marks, isolates, variation selectors: no width of their own
        if code >= 0x1F000 or char in "⏱⏰⌛⏸" or (0x2600 <= code <= 0x27BF and char not in "♠♥♦♣"):
            width += 18  # an emoji
        elif kind == "Mc":
            width += 4  # a Devanagari vowel sign
        elif char == " ":
            width += 3.5
        elif char in "•·.,:;!|il'ıj()[]":
            width += 4
        elif char.isdigit():
            width += 8
        elif 0x0600 <= code <= 0x06FF:
            width += 6.5  # Persian letters, joined
        elif 0x0900 <= code <= 0x097F:
            width += 9
        elif char.isupper():
            width += 9.5
        elif char in "mwMWшщжюыф":
            width += 11
        elif char.isalpha():
            width += 7.3
        else:
            width += 9  # ♠ ♥ ♦ ♣ + − and the like
    return width


def button_room_dp(buttons: int) -> float:
    """The width a label may take in a row of `buttons` (4 dp between buttons, 8 inside)."""
    return (KEYBOARD_DP - 4 * (buttons - 1)) / buttons - 16


def test_the_width_estimate_cuts_where_a_phone_did() -> None:
    tr = translator(ENGLISH)
    assert label_dp("🃏 Omnibus 10♦") > button_room_dp(3)  # shown as "Omnibus 1…"
    assert label_dp("⏱ •" + tr("no timer")) > button_room_dp(4)  # shown as "no tim…"
    assert label_dp("🎯 •100") < button_room_dp(4) and label_dp("✋ Join") < button_room_dp(2)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_rules_menu_label_fits_a_360_px_phone(language: str) -> None:
    """Issue 30.7: no label of the rules menu is cut, in any language, whatever is chosen."""
    from bot.tables.model import LEVELS, TIMERS, Table, TableOptions
    from bot.telegram import draw
    from engine import Rules

    tr = translator(language)
    variants = [
        Rules(),
        Rules().with_variant("two_player", None),
        Rules().with_variant("complex", None),
    ]
    for rules, timer, level in itertools.product(variants, TIMERS, LEVELS):
        for moon in ("choose", "add_to_others", "subtract_from_shooter"):
            table = Table(
                id=1,
                chat_id=-1,
                thread_id=None,
                chat_title="Hearts",
                creator_id=1,
                creator_name="Ana",
                rules=Rules.from_dict({**rules.to_dict(), "moon": moon}),
                options=TableOptions(turn_timer=timer, computer_level=level),
                seats=[None] * rules.players,
            )
            _, markup = draw.rules_menu(tr, table)
            for row in markup.inline_keyboard:
                for button in row:
                    width, room = label_dp(button.text), button_room_dp(len(row))
                    assert width <= room, (language, button.text, len(row), width, room)


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_language_says_you_one_way_on_the_page_and_in_the_chat(language: str) -> None:
    """Issue 30.7: Bob was "(ты)" in his chat and "(вы)" on the page."""
    tr = translator(language)
    you = tr("you")
    assert f"({you})" in tr("<b>{name}</b> (you)", name="Bob")
    formal = {"ru": r"\b(вы|вас|вам|ваш\w*)\b", "fa": r"(^|\s)شما(\s|$)", "hi": r"(?<!अपने )\bआप\b"}
    if language in formal:
        for message in catalog(language):
            if message.id:
                for text in strings(message):
                    assert not re.search(formal[language], text or "", re.I), (message.id, text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_help_lists_the_daily_deal_in_every_language(language: str) -> None:
    """/help has a line for /daily in every language, after /replay, the others kept."""
    from bot.screens.parts import PLAIN, say
    from bot.telegram.handlers import HELP

    english = say(translator(ENGLISH), HELP, PLAIN).splitlines()
    shown = say(translator(language), HELP, PLAIN).splitlines()
    assert len(shown) == len(english)
    commands = [re.findall(r"/\w+", line)[0] for line in shown[1:]]
    assert commands == [re.findall(r"/\w+", line)[0] for line in english[1:]]
    daily = commands.index("/daily")
    assert commands[daily - 1] == "/replay"
    assert len(shown[daily + 1]) > len("/daily — ") and shown[daily + 1].startswith("/daily")
