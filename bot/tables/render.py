"""What people see: the lobby, the group's table message, each player's DM, results.

Pure functions from a `Table` to text and inline keyboards; no I/O. The DM is built from
``game.view(seat)`` only, so a player's screen can never show another player's cards.
"""

from __future__ import annotations

import html
import io
import math
import time
from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.tables.model import LEVELS, TARGETS, TIMERS, Table
from bot.telegram import callbacks as cb
from bot.texts import t
from engine import Card, HandResult, Rules, SeatView, magnitude_squared
from engine.cards import FULL_DECK, codes, deck_mask
from engine.scoring import Score

ARROWS = {"left": "→", "right": "←", "across": "↕", "hold": ""}
SUIT_ORDER = ("S", "H", "C", "D")
MAX_ROW = 7


def esc(text: str) -> str:
    return html.escape(text, quote=False)


# ---------------------------------------------------------------- scores


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


def variant_key(rules: Rules) -> str:
    if rules.variant != "standard":
        return rules.variant
    if rules.bonus_card == "JD":
        return "omnibus_jd"
    if rules.bonus_card == "TD":
        return "omnibus_td"
    return "standard"


def rules_summary(table: Table) -> str:
    rules, options = table.rules, table.options
    timer = t("timer.seconds", seconds=options.turn_timer) if options.turn_timer else t("timer.off")
    values: dict[str, object] = {
        "players": rules.players,
        "variant": t(f"variant.{variant_key(rules)}"),
        "target": rules.target,
        "timer": timer,
        "level": t(f"level.{options.computer_level}"),
    }
    if rules.variant == "two_player":
        # Moon, Q♠ and first-trick options do nothing here (README, Rules).
        return t("rules.summary.two_player", moon=t("moon.two_player"), **values)
    return t(
        "rules.summary",
        moon=t(f"moon.{rules.moon}"),
        queen=t("on" if rules.queen_breaks_hearts else "off"),
        **values,
    )


def rules_text(rules: Rules) -> str:
    """The table's rules in short (/rules)."""
    if rules.variant == "two_player":
        return t("rules.text.two_player", target=rules.target)
    parts = []
    if rules.variant == "complex":
        parts.append(t("rules.text.complex", target=rules.target))
    else:
        parts.append(t("rules.text.standard", target=rules.target))
    if rules.no_points_on_first_trick:
        parts.append(t("rules.text.first_trick"))
    if rules.bonus_card:
        parts.append(t("rules.text.omnibus", card=Card.parse(rules.bonus_card).symbol))
    return "\n".join(parts)


# ---------------------------------------------------------------- lobby


def lobby(table: Table) -> tuple[str, InlineKeyboardMarkup]:
    lines = [t("lobby.title", creator=esc(table.creator_name)), esc(rules_summary(table)), ""]
    lines.append(t("lobby.seats"))
    for number, seat in enumerate(table.seats, start=1):
        if seat is None:
            who = t("lobby.empty_seat")
        elif seat.kind == "computer":
            who = t("lobby.computer", name=esc(seat.name))
        else:
            who = esc(seat.name)
        lines.append(f"{number}. {who}")
    for name in table.ui.pending.values():
        lines.append("   " + t("lobby.waiting_dm", name=esc(name)))
    lines += ["", t("lobby.hint")]
    g = table.id
    keyboard = [
        [
            InlineKeyboardButton(t("button.join"), callback_data=cb.button(cb.JOIN, g)),
            InlineKeyboardButton(t("button.leave"), callback_data=cb.button(cb.LEAVE, g)),
        ],
        [
            InlineKeyboardButton(
                t("button.add_computer"), callback_data=cb.button(cb.ADD_COMPUTER, g)
            ),
            InlineKeyboardButton(t("button.rules"), callback_data=cb.button(cb.RULES, g)),
        ],
        [
            InlineKeyboardButton(t("button.start"), callback_data=cb.button(cb.START, g)),
            InlineKeyboardButton(t("button.cancel"), callback_data=cb.button(cb.CANCEL, g)),
        ],
    ]
    # The host can empty any seat but their own ("✖ 2" empties seat 2).
    removable = [
        InlineKeyboardButton(
            t("button.remove_seat", seat=n + 1), callback_data=cb.button(cb.KICK, g, 0, str(n))
        )
        for n, seat in enumerate(table.seats)
        if seat is not None and seat.user_id != table.creator_id
    ]
    if removable:
        keyboard.append(removable)
    return "\n".join(lines), InlineKeyboardMarkup(keyboard)


RULE_CHOICES: dict[str, tuple[str, ...]] = {
    "players": ("2", "3", "4", "5", "6"),
    "variant": ("standard", "omnibus_jd", "omnibus_td", "complex", "two_player"),
    "moon": ("choose", "add_to_others", "subtract_from_shooter"),
    "queen": ("on", "off"),
    "first": ("on", "off"),
    "target": tuple(str(x) for x in TARGETS),
    "timer": tuple(str(x) for x in TIMERS),
    "level": LEVELS,
    "tracker": ("on", "off"),
}
RULE_ROW = {"players": 4, "variant": 3, "moon": 2, "target": 4, "timer": 4, "level": 4}
"""Buttons per row of the menu (2 when not named): short values share a row."""
TWO_PLAYER_IGNORES = ("moon", "queen", "first")
"""Options two-player Hearts accepts and ignores (README, Rules): not offered for it."""


def rule_options(rules: Rules) -> list[str]:
    """The options of the rules menu that do something under `rules`."""
    skip = TWO_PLAYER_IGNORES if rules.variant == "two_player" else ()
    return [option for option in RULE_CHOICES if option not in skip]


def current_rule_values(table: Table) -> dict[str, str]:
    rules, options = table.rules, table.options
    return {
        "players": str(rules.players),
        "variant": variant_key(rules),
        "moon": rules.moon,
        "queen": "on" if rules.queen_breaks_hearts else "off",
        "first": "on" if rules.no_points_on_first_trick else "off",
        "target": str(rules.target),
        "timer": str(options.turn_timer),
        "level": options.computer_level,
        "tracker": "on" if options.track_cards else "off",
    }


def _choice_label(option: str, value: str) -> str:
    if option == "variant":
        return t(f"variant.{value}")
    if option == "moon":
        return t(f"moon.{value}")
    if option == "timer":
        return t("timer.seconds", seconds=value) if value != "0" else t("timer.off")
    if option == "level":
        return t(f"level.{value}")
    if option == "first":
        return t(f"rules.first_trick.{value}")
    if option in ("queen", "tracker"):
        return t(value)
    return value


RULE_LABELS = {
    "players": "rules.players",
    "variant": "rules.variant",
    "moon": "rules.moon",
    "queen": "rules.queen",
    "first": "rules.first_trick",
    "target": "rules.target",
    "timer": "rules.timer",
    "level": "rules.level",
    "tracker": "rules.tracker",
}


RULE_ICONS = {
    "players": "👥",
    "variant": "🃏",
    "moon": "🌕",
    "queen": "♠",
    "first": "1️⃣",
    "target": "🎯",
    "timer": "⏱",
    "level": "🤖",
    "tracker": "📋",
}
"""Each option's mark: on its line in the menu's text and on every button of its row, so a
row says what it sets however narrow a phone makes its buttons."""


def rules_menu(table: Table) -> tuple[str, InlineKeyboardMarkup]:
    """The host's menu: a line per option that applies to the variant ("🎯 Target: 100"),
    and a row of buttons for it, each marked with the option's icon ("🎯 •100")."""
    current = current_rule_values(table)
    lines = [t("rules.menu_title"), esc(rules_summary(table)), ""]
    keyboard: list[list[InlineKeyboardButton]] = []
    for option in rule_options(table.rules):
        icon = RULE_ICONS[option]
        label = f"{icon} {t(RULE_LABELS[option])}"
        lines.append(
            t("rules.menu_line", label=label, value=esc(_choice_label(option, current[option])))
        )
        row: list[InlineKeyboardButton] = []
        for value in RULE_CHOICES[option]:
            text = _choice_label(option, value)
            if value == current[option]:
                text = f"•{text}"
            row.append(
                InlineKeyboardButton(
                    f"{icon} {text}",
                    callback_data=cb.button(cb.SET_RULE, table.id, 0, f"{option}={value}"),
                )
            )
        width = RULE_ROW.get(option, 2)
        keyboard.extend(row[i : i + width] for i in range(0, len(row), width))
    keyboard.append(
        [InlineKeyboardButton(t("button.back"), callback_data=cb.button(cb.BACK, table.id))]
    )
    return "\n".join(lines), InlineKeyboardMarkup(keyboard)


# ---------------------------------------------------------------- play


def _plays(table: Table, plays: Sequence[tuple[int, Card]]) -> str:
    return " · ".join(f"{esc(table.name(s))} {c.symbol}" for s, c in plays)


def _scores_line(table: Table, scores: Sequence[Score], seat: int | None = None) -> str:
    parts = []
    for s, score in enumerate(scores):
        # People by name; the reader's own, in bold, is the one marked "you" (a person may
        # well be called You).
        name = esc(table.name(s))
        if s == seat:
            name = t("you_named", name=name)
        parts.append(f"{name} {format_score(score)}")
    return " · ".join(parts)


def _names(table: Table, seats: Sequence[int]) -> str:
    return ", ".join(esc(table.name(s)) for s in seats)


def winners_text(table: Table, winners: Sequence[int]) -> str:
    return t("and").join(f"<b>{esc(table.name(s))}</b>" for s in winners)


def table_message(table: Table) -> str:
    """The group's one table message."""
    game = table.game
    assert game is not None
    lines = [
        t(
            "table.title",
            hand=game.hand_number,
            direction=t(f"direction.{game.pass_direction}"),
        ),
        esc(rules_summary(table)),
        "",
    ]
    if game.phase == "over":
        lines.append(t("table.over", winners=winners_text(table, game.winners)))
    elif game.phase == "pass":
        lines.append(
            t(
                "table.passing",
                direction=t(f"direction.{game.pass_direction}").removeprefix("pass "),
                names=_names(table, game.waiting_for()),
            )
        )
    elif game.phase == "moon":
        assert game.current_player is not None
        lines.append(t("table.moon", name=esc(table.name(game.current_player))))
    else:
        if game.trick:
            lines.append(t("table.trick", cards=_plays(table, game.trick)))
        elif game.tricks:
            last = game.tricks[-1]
            lines.append(
                t(
                    "dm.last_trick",
                    cards=_plays(table, last.plays),
                    name=esc(table.name(last.winner)),
                )
            )
        assert game.current_player is not None
        lines.append(t("table.turn", name=esc(table.name(game.current_player))))
        lines.append(t("dm.hearts_broken" if game.hearts_broken else "dm.hearts_unbroken"))
    in_hand = game.phase in ("play", "moon")
    title = {"over": "table.scores_final", "play": "table.scores_hand", "moon": "table.scores_hand"}
    lines += ["", t(title.get(game.phase, "table.scores_title"))]
    taken = game.points_taken()
    for s, total in enumerate(game.scores):
        marker = "▶ " if game.current_player == s and game.phase != "over" else ""
        this_hand = f" ({format_score(taken[s])})" if in_hand else ""
        lines.append(f"{marker}{esc(table.name(s))}: {format_total(total)}{this_hand}")
    if game.phase != "over":
        lines += ["", t("table.follow_dm")]
    return "\n".join(lines)


def cancelled(table: Table) -> str:
    """The table's message after its game was cancelled: the standings it stopped at."""
    game = table.game
    assert game is not None
    lines = [t("table.cancelled_title", hand=game.hand_number), ""]
    for seat, total in enumerate(game.scores):
        lines.append(f"{esc(table.name(seat))}: {format_total(total)}")
    return "\n".join(lines)


def hand_result(table: Table, result: HandResult) -> str:
    points = " · ".join(
        f"{esc(table.name(s))} {format_score(p)}" for s, p in enumerate(result.points)
    )
    lines = [t("hand.result", hand=result.hand_number, points=points)]
    if result.shooter is not None:
        lines.append(t("hand.moon", name=esc(table.name(result.shooter))))
    totals = " · ".join(
        f"{esc(table.name(s))} {format_total(total)}" for s, total in enumerate(result.totals)
    )
    lines.append(t("hand.standings", totals=totals))
    return "\n".join(lines)


def card_label(card: Card, chosen: bool = False, received: bool = False) -> str:
    """A card button's label: ``[Q♠]`` chosen to pass, ``•Q♠`` just received; at most five
    characters, so a row of seven still shows every label whole on a phone."""
    if chosen:
        return t("card.chosen", card=card.symbol)
    if received:
        return t("card.received", card=card.symbol)
    return card.symbol


def _card_rows(
    view: SeatView, table: Table, selected: set[str]
) -> list[list[InlineKeyboardButton]]:
    # Received cards stay marked until the first trick is complete.
    fresh = (
        {c.code for c in view.received}
        if view.received is not None and view.phase != "pass" and not view.tricks
        else set()
    )
    # Cards passed are gone from the hand as far as the reader is concerned (the engine
    # keeps them until everyone has passed): no longer buttons, named in the text instead.
    gone = set(view.passed or ()) if view.phase == "pass" else set()
    rows: list[list[InlineKeyboardButton]] = []
    by_suit: dict[str, list[Card]] = {s: [] for s in SUIT_ORDER}
    for card in view.hand:
        if card not in gone:
            by_suit[card.suit].append(card)
    for suit in SUIT_ORDER:
        cards = by_suit[suit]
        buttons = []
        for card in cards:
            label = card_label(card, card.code in selected, card.code in fresh)
            buttons.append(
                InlineKeyboardButton(
                    label,
                    callback_data=cb.button(cb.CARD, table.id, view.hand_number, card.code),
                )
            )
        rows.extend(buttons[i : i + MAX_ROW] for i in range(0, len(buttons), MAX_ROW))
    return rows


def removed_cards(players: int) -> list[Card]:
    """The cards taken out of the deck for this many players (RULES.md §2); none for four,
    and two-player Hearts plays a deck of its own (the README's rules say which)."""
    if players in (2, 4):
        return []
    return [Card.parse(code) for code in codes(FULL_DECK & ~deck_mask(players))]


def _trick_number(view: SeatView, seat: int) -> tuple[int, int]:
    """This trick's number and how many the hand has (5/13), from the reader's cards."""
    played_now = any(s == seat for s, _ in view.trick)
    number = len(view.tricks) + 1
    return number, len(view.tricks) + len(view.hand) + (1 if played_now else 0)


def dm(table: Table, seat: int) -> tuple[str, InlineKeyboardMarkup | None]:
    """One player's living DM message: the table from their seat and their cards."""
    game = table.game
    assert game is not None
    view = game.view(seat)
    g = table.id
    lines = [t("dm.header", chat=esc(table.chat_title), hand=view.hand_number)]
    lines.append(t("dm.scores", scores=_scores_line(table, view.scores, seat)))
    removed = removed_cards(table.rules.players)
    if removed and view.phase != "over":
        lines.append(t("dm.removed", cards=" ".join(c.symbol for c in removed)))
    lines.append("")
    selected = set(table.ui.selections.get(seat, [])) if view.phase == "pass" else set()
    extra_rows: list[list[InlineKeyboardButton]] = []
    if view.phase == "over":
        lines.append(t("dm.game_over", winners=winners_text(table, view.winners)))
        return "\n".join(lines), None
    history = game.hand_history
    if history and (view.phase == "pass" or (view.phase == "play" and not view.tricks)):
        # Until the next hand's first trick: how the last hand went (who took what, moon).
        previous = history[-1]
        shown = 2 if previous.shooter is not None else 1
        lines.extend(hand_result(table, previous).split("\n")[:shown])
        lines.append("")
    if view.phase == "pass":
        arrow = ARROWS[view.pass_direction]
        if view.passed is None:
            lines.append(t("dm.pass_to", arrow=arrow, name=esc(table.name(view.pass_to))))
            lines.append(t("dm.pass_hint"))
            extra_rows.append(
                [
                    InlineKeyboardButton(
                        t(
                            "button.pass",
                            count=len(selected),
                            arrow=f"{arrow} {table.name(view.pass_to)}",
                        ),
                        callback_data=cb.button(cb.PASS, g, view.hand_number),
                    )
                ]
            )
        else:
            lines.append(
                t(
                    "dm.passed_waiting",
                    cards=" ".join(c.symbol for c in view.passed),
                    names=_names(table, view.waiting_for),
                )
            )
    else:
        if view.pass_direction == "hold":
            if not view.tricks:
                lines.append(t("dm.hold"))
        elif view.received is not None and len(view.tricks) < 1:
            lines.append(
                t(
                    "dm.received",
                    cards=" ".join(f"<b>{c.symbol}</b>" for c in view.received),
                    name=esc(table.name(view.pass_from)),
                )
            )
        number, total = _trick_number(view, seat)
        if view.trick:
            lines.append(t("dm.trick", number=number, total=total, cards=_plays(table, view.trick)))
        else:
            lines.append(t("dm.trick_empty", number=number, total=total))
        if view.current_player == seat and table.ui.deadline is not None:
            left = max(0, round(table.ui.deadline - time.time()))
            lines.append(t("dm.time_left", minutes=left // 60, seconds=f"{left % 60:02}"))
        if view.tricks:
            last = view.tricks[-1]
            lines.append(
                t(
                    "dm.last_trick",
                    cards=_plays(table, last.plays),
                    name=esc(table.name(last.winner)),
                )
            )
        lines.append(t("dm.hearts_broken" if view.hearts_broken else "dm.hearts_unbroken"))
        lines.append(t("dm.points_hand", points=_scores_line(table, view.points_taken, seat)))
        lines.append("")
        if view.phase == "moon":
            if view.moon_shooter == seat:
                lines.append(t("dm.moon_choose"))
                complex_ = table.rules.variant == "complex"
                suffix = "_complex" if complex_ else ""
                extra_rows.append(
                    [
                        InlineKeyboardButton(
                            t(f"button.moon_subtract{suffix}"),
                            callback_data=cb.button(cb.MOON, g, view.hand_number, "s"),
                        ),
                        InlineKeyboardButton(
                            t(f"button.moon_add{suffix}"),
                            callback_data=cb.button(cb.MOON, g, view.hand_number, "a"),
                        ),
                    ]
                )
            else:
                assert view.moon_shooter is not None
                lines.append(t("dm.moon_waiting", name=esc(table.name(view.moon_shooter))))
        elif view.current_player == seat:
            lines.append(t("dm.your_turn"))
        elif view.current_player is not None:
            lines.append(t("dm.turn_of", name=esc(table.name(view.current_player))))
    if table.options.track_cards:
        is_open = table.ui.tracker_open.get(seat, False)
        if is_open and view.phase in ("play", "moon"):
            lines += ["", *tracker_lines(table, view)]
        extra_rows.append(
            [
                InlineKeyboardButton(
                    t("button.tracker_off" if is_open else "button.tracker_on"),
                    callback_data=cb.button(cb.TRACKER, g, view.hand_number),
                )
            ]
        )
    keyboard = _card_rows(view, table, selected) + extra_rows
    return "\n".join(lines), InlineKeyboardMarkup(keyboard)


def tracker_lines(table: Table, view: SeatView) -> list[str]:
    """The card-keeping aid: cards played by suit, and who has shown a void."""
    lines = [t("dm.tracker_title")]
    symbols = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}
    played = view.cards_played_by_suit()
    for suit in SUIT_ORDER:
        cards = " ".join(c.symbol[:-1] for c in played[suit]) or "—"
        lines.append(f"{symbols[suit]} {cards}")
    voids = [
        f"{esc(table.name(s))} {''.join(symbols[x] for x in SUIT_ORDER if x in v)}"
        for s, v in enumerate(view.voids())
        if v and s != view.seat
    ]
    lines.append(t("dm.tracker_voids", voids=", ".join(voids) or t("dm.tracker_none")))
    return lines


# ---------------------------------------------------------------- chart

PALETTE = [
    (220, 50, 47),
    (38, 139, 210),
    (133, 153, 0),
    (211, 54, 130),
    (181, 137, 0),
    (42, 161, 152),
]


def _round_step(raw: float) -> float:
    """The round number (1, 2, 5 times a power of ten) nearest above `raw`: axis steps."""
    if raw <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(raw))
    return float(next(m * power for m in (1, 2, 5, 10) if m * power >= raw))


def score_chart_png(table: Table) -> bytes:
    """A line chart of every player's total hand by hand (|z| for Complex Hearts)."""
    from PIL import Image, ImageDraw, ImageFont

    game = table.game
    assert game is not None
    history = game.hand_history
    n = table.rules.players

    def value(score: Score) -> float:
        return magnitude_squared(score) ** 0.5 if isinstance(score, complex) else float(score)

    series = [[0.0] + [value(h.totals[s]) for h in history] for s in range(n)]
    width, height, margin, legend = 900, 540, 70, 190
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=20)
    lo = min(0.0, *(min(s) for s in series))
    hi = max(float(table.rules.target), *(max(s) for s in series))
    plot_w = width - margin - legend
    plot_h = height - 2 * margin
    hands = max(1, len(history))

    def xy(i: int, v: float) -> tuple[float, float]:
        return margin + plot_w * i / hands, margin + plot_h * (1 - (v - lo) / (hi - lo or 1))

    # Points on the left with light grid lines at a round step, the target marked.
    step = _round_step((hi - lo) / 5)
    tick = step * math.ceil(lo / step)
    while tick <= hi:
        y = xy(0, tick)[1]
        draw.line((margin, y, margin + plot_w, y), fill=(232, 232, 232), width=1)
        draw.text((margin - 8, y), f"{tick:g}", fill="black", font=font, anchor="rm")
        tick += step
    draw.rectangle((margin, margin, margin + plot_w, margin + plot_h), outline="black")
    target_y = xy(0, float(table.rules.target))[1]
    draw.line((margin, target_y, margin + plot_w, target_y), fill=(200, 60, 60), width=2)
    draw.text(
        (margin + plot_w - 6, target_y - 4),
        t("chart.target", target=table.rules.target),
        fill=(200, 60, 60),
        font=font,
        anchor="rb",
    )
    draw.text((margin, 18), t("game.winner_chart"), fill="black", font=font)
    every = max(1, math.ceil(hands / 12))  # at most a dozen hand labels
    for i in range(0, hands + 1, every):
        x, _ = xy(i, lo)
        label = t("chart.hand", hand=i) if i else t("chart.start")
        draw.text((x, margin + plot_h + 8), label, fill="black", font=font, anchor="mt")
    for s in range(n):
        color = PALETTE[s % len(PALETTE)]
        points = [xy(i, v) for i, v in enumerate(series[s])]
        draw.line(points, fill=color, width=3)
        for p in points:
            draw.ellipse((p[0] - 3, p[1] - 3, p[0] + 3, p[1] + 3), fill=color)
        ly = margin + 30 * s
        draw.rectangle((width - legend + 10, ly + 4, width - legend + 26, ly + 20), fill=color)
        label = f"{table.name(s)[:12]} {series[s][-1]:.0f}"
        draw.text((width - legend + 30, ly), label, fill="black", font=font)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
