"""Every sentence in the reader's language: gettext catalogs, managed with Babel.

The English sentence is the message id, written where it is used: ``tr("Played {card}",
card=...)``. `Tr` is one language's translator; each screen is made with the `Tr` of
whoever reads it (`bot.languages` says who reads what). A sentence a language has not
translated is English, never a key.

Catalogs live in ``bot/locales/<language>/LC_MESSAGES/messages.po``; ``./dev`` compiles
them (``pybabel compile``) and ``./dev i18n`` extracts and updates them (see the README).
Placeholders are named (``{card}``); counts go through `Tr.plural`, which picks the form
by the language's own plural rule and passes the count as ``{n}``.
"""

from __future__ import annotations

import functools
import gettext
import io
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

log = logging.getLogger(__name__)

LOCALES: Final = Path(__file__).resolve().parent / "locales"
DOMAIN: Final = "messages"

ENGLISH: Final = "en"
LANGUAGES: Final[dict[str, str]] = {
    "en": "English",
    "es": "Español",
    "pt_BR": "Português (Brasil)",
    "ru": "Русский",
    "fa": "فارسی",
    "hi": "हिन्दी",
}
"""The shipped languages, each with its own name (how the /language buttons read)."""

RIGHT_TO_LEFT: Final = frozenset({"fa"})

FSI, PDI, LRI = "\u2068", "\u2069", "\u2066"
"""Unicode isolates: a name or a number set inside right-to-left text keeps its own
direction, and does not flip the words around it."""

BIDI_CONTROLS: Final = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Unicode's Bidi_Control characters: embeddings, overrides, isolates and the marks. In a
name they can only do harm (an unpaired U+202E reverses the rest of the message)."""

_NO_BIDI_CONTROLS: Final = dict.fromkeys(map(ord, BIDI_CONTROLS))


def plain_name(name: str) -> str:
    """A name as people typed it, without bidi controls (see `BIDI_CONTROLS`); where a
    name enters the bot (a Telegram user, a page's hello), so none is ever stored."""
    return name.translate(_NO_BIDI_CONTROLS).strip() or "?"


def isolated_name(name: str) -> str:
    """A name ready to put into any message, in every language: `plain_name` inside
    FSI…PDI, so its own direction never spills onto the words after it (a Persian name in
    an English line, an Arabic one before a score); names stored before the controls were
    stripped at the door are cleaned here too."""
    return _isolate(plain_name(name))


def language_of(code: str | None) -> str | None:
    """The shipped language for a Telegram ``language_code`` (``"pt-br"``, ``"ru"``), or
    None when none fits."""
    if not code:
        return None
    code = code.strip().replace("-", "_")
    base = code.split("_")[0].lower()
    if base == "pt":
        return "pt_BR"  # Telegram's Portuguese speakers get Brazilian Portuguese
    return base if base in LANGUAGES else None


def mark(text: str) -> str:
    """Marks a sentence for extraction where it is written, translated where it is shown
    (``tr(message)`` with the message kept in a table)."""
    return text


def plural_mark(singular: str, plural: str) -> tuple[str, str]:
    """`mark` for a sentence with a count."""
    return singular, plural


@dataclass(frozen=True)
class Msg:
    """A sentence to be said later, in the language of whoever reads it: a refusal raised
    deep in the tables becomes a toast in the presser's language."""

    message: str
    values: dict[str, object] = field(default_factory=dict)
    plural: str | None = None
    n: int = 0

    def __str__(self) -> str:
        return english()(self)


NOTHING = Msg("")
"""Nothing to say (a press answered without a toast)."""


def msg(message: str, /, **values: object) -> Msg:
    """A sentence to say later (see `Msg`)."""
    return Msg(message, values)


def msg_plural(singular: str, plural: str, n: int, /, **values: object) -> Msg:
    """A sentence with a count to say later."""
    return Msg(singular, values, plural, n)


class Tr:
    """One language's sentences: ``tr(message, **values)``, ``tr.plural(one, many, n)``."""

    def __init__(self, language: str, translations: gettext.NullTranslations) -> None:
        self.language = language
        self.rtl = language in RIGHT_TO_LEFT
        self._translations = translations

    def __call__(self, message: str | Msg, /, **values: object) -> str:
        if isinstance(message, Msg):
            if message.plural is not None:
                return self.plural(message.message, message.plural, message.n, **message.values)
            values = {**message.values, **values}
            message = message.message
        if not message:
            return ""  # nothing to say (gettext would give the catalog's header)
        text = self._translations.gettext(message)
        return text.format(**self._said(values)) if values else text

    def unmarked(self, said: Msg) -> str:
        """`said` as plain text, for what shows text as it is (the table page, a button's
        label): the sentence's marks (``<b>``…``</b>``, and ``<code>``…``</code>`` around a
        deal's commitment: the only markup a screen's sentences carry in the catalogs) left
        out of it; its values are put in as they are."""
        if said.plural is not None:
            text = self._translations.ngettext(said.message, said.plural, said.n)
            values: dict[str, object] = {"n": said.n, **said.values}
        elif not said.message:
            return ""
        else:
            text, values = self._translations.gettext(said.message), said.values
        for mark in ("<b>", "</b>", "<code>", "</code>"):
            text = text.replace(mark, "")
        return text.format(**self._said(values)) if values else text

    def plural(self, singular: str, plural: str, n: int, /, **values: object) -> str:
        """The form of the sentence for `n` (``{n}`` in it is the count)."""
        text = self._translations.ngettext(singular, plural, n)
        return text.format(**self._said({"n": n, **values}))

    def number(self, n: int) -> str:
        """A whole number as this language writes it (1,312 · 1.312 · ۱٬۳۱۲)."""
        from babel.numbers import format_decimal

        return self.isolate(format_decimal(n, locale=self.language, numbering_system="default"))

    def decimal(self, x: float) -> str:
        """A number to one decimal place as this language writes it (3.1 · 3,1 · ۳٫۱)."""
        from babel.numbers import format_decimal

        value = round(x, 1) + 0.0  # never "-0.0"
        text = format_decimal(value, "0.0", locale=self.language, numbering_system="default")
        return self.isolate(text)

    def signed(self, n: int) -> str:
        """A change: +18, −7 (a true minus sign), ±0."""
        sign = "+" if n > 0 else "\u2212" if n < 0 else "±"
        return self.isolate(sign + self.number(abs(n)).strip(FSI + PDI))

    def isolate(self, text: str) -> str:
        """A name, a card or a number that keeps its own direction in RTL text (every value
        put into a sentence is isolated so; text built outside a sentence calls this)."""
        return _isolate(text) if self.rtl and text else text

    def join(self, items: list[str]) -> str:
        """``A, B and C`` in this language."""
        if len(items) <= 1:
            return "".join(items)
        return self("{items} and {last}", items=", ".join(items[:-1]), last=items[-1])

    def _said(self, values: dict[str, object]) -> dict[str, object]:
        out: dict[str, object] = {}
        for key, value in values.items():
            if isinstance(value, Msg):
                out[key] = self(value)
            elif callable(value):
                out[key] = value(self)  # a `Say`: a value made in this language
            elif isinstance(value, int | float | str) and not isinstance(value, bool):
                out[key] = self.isolate(str(value))
            else:
                out[key] = value
        return out


def _isolate(text: str) -> str:
    """`text` inside FSI…PDI, unless all of it is one isolate already (an
    `isolated_name`): never a second one around it."""
    return text if _isolated(text) else f"{FSI}{text}{PDI}"


def _isolated(text: str) -> bool:
    """Whether all of `text` is one isolate already."""
    if not text.startswith(FSI) or not text.endswith(PDI):
        return False
    depth = 0
    for i, char in enumerate(text):
        if char in (FSI, LRI, "\u2067"):
            depth += 1
        elif char == PDI:
            depth -= 1
            if depth == 0:
                return i == len(text) - 1
    return False


Say = Callable[["Tr"], str]
"""A text made in the language of whoever reads it (a composed message; a single sentence
is a `Msg`)."""


@functools.cache
def translator(language: str) -> Tr:
    """The translator for a shipped language (English for any other)."""
    if language not in LANGUAGES or language == ENGLISH:
        return Tr(ENGLISH, gettext.NullTranslations())
    return Tr(language, _load(language))


def english() -> Tr:
    return translator(ENGLISH)


def _load(language: str) -> gettext.NullTranslations:
    folder = LOCALES / language / "LC_MESSAGES"
    compiled, source = folder / f"{DOMAIN}.mo", folder / f"{DOMAIN}.po"
    if compiled.exists() and (
        not source.exists() or compiled.stat().st_mtime >= source.stat().st_mtime
    ):
        with compiled.open("rb") as handle:
            return gettext.GNUTranslations(handle)
    if not source.exists():
        log.warning("no catalog for %s: its readers get English", language)
        return gettext.NullTranslations()
    # Not compiled (or older than its source): compile it in memory, and say so.
    log.warning("%s is not compiled (pybabel compile -d bot/locales): compiling it now", source)
    return gettext.GNUTranslations(io.BytesIO(compile_catalog(source)))


def compile_catalog(source: Path) -> bytes:
    """A ``.po`` file as the bytes of its ``.mo`` (Babel's own reader and writer)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with source.open("rb") as handle:
        catalog = read_po(handle)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()
