"""The Telegram adapter's drawing: a `SeatScreen` as a DM's HTML text and inline keyboard,
the group's `GroupScreen` and every `Words` (the lobby, the rules menu, results, notices)
as a message and its buttons.

The screens are data made in `bot.screens.seat_screen` and `bot.screens.render`; their
sentences are written here in Telegram's HTML (`bot.screens.parts.HTML`), and what a button
does becomes its callback data (a press writes its own: `bot.core.decode`) or a link: the
only place a screen's typed action meets Telegram's wire.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from urllib.parse import urlencode

from telegram import CopyTextButton, InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.core.effects import Urgency
from bot.i18n import Tr
from bot.screens import render
from bot.screens.parts import HTML, PLAIN, SUIT_ORDER, Part, say
from bot.screens.seat_screen import (
    Button,
    CopyText,
    GroupScreen,
    HandCard,
    OpenDm,
    OpenDmToSit,
    OpenTable,
    SeatScreen,
    ShareInline,
    WatchTable,
    Words,
    seat_screen,
)
from bot.tables.model import Table
from bot.telegram.pace import ACTING, EDIT, IDLE, MOVED, PLAYED

MAX_ROW = 7
MARKED_ROW = 5
"""Card buttons in a row while a label may carry a mark (``[Q♠]`` chosen to pass, ``•Q♠``
received): a marked label is wider than a bare card, and a phone 360 px wide cut "•K♦" to
"•…" in a row of six. The rows keep this width for the whole pass and first trick, so
they never move under a finger choosing cards."""

PRIORITY: dict[Urgency, int] = {
    Urgency.NOW: ACTING,
    Urgency.PLAYED: PLAYED,
    Urgency.MOVED: MOVED,
    Urgency.EDIT: EDIT,
    Urgency.IDLE: IDLE,
}
"""How soon a screen goes, as the outbox's pacing priorities (`bot.telegram.pace`): the one
place an `Urgency` (the core's, `bot.core.effects`) becomes a priority."""


# ---------------------------------------------------------------- a seat's DM


def dm(
    tr: Tr, table: Table, seat: int, *, webapp: str | None = None
) -> tuple[str, InlineKeyboardMarkup | None]:
    """One player's living DM message: the table from their seat and their cards;
    `webapp`: the table page's address, opened by a button under the cards."""
    return seat_dm(tr, seat_screen(table, seat, page=webapp is not None), webapp)


def seat_dm(
    tr: Tr, screen: SeatScreen, webapp: str | None = None
) -> tuple[str, InlineKeyboardMarkup | None]:
    """A `SeatScreen` as a DM: its lines in HTML, its cards by suit, then its buttons."""
    text = "\n".join(say(tr, line, HTML) for line in screen.lines)
    rows = [[_button(tr, screen, b, webapp) for b in group] for group in screen.actions]
    if screen.phase == "over":
        return text, InlineKeyboardMarkup(rows) if rows else None
    return text, InlineKeyboardMarkup(_card_rows(tr, screen) + rows)


def _button(tr: Tr, screen: SeatScreen, button: Button, webapp: str | None) -> InlineKeyboardButton:
    label = say(tr, button.label, PLAIN)
    match button.action:
        case OpenTable():
            assert webapp is not None
            return InlineKeyboardButton(
                label, web_app=WebAppInfo(f"{webapp}?{urlencode({'g': screen.game})}")
            )
        case OpenDm() | OpenDmToSit() | WatchTable() | CopyText() | ShareInline():
            raise ValueError(f"not a DM's button: {button.action}")
        case pressed:
            return InlineKeyboardButton(label, callback_data=pressed.encode())


STRUCK = "\u0336"
"""The combining long stroke: a card that may not be played now has its rank struck
through (``Q̶♠``), as Windows Hearts greys it out. It takes no width of its own, so the rows
stay as they are on the reader's turn, and it is the same in every language."""


def card_label(tr: Tr, card: HandCard, fresh: bool, barred: bool = False) -> str:
    """A card button's label: ``[Q♠]`` chosen to pass, ``•Q♠`` just received (in rows of
    at most `MARKED_ROW`, so every label shows whole on a phone); `barred`: on the
    reader's turn, a card the rules do not let them play now (``Q̶♠``)."""
    symbol = card.card.symbol
    if barred:
        rank, suit = symbol[:-1], symbol[-1]
        symbol = "".join(c + STRUCK for c in rank) + suit
    if card.chosen:
        return tr("[{card}]", card=symbol)
    if fresh:
        return tr("•{card}", card=symbol)
    return symbol


def _card_rows(tr: Tr, screen: SeatScreen) -> list[list[InlineKeyboardButton]]:
    # Received cards stay marked until the first trick is complete.
    marked = screen.phase != "pass" and any(c.received for c in screen.cards)
    # On the reader's turn (and only then) the cards they may play are the ones not struck.
    turn = screen.phase == "play" and any(c.legal for c in screen.cards)
    # Cards passed are gone from the hand as far as the reader is concerned (the engine
    # keeps them until everyone has passed): no longer buttons, named in the text instead.
    gone = set(screen.passed)
    rows: list[list[InlineKeyboardButton]] = []
    by_suit: dict[str, list[HandCard]] = {s: [] for s in SUIT_ORDER}
    for card in screen.cards:
        if card.card not in gone:
            by_suit[card.card.suit].append(card)
    for suit in SUIT_ORDER:
        buttons = [
            InlineKeyboardButton(
                card_label(tr, card, marked and card.received, turn and not card.legal),
                callback_data=card.tap.encode(),
            )
            for card in by_suit[suit]
        ]
        if screen.phase == "pass" or marked:
            rows.extend(_balanced(buttons, MARKED_ROW))
        else:
            rows.extend(buttons[i : i + MAX_ROW] for i in range(0, len(buttons), MAX_ROW))
    return _no_lone_card(rows, MARKED_ROW if screen.phase == "pass" or marked else MAX_ROW)


def _no_lone_card(
    rows: list[list[InlineKeyboardButton]], most: int
) -> list[list[InlineKeyboardButton]]:
    """A row of one card would be one button as wide as the chat: it joins the row before it
    (or else the one after) where that row has room for it. By the cards' counts alone, so
    choosing a card to pass never moves a button."""
    packed: list[list[InlineKeyboardButton]] = []
    for i, row in enumerate(rows):
        if len(row) == 1 and packed and len(packed[-1]) < most:
            packed[-1] = [*packed[-1], *row]
        elif len(row) == 1 and i + 1 < len(rows) and len(rows[i + 1]) < most:
            rows[i + 1] = [*row, *rows[i + 1]]
        else:
            packed.append(row)
    return packed


def _balanced(buttons: list[InlineKeyboardButton], most: int) -> list[list[InlineKeyboardButton]]:
    """`buttons` in as few rows of at most `most` as can hold them, as even as can be (six
    cards: three and three, not five and one)."""
    if not buttons:
        return []
    count = math.ceil(len(buttons) / most)
    size = math.ceil(len(buttons) / count)
    return [buttons[i : i + size] for i in range(0, len(buttons), size)]


# ---------------------------------------------------------------- the group's messages


def words(tr: Tr, screen: Words, bot_username: str = "") -> tuple[str, InlineKeyboardMarkup | None]:
    """A message of sentences (the lobby, the rules menu, a result, a notice, a line in a
    DM) in HTML, its buttons in their rows; `bot_username`: whose DM a link opens."""
    text = "\n".join(say(tr, line, HTML) for line in screen.lines)
    rows = [[_group_button(tr, screen.game, b, bot_username) for b in row] for row in screen.rows]
    return text, InlineKeyboardMarkup(rows) if rows else None


def lines(tr: Tr, said: Sequence[Part]) -> str:
    """Lines of sentences (``/scores``, ``/stats``, ``/rules``) as one message's HTML."""
    return "\n".join(say(tr, line, HTML) for line in said)


def lobby(tr: Tr, table: Table) -> tuple[str, InlineKeyboardMarkup]:
    """The lobby and its buttons (`bot.screens.render.lobby_screen`)."""
    text, markup = words(tr, render.lobby_screen(table))
    assert markup is not None
    return text, markup


def rules_menu(tr: Tr, table: Table) -> tuple[str, InlineKeyboardMarkup]:
    """The host's rules menu and its rows of buttons (`bot.screens.render.rules_screen`)."""
    text, markup = words(tr, render.rules_screen(table))
    assert markup is not None
    return text, markup


def group(
    tr: Tr, screen: GroupScreen, bot_username: str
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The group's table message: its lines, and under them the DM and the table page
    while the game is played, 🔁 New game once it is over (not at a tournament)."""
    text = "\n".join(say(tr, line, HTML) for line in screen.lines)
    row = [
        _group_button(tr, screen.game, button, bot_username)
        for button in screen.actions
        if not isinstance(button.action, CopyText | WatchTable)
    ]
    # 👀 Watch on a row of its own: three labels in one row are cut on a phone.
    watch = [
        _group_button(tr, screen.game, button, bot_username)
        for button in screen.actions
        if isinstance(button.action, WatchTable)
    ]
    # The deal's commitment, copied whole, on a row of its own (its label is not cut).
    copy = [
        InlineKeyboardButton(say(tr, button.label, PLAIN), copy_text=CopyTextButton(action.text))
        for button in screen.actions
        if isinstance(action := button.action, CopyText)
    ]
    rows = [r for r in (row, watch, copy) if r]
    return text, InlineKeyboardMarkup(rows) if rows else None


def _group_button(tr: Tr, g: int, button: Button, bot_username: str) -> InlineKeyboardButton:
    label = say(tr, button.label, PLAIN)
    url = f"https://t.me/{bot_username}"
    match button.action:
        case CopyText(text):
            return InlineKeyboardButton(label, copy_text=CopyTextButton(text))
        case OpenDm():
            return InlineKeyboardButton(label, url=url)
        case OpenDmToSit(token):
            return InlineKeyboardButton(label, url=f"{url}?start=j{token}")
        case ShareInline(query):
            return InlineKeyboardButton(label, switch_inline_query=query)
        case OpenTable():
            # The bot's main Mini App (set in @BotFather), opened at this table.
            return InlineKeyboardButton(label, url=f"{url}?startapp=g{g}")
        case WatchTable():
            # The same Mini App as a watcher: it seats nobody (a player gets their seat).
            return InlineKeyboardButton(label, url=f"{url}?startapp=w{g}")
        case pressed:
            return InlineKeyboardButton(label, callback_data=pressed.encode())
