"""The Telegram adapter's drawing: a `SeatScreen` as a DM's HTML text and inline keyboard,
and the buttons of the group's messages (the lobby, the rules menu, the table's message).

Texts come from `bot.tables.render` and `bot.tables.seat_screen` (in Telegram's HTML,
through `bot.tables.parts.HTML`); what a button does becomes its callback data here
(`bot.telegram.callbacks`), the only place a screen's typed action meets Telegram's wire.
"""

from __future__ import annotations

import math
from urllib.parse import urlencode

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.core.effects import Urgency
from bot.i18n import Tr
from bot.tables import render
from bot.tables.model import Table
from bot.tables.parts import HTML, PLAIN, SUIT_ORDER, say
from bot.tables.seat_screen import (
    AskHint,
    Button,
    ChooseMoon,
    HandCard,
    NewGame,
    OpenDm,
    OpenTable,
    PassCards,
    Review,
    SeatScreen,
    TapCard,
    ToggleTracker,
    seat_screen,
)
from bot.telegram import callbacks as cb
from bot.telegram.pace import EDIT, IDLE, MOVED, PLAYED, URGENT

MAX_ROW = 7
MARKED_ROW = 5
"""Card buttons in a row while a label may carry a mark (``[Q♠]`` chosen to pass, ``•Q♠``
received): a marked label is wider than a bare card, and a phone 360 px wide cut "•K♦" to
"•…" in a row of six. The rows keep this width for the whole pass and first trick, so
they never move under a finger choosing cards."""

PRIORITY: dict[Urgency, int] = {
    Urgency.NOW: URGENT,
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
    g, hand = screen.game, screen.hand
    match button.action:
        case OpenTable():
            assert webapp is not None
            return InlineKeyboardButton(
                label, web_app=WebAppInfo(f"{webapp}?{urlencode({'g': g})}")
            )
        case TapCard(card):
            data = cb.button(cb.CARD, g, hand, card.code)
        case PassCards():
            data = cb.button(cb.PASS, g, hand)
        case ChooseMoon(choice):
            data = cb.button(cb.MOON, g, hand, "s" if choice == "subtract" else "a")
        case ToggleTracker():
            data = cb.button(cb.TRACKER, g, hand)
        case AskHint():
            data = cb.button(cb.HINT, g, hand)
        case Review(reviewed):
            data = cb.button(cb.REVIEW, g, reviewed)
        case OpenDm() | NewGame():
            raise ValueError(f"not a DM's button: {button.action}")
    return InlineKeyboardButton(label, callback_data=data)


def card_label(tr: Tr, card: HandCard, fresh: bool) -> str:
    """A card button's label: ``[Q♠]`` chosen to pass, ``•Q♠`` just received (in rows of
    at most `MARKED_ROW`, so every label shows whole on a phone)."""
    if card.chosen:
        return tr("[{card}]", card=card.card.symbol)
    if fresh:
        return tr("•{card}", card=card.card.symbol)
    return card.card.symbol


def _card_rows(tr: Tr, screen: SeatScreen) -> list[list[InlineKeyboardButton]]:
    # Received cards stay marked until the first trick is complete.
    marked = screen.phase != "pass" and any(c.received for c in screen.cards)
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
                card_label(tr, card, marked and card.received),
                callback_data=cb.button(cb.CARD, screen.game, screen.hand, card.card.code),
            )
            for card in by_suit[suit]
        ]
        if screen.phase == "pass" or marked:
            rows.extend(_balanced(buttons, MARKED_ROW))
        else:
            rows.extend(buttons[i : i + MAX_ROW] for i in range(0, len(buttons), MAX_ROW))
    return rows


def _balanced(buttons: list[InlineKeyboardButton], most: int) -> list[list[InlineKeyboardButton]]:
    """`buttons` in as few rows of at most `most` as can hold them, as even as can be (six
    cards: three and three, not five and one)."""
    if not buttons:
        return []
    count = math.ceil(len(buttons) / most)
    size = math.ceil(len(buttons) / count)
    return [buttons[i : i + size] for i in range(0, len(buttons), size)]


# ---------------------------------------------------------------- the group's messages


def lobby(tr: Tr, table: Table) -> tuple[str, InlineKeyboardMarkup]:
    """The lobby and its buttons: join, leave, a computer, rules, start, cancel, and the
    host's ✖ for each seat but their own."""
    g = table.id
    keyboard = [
        [
            InlineKeyboardButton(tr("✋ Join"), callback_data=cb.button(cb.JOIN, g)),
            InlineKeyboardButton(tr("🚪 Leave"), callback_data=cb.button(cb.LEAVE, g)),
        ],
        [
            InlineKeyboardButton(
                tr("🤖 Add computer"), callback_data=cb.button(cb.ADD_COMPUTER, g)
            ),
            InlineKeyboardButton(tr("⚙ Rules"), callback_data=cb.button(cb.RULES, g)),
        ],
        [
            InlineKeyboardButton(tr("▶ Start"), callback_data=cb.button(cb.START, g)),
            InlineKeyboardButton(tr("✖ Cancel"), callback_data=cb.button(cb.CANCEL, g)),
        ],
    ]
    # The host can empty any seat but their own ("✖ 2" empties seat 2).
    removable = [
        InlineKeyboardButton(
            tr("✖ {seat}", seat=n + 1), callback_data=cb.button(cb.KICK, g, 0, str(n))
        )
        for n, seat in enumerate(table.seats)
        if seat is not None and seat.user_id != table.creator_id
    ]
    if removable:
        keyboard.append(removable)
    return render.lobby_text(tr, table), InlineKeyboardMarkup(keyboard)


def rules_menu(tr: Tr, table: Table) -> tuple[str, InlineKeyboardMarkup]:
    """The host's menu, with a row of buttons for each option that applies to the variant,
    each marked with the option's icon ("🎯 •100")."""
    current = render.current_rule_values(table)
    keyboard: list[list[InlineKeyboardButton]] = []
    for option in render.rule_options(table.rules):
        icon = render.RULE_ICONS[option]
        row: list[InlineKeyboardButton] = []
        for value in render.RULE_CHOICES[option]:
            text = render.choice_label(tr, option, value)
            if value == current[option]:
                text = f"•{text}"
            row.append(
                InlineKeyboardButton(
                    f"{icon} {text}",
                    callback_data=cb.button(cb.SET_RULE, table.id, 0, f"{option}={value}"),
                )
            )
        width = render.RULE_ROW.get(option, 2)
        keyboard.extend(row[i : i + width] for i in range(0, len(row), width))
    keyboard.append(
        [InlineKeyboardButton(tr("« Back"), callback_data=cb.button(cb.BACK, table.id))]
    )
    return render.rules_menu_text(tr, table), InlineKeyboardMarkup(keyboard)


def table_buttons(
    tr: Tr, table: Table, bot_username: str, webapp: str | None
) -> InlineKeyboardMarkup | None:
    """Under the group's table message: the DM and the table page while the game is
    played; 🔁 New game once it is over (not at a tournament)."""
    screen = render.group_screen(table, page=webapp is not None)
    url = f"https://t.me/{bot_username}"
    row = []
    for button in screen.actions:
        label = say(tr, button.label, PLAIN)
        match button.action:
            case OpenDm():
                row.append(InlineKeyboardButton(label, url=url))
            case OpenTable():
                # The bot's main Mini App (set in @BotFather), opened at this table.
                row.append(InlineKeyboardButton(label, url=f"{url}?startapp=g{screen.game}"))
            case NewGame():
                data = cb.button(cb.REMATCH, screen.game)
                row.append(InlineKeyboardButton(label, callback_data=data))
    return InlineKeyboardMarkup([row]) if row else None


def open_dm_button(tr: Tr, bot_username: str, join_token: str) -> InlineKeyboardMarkup:
    """The button that opens a person's DM with the bot and seats them."""
    url = f"https://t.me/{bot_username}?start=j{join_token}"
    return InlineKeyboardMarkup([[InlineKeyboardButton(tr("Open my cards in a DM"), url=url)]])
