"""The parts a screen's sentences are made of, and the two ways they are written.

A sentence is a `Msg` (its message id and values); a value, or a line of its own, is a
`Part`: text that needs no translating (a card, a score), a whole number, a person's
`Name`, a `Strong` (emphasised) part, parts `Joined`, a part kept in its own direction
(`Isolated`), a value put into its sentence as it is (`Bare`) or a `Number` written as the
reader's language writes it. Nothing here is
HTML until `say` writes it: `HTML` for Telegram (names escaped, ``<b>`` kept), `PLAIN`
for what shows text as it is (the table page, a button's label).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Literal, Protocol

from bot.i18n import Msg, Tr, isolated_name
from engine import magnitude_squared
from engine.cards import SHOWN_SUITS
from engine.scoring import Score

ARROWS = {"left": "→", "right": "→", "across": "→", "hold": ""}
"""One arrow convention on every screen: what goes → to whom (a pass's cards → their
receiver, whatever the direction: "Pass 3 cards ← Grace" read as "from Grace"; a trick's
cards → who took it; a replay's pass, giver → receiver). The direction is said in words."""
SUIT_ORDER = tuple(SHOWN_SUITS)
"""The suits in the order every screen shows them (`engine.cards.shown_order`)."""


@dataclass(frozen=True)
class Name:
    """A name (a person's, a computer's, a group's): shown isolated, never trusted."""

    name: str


@dataclass(frozen=True)
class Strong:
    part: Part


@dataclass(frozen=True)
class Joined:
    parts: tuple[Part, ...]
    separator: str = " · "


@dataclass(frozen=True)
class Isolated:
    """A part that keeps its own direction in right-to-left text."""

    part: Part


@dataclass(frozen=True)
class Bare:
    """A sentence's value put in as it is, not isolated as a whole (a list whose items
    keep their own direction: the rating changes)."""

    part: Part


@dataclass(frozen=True)
class Number:
    """A number as the reader's language writes it: to one decimal place, a percent, a
    change (+18, −7, ±0), or a whole number (1,312)."""

    value: float
    kind: Literal["decimal", "percent", "signed", "whole"] = "decimal"


@dataclass(frozen=True)
class Text:
    """A part written as plain text, then made safe for the screen (a sentence without a
    name or emphasis put into HTML: the rules' summary)."""

    part: Part


Part = str | int | Msg | Name | Strong | Joined | Isolated | Bare | Number | Text


class Writing(Protocol):
    """How the parts of a sentence are written for one kind of screen."""

    def name(self, name: str) -> str: ...

    def strong(self, text: str) -> str: ...

    def text(self, text: str) -> str:
        """Plain text made safe for this writing."""
        ...

    def sentence(self, tr: Tr, said: Msg) -> str:
        """`said` in `tr`'s language, its values written already."""
        ...


class _Html:
    """Telegram's HTML: a name escaped and isolated, emphasis in ``<b>``."""

    def name(self, name: str) -> str:
        return isolated_name(html.escape(name, quote=False))

    def strong(self, text: str) -> str:
        return f"<b>{text}</b>"

    def text(self, text: str) -> str:
        return html.escape(text, quote=False)

    def sentence(self, tr: Tr, said: Msg) -> str:
        return tr(said)


class _Plain:
    """Text shown as it is: a name isolated, no emphasis (a sentence's own emphasis marks
    left out: `Tr.unmarked`)."""

    def name(self, name: str) -> str:
        return isolated_name(name)

    def strong(self, text: str) -> str:
        return text

    def text(self, text: str) -> str:
        return text

    def sentence(self, tr: Tr, said: Msg) -> str:
        return tr.unmarked(said)


HTML: Writing = _Html()
PLAIN: Writing = _Plain()


def say(tr: Tr, part: Part, writing: Writing) -> str:
    """A part of a screen in `tr`'s language, written by `writing`."""
    if isinstance(part, str):
        return part
    if isinstance(part, int):
        return str(part)
    if isinstance(part, Msg):
        values = {k: _value(tr, v, writing) for k, v in part.values.items()}
        return writing.sentence(tr, Msg(part.message, values, part.plural, part.n))
    if isinstance(part, Name):
        return writing.name(part.name)
    if isinstance(part, Strong):
        return writing.strong(say(tr, part.part, writing))
    if isinstance(part, Joined):
        return part.separator.join(say(tr, p, writing) for p in part.parts)
    if isinstance(part, Isolated):
        return tr.isolate(say(tr, part.part, writing))
    if isinstance(part, Text):
        return writing.text(say(tr, part.part, PLAIN))
    if isinstance(part, Bare):
        return say(tr, part.part, writing)
    if part.kind == "percent":
        return percent(tr, part.value)
    if part.kind == "signed":
        return tr.signed(int(part.value))
    if part.kind == "whole":
        return tr.number(int(part.value))
    return tr.decimal(part.value)


def _value(tr: Tr, value: object, writing: Writing) -> object:
    """A sentence's value as `Tr` takes it: a number as it is (`Tr` isolates it), any other
    part written first."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if isinstance(value, Bare):
        written = say(tr, value.part, writing)
        return lambda _: written  # `Tr` isolates a text value, never a `Say`'s
    if isinstance(value, str | Msg | Name | Strong | Joined | Isolated | Number | Text):
        return say(tr, value, writing)
    return value


def percent(tr: Tr, chance: float) -> str:
    from babel.numbers import format_percent

    text = format_percent(round(chance, 2), locale=tr.language, numbering_system="default")
    return tr.isolate(text)


def format_score(score: Score) -> str:
    """``12``, ``−10``, ``12+13i``, ``26i``: the way RULES.md §5 writes scores."""
    if isinstance(score, complex):
        re, im = round(score.real), round(score.imag)
        if im == 0:
            text = str(re)
        elif re == 0:
            text = f"{im}i"
        else:
            text = f"{re}{'+' if im > 0 else '-'}{abs(im)}i"
        return text.replace("-", "−")
    return str(score).replace("-", "−")


def format_total(score: Score) -> str:
    """A total, with its magnitude beside it for Complex Hearts."""
    if isinstance(score, complex) and round(score.real) != 0 and round(score.imag) != 0:
        return f"{format_score(score)} |z| {magnitude_squared(score) ** 0.5:.1f}"
    return format_score(score)  # 0, 12 or 26i: its magnitude is plain to see
