"""What the languages cost and how close they come to Telegram's limits.

    python -m bench i18n [--repeat 2000]

Prints, per shipped language: the time to load its catalog, one sentence's lookup, the
screens a card press redraws (a person's hand and the group's table, mid-hand at a table
of four), the score chart, and the longest sentence (in UTF-16 units, as Telegram counts)
and button label of the catalog.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from babel.messages.pofile import read_po

from bot.core.phases import Phase
from bot.i18n import LANGUAGES, LOCALES, translator
from bot.screens import render
from bot.screens.seat_screen import group_screen
from bot.tables.model import Seat, Table, TableOptions
from bot.telegram import draw
from engine import Game, Rules
from engine.players import make_player

NAMES = ("Александра", "María José", "مریم", "हेमा")


def table_mid_hand() -> Table:
    """A table of four people, five tricks into the first hand."""
    rules = Rules(players=4)
    table = Table(
        id=1,
        chat_id=-100,
        thread_id=None,
        chat_title="Hearts night",
        creator_id=1,
        creator_name=NAMES[0],
        rules=rules,
        options=TableOptions(),
        seats=[Seat("human", name, user_id=i + 1) for i, name in enumerate(NAMES)],
        phase=Phase.DEALT,
    )
    game = Game(rules, seed=7)
    players = [make_player("easy", s) for s in range(4)]
    for passer in game.waiting_for():
        game.pass_cards(passer, players[passer].choose_pass(game.view(passer), 0))
    while game.phase == "play" and len(game.view(0).hand) > 8:
        seat = game.current_player
        assert seat is not None
        game.play(seat, players[seat].choose_play(game.view(seat), 0))
    table.game = game
    return table


def per_call(repeat: int, work: Callable[[], object]) -> float:
    """Microseconds per call, the best of three runs."""
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        for _ in range(repeat):
            work()
        best = min(best, (time.perf_counter() - began) / repeat)
    return best * 1e6


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=2000)
    args = parser.parse_args()
    table = table_mid_hand()
    print(
        f"{'language':<9} {'load ms':>8} {'lookup µs':>10} {'hand µs':>8} "
        f"{'table µs':>9} {'chart ms':>9} {'longest':>8} {'label':>6}"
    )
    for code in LANGUAGES:
        print(row(code, table, args.repeat))
    print("longest: the longest sentence of the catalog (Telegram allows 4096 in a message)")
    print("label: the longest button label as rendered in the hand (its 13 cards and Pass)")


def row(code: str, table: Table, repeat: int) -> str:
    """One language's figures."""
    translator.cache_clear()
    began = time.perf_counter()
    tr = translator(code)
    load = (time.perf_counter() - began) * 1e3
    lookup = per_call(repeat * 10, lambda: tr("Played {card}", card="Q♠"))
    hand = per_call(repeat, lambda: draw.dm(tr, table, 0))
    screen = per_call(repeat, lambda: draw.group(tr, group_screen(table), "hearts_bot"))
    chart = per_call(3, lambda: render.score_chart_png(tr, table)) / 1e3
    longest, label = longest_texts(code)
    return (
        f"{code:<9} {load:>8.2f} {lookup:>10.2f} {hand:>8.0f} {screen:>9.0f} "
        f"{chart:>9.1f} {longest:>8} {label:>6}"
    )


def longest_texts(code: str) -> tuple[int, int]:
    """The longest sentence of the language's catalog and the longest label of a hand."""
    if code == "en":
        path = LOCALES / "messages.pot"
    else:
        path = LOCALES / code / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as handle:
        catalog = read_po(handle)
    texts: list[str] = []
    for message in catalog:
        if not message.id:
            continue
        chosen = message.string if code != "en" else message.id
        if isinstance(chosen, str):
            texts.append(chosen)
        elif chosen:  # a sentence's plural forms
            texts.extend(str(form) for form in chosen)
    tr = translator(code)
    _, markup = draw.dm(tr, table_mid_hand(), 0)
    labels = [b.text for row in markup.inline_keyboard for b in row] if markup else []
    return max(utf16(t) for t in texts), max(map(len, labels), default=0)


if __name__ == "__main__":
    main()
