"""What the group sees besides the game's table message, as data: the lobby, the rules
menu, a hand's seed revealed, the game's end, a cancelled table (sentences as `Msg`s and
`Part`s, buttons as typed actions: `bot.telegram.draw` draws them); `/rules`; the score
chart.

Pure functions from a `Table`; no I/O, no Telegram object. The table's message during a
game (`group_screen`) is made beside a seat's own screen, with the words they share
(`bot.screens.seat_screen`).
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Callable, Sequence

from PIL import ImageDraw, ImageFont

from bot.core.decode import (
    AddComputerSeat,
    CancelTable,
    ChooseRule,
    ClearSeat,
    CloseRules,
    OpenRules,
    SitDown,
    StandUp,
    StartGame,
)
from bot.i18n import Msg, Tr, mark, msg, plain_name
from bot.screens.parts import (
    ARROWS,
    SUIT_ORDER,
    Bare,
    Joined,
    Name,
    Part,
    Text,
    format_score,
    format_total,
)
from bot.screens.seat_screen import (
    CANCELLED,
    COMMITMENT_SHOWN,
    LEVEL_NAMES,
    MOONS,
    ON_OFF,
    VARIANTS,
    Button,
    CopyText,
    Words,
    group_screen,
    rules_summary_part,
    timer_text,
    variant_key,
    winners,
)
from bot.tables.model import LEVELS, TARGETS, TIMERS, Table
from engine import Card, Game, Rules, magnitude_squared
from engine.scoring import Score

# Their homes: parts (arrows, suits, scores), seat_screen (the table's message during a
# game, and the rules' words it shares with a seat's screen and the lobby).
__all__ = [
    "ARROWS",
    "SUIT_ORDER",
    "VARIANTS",
    "format_score",
    "format_total",
    "group_screen",
    "rules_summary_part",
    "variant_key",
]


# ---------------------------------------------------------------- rules


FIRST_TRICK = {"on": mark("no points"), "off": mark("points allowed")}


def on_off(tr: Tr, value: bool) -> str:
    word = ON_OFF["on"] if value else ON_OFF["off"]
    return tr(word)


def rules_lines(rules: Rules) -> list[Part]:
    """The table's rules in short (/rules), a sentence a line."""
    if rules.variant == "two_player":
        return [
            msg(
                "<b>Two-player Hearts</b>: 28 cards (2 4 6 8 10 Q A), two dead cards. "
                "Hearts are trumps. Hearts break when someone can't follow suit. "
                "Shooting the moon gives your opponent 20. The first to reach {target} "
                "loses.",
                target=rules.target,
            )
        ]
    lines: list[Part] = []
    if rules.variant == "complex":
        lines.append(
            msg(
                "<b>Complex Hearts</b>: hearts 1, Q♠ 13i, J♦ −10; taking 10♣ "
                "multiplies your hand by 2i. Lowest magnitude |z| wins when someone's "
                "|z| reaches {target}.",
                target=rules.target,
            )
        )
    else:
        lines.append(
            msg(
                "<b>Hearts</b>: avoid hearts (1 point each) and Q♠ (13). Follow suit "
                "if you can. The holder of the lowest club leads it. Hearts can't be "
                "led until broken. Take all the hearts and Q♠ to shoot the moon. "
                "Lowest score wins when someone reaches {target}.",
                target=rules.target,
            )
        )
    if rules.no_points_on_first_trick:
        lines.append(msg("No hearts or Q♠ on the first trick (unless you hold nothing else)."))
    if rules.bonus_card:
        lines.append(
            msg(
                "Omnibus: {card} counts −10 to whoever takes it.",
                card=Card.parse(rules.bonus_card).symbol,
            )
        )
    return lines


# ---------------------------------------------------------------- lobby


def lobby_screen(table: Table) -> Words:
    """The lobby: who opened the table, its rules, its seats, and its buttons (join,
    leave, a computer, rules, start, cancel, and the host's ✖ for each seat but their
    own)."""
    lines: list[Part] = [
        msg("♥ <b>Hearts</b> — table opened by {creator}", creator=Name(table.creator_name)),
        Text(rules_summary_part(table)),
        "",
        msg("<b>Seats</b>"),
    ]
    for number, seat in enumerate(table.seats, start=1):
        sitting: Part
        if seat is None:
            sitting = msg("— empty —")
        elif seat.kind == "computer":
            sitting = msg("🤖 {name}", name=Name(seat.name))
        else:
            sitting = Name(seat.name)
        lines.append(Joined((f"{number}.", sitting), " "))
    for name in table.pending.values():
        lines.append(Joined(("   ", msg("{name} (opening their DM…)", name=Name(name))), ""))
    full = all(seat is not None for seat in table.seats)
    lines += [
        "",
        msg("The table is full: the host can start, or empty a seat with ✖.")
        if full
        else msg(
            "Tap <b>Join</b> to sit down. Empty seats are filled with computer "
            "players when the game starts. The host can empty a seat with ✖."
        ),
    ]
    rows: list[tuple[Button, ...]] = (
        [(Button(msg("🚪 Leave"), StandUp(table.id)), Button(msg("⚙ Rules"), OpenRules(table.id)))]
        if full  # nobody can sit down, nor a computer
        else [
            (Button(msg("✋ Join"), SitDown(table.id)), Button(msg("🚪 Leave"), StandUp(table.id))),
            (
                Button(msg("🤖 Add computer"), AddComputerSeat(table.id)),
                Button(msg("⚙ Rules"), OpenRules(table.id)),
            ),
        ]
    )
    rows.append(
        (
            Button(msg("▶ Start"), StartGame(table.id)),
            Button(msg("✖ Cancel"), CancelTable(table.id)),
        )
    )
    # The host can empty any seat but their own ("✖ 2" empties seat 2).
    removable = tuple(
        Button(msg("✖ {seat}", seat=n + 1), ClearSeat(table.id, n))
        for n, seat in enumerate(table.seats)
        if seat is not None and seat.user_id != table.creator_id
    )
    if removable:
        rows.append(removable)
    return Words(tuple(lines), tuple(rows), table.id)


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
    "hints": ("on", "off"),
}
RULE_ROW = {"players": 4, "target": 4}
"""Buttons per row of the menu (2 when not named): only numbers are short enough for four
to a row on a 360 px phone in every language (Telegram cuts a label that does not fit:
"Omnibus 1…", "no tim…"); tests/bot/test_i18n_catalogs.py measures every label."""
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
        "hints": "on" if options.hints else "off",
    }


def choice_label(option: str, value: str) -> Part:
    """How the rules menu names one value of an option."""
    if option == "variant":
        return Msg(VARIANTS[value])
    if option == "moon":
        return Msg(MOONS[value])
    if option == "timer":
        return timer_text(int(value))
    if option == "level":
        return Msg(LEVEL_NAMES[value])
    if option == "first":
        return Msg(FIRST_TRICK[value])
    if option in ("queen", "tracker", "hints"):
        return Msg(ON_OFF[value])
    return value


RULE_LABELS = {
    "players": mark("Players"),
    "variant": mark("Variant"),
    "moon": mark("Moon"),
    "queen": mark("Q♠ breaks hearts"),
    "first": mark("First trick"),
    "target": mark("Target"),
    "timer": mark("Turn timer"),
    "level": mark("Computers"),
    "tracker": mark("Card tracker"),
    "hints": mark("Hints"),
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
    "hints": "💡",
}
"""Each option's mark: on its line in the menu's text and on every button of its row, so a
row says what it sets however narrow a phone makes its buttons."""


def rules_screen(table: Table) -> Words:
    """The host's menu: a line per option that applies to the variant ("🎯 Target: 100")
    and a row of buttons for each, every button marked with the option's icon ("🎯
    •100"), then « Back."""
    current = current_rule_values(table)
    lines: list[Part] = [
        msg("⚙ <b>Table rules</b> — tap to change"),
        Text(rules_summary_part(table)),
        "",
    ]
    rows: list[tuple[Button, ...]] = []
    for option in rule_options(table.rules):
        icon = RULE_ICONS[option]
        label = Joined((icon, Msg(RULE_LABELS[option])), " ")
        value = choice_label(option, current[option])
        lines.append(msg("{label}: <b>{value}</b>", label=label, value=Text(value)))
        row: list[Button] = []
        for choice in RULE_CHOICES[option]:
            said = choice_label(option, choice)
            if choice == current[option]:
                said = Joined(("•", said), "")
            row.append(Button(Joined((icon, said), " "), ChooseRule(table.id, option, choice)))
        width = RULE_ROW.get(option, 2)
        rows.extend(tuple(row[i : i + width]) for i in range(0, len(row), width))
    lines += [
        "",
        msg(
            "💡 Hints show what the expert computer would play, and why. They are never "
            "offered at tournament tables."
        ),
    ]
    rows.append((Button(msg("« Back"), CloseRules(table.id)),))
    return Words(tuple(lines), tuple(rows), table.id)


# ---------------------------------------------------------------- play


def game_over_lines(table: Table, won: Sequence[int], ratings: Part | None) -> list[Part]:
    """The game's end as the group is told it (the chart's caption): who won (`won`, the
    winners' seats), and each person's rating change."""
    lines: list[Part] = [
        msg("🏁 <b>Game over!</b> {winners} won.", winners=winners(table.names(), won))
    ]
    return lines if ratings is None else [*lines, ratings]


def revealed(game: Game, hand_number: int) -> list[Part]:
    """A hand's seed and its whole commitment, said once the hand is over or the game
    cancelled (none for a fixed deal): with them anyone can check the deal (README, "Fair
    deals")."""
    proof = game.deal_proof(hand_number)
    if proof is None:
        return []
    return [
        msg("🔓 Deal seed: <code>{seed}</code>", seed=Bare(proof.seed)),
        msg("Commitment: <code>{commitment}</code>", commitment=Bare(proof.commitment)),
    ]


def revealed_short(game: Game, hand_number: int) -> tuple[list[Part], tuple[Button, ...]]:
    """A finished hand's seed and commitment in one short line (each its first 12 hex
    digits, as the commitment was shown before the pass) and a 📋 button that copies the
    seed whole: every hand of a casual game posted two 64-digit values in the group. The
    proof stays one tap away: the copy, ▶ Replay, the table page's 🔐 Verify deal; and
    `hearts-bot verify` takes the commitment's 12 digits (README, "Fair deals")."""
    proof = game.deal_proof(hand_number)
    if proof is None:
        return [], ()
    head, _, digits = proof.seed.rpartition("-")
    line = msg(
        "🔓 Deal seed <code>{seed}</code> · 🔐 <code>{commitment}</code>",
        seed=Bare(f"{head}-{digits[:COMMITMENT_SHOWN]}…"),
        commitment=Bare(proof.commitment[:COMMITMENT_SHOWN] + "…"),
    )
    return [line], (Button(msg("📋 Copy seed"), CopyText(proof.seed)),)


def cancelled_lines(table: Table) -> list[Part]:
    """The table's message after it was cancelled: a lobby says so; a game, the standings
    it stopped at, and the seed of the hand it stopped in (nobody can use it any more)."""
    game = table.game
    if game is None:
        return [CANCELLED]
    lines: list[Part] = [
        msg("♥ <b>Hearts</b> · ✖ cancelled during hand {hand}", hand=game.hand_number),
        "",
    ]
    for seat, total in enumerate(game.scores):
        lines.append(Joined((Name(table.name(seat)), f": {format_total(total)}"), ""))
    seed = revealed(game, game.hand_number) if game.phase != "over" else []
    return [*lines, "", *seed] if seed else lines


# ---------------------------------------------------------------- chart

PALETTE = [
    (220, 50, 47),
    (38, 139, 210),
    (133, 153, 0),
    (211, 54, 130),
    (181, 137, 0),
    (42, 161, 152),
]


def axis_range(lo: float, hi: float) -> tuple[float, float, float]:
    """A value axis from `lo` to `hi` widened to a round step at both ends, so its top and
    bottom are labelled ticks: (low end, high end, step)."""
    step = round_step((hi - lo) / 5)
    return step * math.floor(lo / step), step * math.ceil(hi / step), step


def value_grid(
    draw: ImageDraw.ImageDraw,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    ends: tuple[float, float, float],
    left: float,
    width: float,
    y_of: Callable[[float], float],
) -> None:
    """A chart's values on the left, every step of `ends` (`axis_range`) from its low end
    to its high end, each with a light grid line across the plot."""
    lo, hi, step = ends
    for i in range(round((hi - lo) / step) + 1):
        tick = lo + i * step
        y = y_of(tick)
        draw.line((left, y, left + width, y), fill=(232, 232, 232), width=1)
        draw.text((left - 8, y), f"{tick:g}", fill="black", font=font, anchor="rm")


X_LABEL_GAP = 16
"""Between the plot's bottom and the step labels under it: clear of the lowest value's
label, which is centred on the bottom line at the left."""


def step_labels(
    draw: ImageDraw.ImageDraw,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    labels: Sequence[tuple[float, str]],
    bottom: float,
) -> None:
    """The labels under a chart's plot (start, H1, H2…), each at its x: the first starts at
    the plot's left edge rather than centred on it, so it never runs under the values."""
    for i, (x, label) in enumerate(labels):
        anchor = "lt" if i == 0 else "mt"
        draw.text((x, bottom + X_LABEL_GAP), label, fill="black", font=font, anchor=anchor)


def round_step(raw: float) -> float:
    """The round number (1, 2, 5 times a power of ten) nearest above `raw`: axis steps."""
    if raw <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(raw))
    return float(next(m * power for m in (1, 2, 5, 10) if m * power >= raw))


CHART_FONTS = {
    "hi": (
        "/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf",
    ),
    "": (
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    ),
}
"""Fonts for the chart's labels: DejaVu Sans has Latin, Cyrillic and Persian letters;
Hindi needs a Devanagari font (Debian's fonts-lohit-deva, installed by CI and the image)."""


def chart_font(language: str, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """A font that has the letters of `language` (Pillow's own for Latin when none is
    installed), shaped by libraqm for Persian and Hindi."""
    from PIL import ImageFont

    for path in (*CHART_FONTS.get(language, ()), *CHART_FONTS[""]):
        if os.path.exists(path):
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)


PODIUM_HEIGHT = 190
"""The band above a finished game's chart where its first three places stand."""


def places(totals: Sequence[float]) -> list[int]:
    """Each seat's place by its total, lowest first (1 is the winner); equal totals share
    a place, as the game's end ranks them."""
    return [1 + sum(other < total for other in totals) for total in totals]


def draw_podium(
    draw: ImageDraw.ImageDraw,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    table: Table,
    totals: Sequence[float],
    width: int,
) -> None:
    """A podium across the top: the winner on the middle block, second on the left, third
    on the right, each name above its block with its total (equal totals side by side)."""
    place_of = places(totals)
    block_w, floor_y = 170, PODIUM_HEIGHT - 10
    steps = {1: (width / 2, 110), 2: (width / 2 - block_w, 75), 3: (width / 2 + block_w, 50)}
    for place, (cx, block_h) in steps.items():
        seats = [s for s, p in enumerate(place_of) if p == place]
        if not seats:
            continue
        color = (232, 190, 60) if place == 1 else (200, 200, 205) if place == 2 else (205, 145, 95)
        draw.rectangle(
            (cx - block_w / 2 + 6, floor_y - block_h, cx + block_w / 2 - 6, floor_y), fill=color
        )
        draw.text((cx, floor_y - block_h / 2), str(place), fill="white", font=font, anchor="mm")
        for row, seat in enumerate(seats[:2]):
            name = f"{plain_name(table.name(seat))[:12]} {totals[seat]:.0f}"
            y = floor_y - block_h - 8 - 24 * (len(seats[:2]) - 1 - row)
            draw.text((cx, y), name, fill="black", font=font, anchor="mb")


def chart_value(score: Score) -> float:
    """Where a total sits on the score chart: its magnitude |z| in Complex Hearts."""
    return magnitude_squared(score) ** 0.5 if isinstance(score, complex) else float(score)


def score_chart_png(tr: Tr, table: Table) -> bytes:
    """A line chart of every player's total hand by hand (|z| for Complex Hearts)."""
    from PIL import Image

    game = table.game
    assert game is not None
    history = game.hand_history
    n = table.rules.players

    series = [[0.0] + [chart_value(h.totals[s]) for h in history] for s in range(n)]
    over = game.phase == "over"
    podium_h = PODIUM_HEIGHT if over else 0
    width, height, margin, legend = 900, 540 + podium_h, 70, 190
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    font = chart_font(tr.language, 20)
    ends = axis_range(
        min(0.0, *(min(s) for s in series)),
        max(float(table.rules.target), *(max(s) for s in series)),
    )
    lo, hi, _ = ends
    top = margin + podium_h
    plot_w = width - margin - legend
    plot_h = height - top - margin
    hands = max(1, len(history))

    def xy(i: int, v: float) -> tuple[float, float]:
        return margin + plot_w * i / hands, top + plot_h * (1 - (v - lo) / (hi - lo or 1))

    if over:
        draw_podium(draw, font, table, [s[-1] for s in series], width)
    # Points on the left with light grid lines at a round step, the target marked.
    value_grid(draw, font, ends, margin, plot_w, lambda v: xy(0, v)[1])
    draw.rectangle((margin, top, margin + plot_w, top + plot_h), outline="black")
    target_y = xy(0, float(table.rules.target))[1]
    draw.line((margin, target_y, margin + plot_w, target_y), fill=(200, 60, 60), width=2)
    draw.text(
        (margin + plot_w - 6, target_y - 4),
        tr("target {target}", target=table.rules.target),
        fill=(200, 60, 60),
        font=font,
        anchor="rb",
    )
    draw.text((margin, top - 52), tr("Score by hand"), fill="black", font=font)
    every = max(1, math.ceil(hands / 12))  # at most a dozen hand labels
    step_labels(
        draw,
        font,
        [
            (xy(i, lo)[0], tr("H{hand}", hand=i) if i else tr("start"))
            for i in range(0, hands + 1, every)
        ],
        top + plot_h,
    )
    for s in range(n):
        color = PALETTE[s % len(PALETTE)]
        points = [xy(i, v) for i, v in enumerate(series[s])]
        draw.line(points, fill=color, width=3)
        for p in points:
            draw.ellipse((p[0] - 3, p[1] - 3, p[0] + 3, p[1] + 3), fill=color)
        ly = top + 30 * s
        draw.rectangle((width - legend + 10, ly + 4, width - legend + 26, ly + 20), fill=color)
        label = f"{plain_name(table.name(s))[:12]} {series[s][-1]:.0f}"
        draw.text((width - legend + 30, ly), label, fill="black", font=font)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
