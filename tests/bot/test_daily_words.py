"""The daily deal's words (issue 34) in every shipped language: each sentence of
`bot.daily.daily`, its ``/daily`` refusals and its commands' descriptions translated, its
values kept, and a board's names and numbers isolated in right-to-left Persian."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bot.i18n import ENGLISH, FSI, LANGUAGES, Msg, translator
from bot.screens.parts import HTML, Name, Number, say

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = [code for code in LANGUAGES if code != ENGLISH]
SAME_EVERYWHERE = {"{hand}. <code>{seed}</code> 🔐 <code>{commitment}</code>"}


def sentences(path: Path, names: tuple[str, ...] = ("msg",)) -> list[str]:
    """The English sentences a module says (its ``msg("…")`` and ``mark("…")`` calls)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in names
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.append(node.args[0].value)
    return found


DAILY = sentences(ROOT / "bot/daily/daily.py")
REFUSAL = "Reviews of the daily deal open when the day is over."
MENU = [
    s
    for s in sentences(ROOT / "bot/app.py", ("mark",))
    if "daily deal" in s  # the commands' descriptions
]


def test_the_daily_sentences_are_found() -> None:
    assert len(DAILY) >= 12 and len(MENU) == 2
    assert REFUSAL in sentences(ROOT / "bot/core/commands.py")


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_daily_sentence_is_translated_with_its_values(language: str) -> None:
    tr, english = translator(language), translator(ENGLISH)
    values = {
        "day": 332,
        "score": Number(0.625, "percent"),
        "place": 2,
        "count": 7,
        "row": "🟩0 🟥13",
        "days": 3,
        "rank": 1,
        "name": Name("Ann"),
        "hands": 4,
        "all": 4,
        "hand": 1,
        "seed": "4p-d2-ab",
        "commitment": "cd",
        "first": 300,
        "last": 329,
    }
    for sentence in [*DAILY, REFUSAL, *MENU]:
        used = {k: v for k, v in values.items() if "{" + k + "}" in sentence}
        said = say(tr, Msg(sentence, used), HTML)
        if sentence not in SAME_EVERYWHERE:
            assert said != say(english, Msg(sentence, used), HTML), (language, sentence)
        for key, value in used.items():
            if key == "score":
                assert "62" in said or "۶۲" in said or "६२" in said, (language, said)
            elif key == "name":
                assert "Ann" in said
            elif not isinstance(value, int):
                assert str(value) in said, (language, sentence, said)


def test_a_board_line_in_persian_keeps_the_names_and_numbers_apart() -> None:
    tr = translator("fa")
    line = say(
        tr,
        Msg(
            "{rank}. {name} — {score} ({hands}/{all} hands)",
            {"rank": 1, "name": Name("Ann"), "score": Number(0.5, "percent"), "hands": 4, "all": 4},
        ),
        HTML,
    )
    assert FSI + "Ann" in line or f"{FSI}" in line
