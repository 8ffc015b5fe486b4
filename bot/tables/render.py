"""What the group sees, as data: the lobby, the rules menu, the table's message, a
hand's result, the game's end, a cancelled table (sentences as `Msg`s and `Part`s, buttons
as typed actions: `bot.telegram.draw` draws them); the score chart; the rules' words every
screen shares.

Pure functions from a `Table`; no I/O, no Telegram object. A seat's own screen is
`bot.tables.seat_screen`.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Callable, Sequence

from PIL import ImageDraw, ImageFont

from bot.i18n import Msg, Tr, mark, msg, msg_plural, plain_name
from bot.tables import seat_screen
from bot.tables.model import LEVELS, TARGETS, TIMERS, Table
from bot.tables.parts import (
    ARROWS,
    SUIT_ORDER,
    Bare,
    Joined,
    Name,
    Number,
    Part,
    Text,
    format_score,
    format_total,
)
from bot.tables.seat_screen import (
    AddComputerSeat,
    Button,
    CancelTable,
    ChooseRule,
    ClearSeat,
    CloseRules,
    CopyText,
    GroupScreen,
    NewGame,
    OpenDm,
    OpenRules,
    OpenTable,
    SitDown,
    StandUp,
    StartGame,
    WatchTable,
    Words,
    commitment_line,
)
from engine import Card, Game, Rules, magnitude_squared
from engine.scoring import Score

__all__ = ["ARROWS", "SUIT_ORDER", "format_score", "format_total"]  # their home: parts


# ---------------------------------------------------------------- scores


VARIANTS = {
    "standard": mark("Standard"),
    "omnibus_jd": mark("Omnibus J♦"),
    "omnibus_td": mark("Omnibus 10♦"),
    "complex": mark("Complex"),
    "two_player": mark("Two-player"),
}
MOONS = {
    "choose": mark("shooter chooses"),
    "add_to_others": mark("+26 to others"),
    "subtract_from_shooter": mark("−26 to shooter"),
}
LEVEL_NAMES = {
    "easy": mark("easy"),
    "standard": mark("standard"),
    "pro": mark("pro"),
    "expert": mark("expert"),
}
DIRECTIONS = {
    "left": mark("pass left"),
    "right": mark("pass right"),
    "across": mark("pass across"),
    "hold": mark("no passing"),
}
PASSING = {
    "left": mark("Passing left: waiting for {names}."),
    "right": mark("Passing right: waiting for {names}."),
    "across": mark("Passing across: waiting for {names}."),
    "hold": mark("No passing: waiting for {names}."),
}
FIRST_TRICK = {"on": mark("no points"), "off": mark("points allowed")}
ON_OFF = {"on": mark("on"), "off": mark("off")}


def on_off(tr: Tr, value: bool) -> str:
    word = ON_OFF["on"] if value else ON_OFF["off"]
    return tr(word)


def variant_key(rules: Rules) -> str:
    if rules.variant != "standard":
        return rules.variant
    if rules.bonus_card == "JD":
        return "omnibus_jd"
    if rules.bonus_card == "TD":
        return "omnibus_td"
    return "standard"


def rules_summary_part(table: Table) -> Msg:
    rules, options = table.rules, table.options
    values: dict[str, object] = {
        "players": msg_plural("{n} player", "{n} players", rules.players),
        "variant": Msg(VARIANTS[variant_key(rules)]),
        "target": rules.target,
        "timer": seat_screen.timer_text(options.turn_timer),
        "level": Msg(LEVEL_NAMES[options.computer_level]),
    }
    if rules.variant == "two_player":
        # Moon, Q♠ and first-trick options do nothing here (README, Rules).
        return msg(
            "{players} · {variant} · moon: {moon} · to {target} · turn timer: {timer} · "
            "computer: {level}",
            moon=msg("opponent +20"),
            **values,
        )
    return msg(
        "{players} · {variant} · moon: {moon} · Q♠ breaks hearts: {queen} · to {target} · "
        "turn timer: {timer} · computer: {level}",
        moon=Msg(MOONS[rules.moon]),
        queen=Msg(ON_OFF["on"] if rules.queen_breaks_hearts else ON_OFF["off"]),
        **values,
    )


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
    for name in table.ui.pending.values():
        lines.append(Joined(("   ", msg("{name} (opening their DM…)", name=Name(name))), ""))
    lines += [
        "",
        msg(
            "Tap <b>Join</b> to sit down. Empty seats are filled with computer "
            "players when the game starts. The host can empty a seat with ✖."
        ),
    ]
    rows: list[tuple[Button, ...]] = [
        (Button(msg("✋ Join"), SitDown()), Button(msg("🚪 Leave"), StandUp())),
        (Button(msg("🤖 Add computer"), AddComputerSeat()), Button(msg("⚙ Rules"), OpenRules())),
        (Button(msg("▶ Start"), StartGame()), Button(msg("✖ Cancel"), CancelTable())),
    ]
    # The host can empty any seat but their own ("✖ 2" empties seat 2).
    removable = tuple(
        Button(msg("✖ {seat}", seat=n + 1), ClearSeat(n))
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
        return seat_screen.timer_text(int(value))
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
            row.append(Button(Joined((icon, said), " "), ChooseRule(option, choice)))
        width = RULE_ROW.get(option, 2)
        rows.extend(tuple(row[i : i + width]) for i in range(0, len(row), width))
    lines += [
        "",
        msg(
            "💡 Hints show what the expert computer would play, and why. They are never "
            "offered at tournament tables."
        ),
    ]
    rows.append((Button(msg("« Back"), CloseRules()),))
    return Words(tuple(lines), tuple(rows), table.id)


# ---------------------------------------------------------------- play


def game_over_lines(table: Table, winners: Sequence[int], ratings: Part | None) -> list[Part]:
    """The game's end as the group is told it (the chart's caption): who won, and each
    person's rating change."""
    lines: list[Part] = [
        msg(
            "🏁 <b>Game over!</b> {winners} won.", winners=seat_screen.winners(table, list(winners))
        )
    ]
    return lines if ratings is None else [*lines, ratings]


def group_screen(table: Table, *, page: bool = False, watchers: int = 0) -> GroupScreen:
    """What the group's table message shows of a game, and its buttons; `page`: whether
    the table page is served (``WEBAPP_URL``); `watchers`: how many people watch it there."""
    game = table.game
    assert game is not None
    if game.phase == "over":  # no hand to play and nothing to pass any more
        header = msg("♥ <b>Hearts</b> · finished after hand {hand}", hand=game.hand_number)
    else:
        header = msg(
            "♥ <b>Hearts</b> · hand {hand} · {direction}",
            hand=game.hand_number,
            direction=Msg(DIRECTIONS[game.pass_direction]),
        )
    lines: list[Part] = [header, Text(rules_summary_part(table)), ""]
    if game.phase == "over":
        lines.append(
            msg(
                "🏁 <b>Game over!</b> {winners} won.",
                winners=seat_screen.winners(table, list(game.winners)),
            )
        )
    elif game.phase == "pass":
        lines.append(
            Msg(
                PASSING[game.pass_direction],
                {"names": seat_screen.names(table, list(game.waiting_for()))},
            )
        )
    elif game.phase == "moon":
        assert game.current_player is not None
        lines.append(
            msg(
                "🌕 {name} shot the moon and is choosing.",
                name=Name(table.name(game.current_player)),
            )
        )
    else:
        if game.trick:
            lines.append(msg("Trick: {cards}", cards=seat_screen.plays(table, game.trick)))
        elif game.tricks:
            last = game.tricks[-1]
            lines.append(
                msg(
                    "Last trick: {cards} → {name}",
                    cards=seat_screen.plays(table, last.plays),
                    name=Name(table.name(last.winner)),
                )
            )
        assert game.current_player is not None
        lines.append(msg("Turn: <b>{name}</b>", name=Name(table.name(game.current_player))))
        lines.append(seat_screen.hearts_line(game.hearts_broken))
    in_hand = game.phase in ("play", "moon")
    if game.phase == "over":
        title = msg("<b>Final scores</b>")
    elif in_hand:
        title = msg("<b>Scores</b> (this hand's points in brackets)")
    else:
        title = msg("<b>Scores</b>")
    lines += ["", title]
    taken = game.points_taken()
    for s, total in enumerate(game.scores):
        marker = "▶ " if game.current_player == s and game.phase != "over" else ""
        this_hand = f" ({format_score(taken[s])})" if in_hand else ""
        lines.append(
            Joined((marker, Name(table.name(s)), f": {format_total(total)}{this_hand}"), "")
        )
    actions: tuple[Button, ...] = ()
    if game.phase != "over":
        lines += ["", msg("Play from your DM with me.")]
        actions = (Button(msg("Open my cards in a DM"), OpenDm()),)
        if page:
            actions += (Button(msg("🃏 Open table"), OpenTable()),)
            if table.options.watching:
                actions += (Button(msg("👀 Watch"), WatchTable()),)
            if watchers:
                lines.append(Joined(("👀", Number(watchers, "whole")), " "))
        proof = game.deal_proof()
        sealed = commitment_line(game)
        if proof is not None and sealed is not None:
            # Sealed before anyone passes; the seed itself only once the hand is over.
            lines.append(sealed)
            actions += (Button(msg("📋 Copy commitment"), CopyText(proof.commitment)),)
    elif table.tournament_id is None:
        # The game is over: the same seats and rules, one press away.
        actions = (Button(msg("🔁 New game"), NewGame()),)
    return GroupScreen(game=table.id, lines=tuple(lines), actions=actions)


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


def cancelled_lines(table: Table) -> list[Part]:
    """The table's message after it was cancelled: a lobby says so; a game, the standings
    it stopped at, and the seed of the hand it stopped in (nobody can use it any more)."""
    game = table.game
    if game is None:
        return [seat_screen.CANCELLED]
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


def value_grid(
    draw: ImageDraw.ImageDraw,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    lo: float,
    hi: float,
    left: float,
    width: float,
    y_of: Callable[[float], float],
) -> None:
    """A chart's values on the left, from `lo` to `hi` at a round step, each with a light
    grid line across the plot."""
    step = round_step((hi - lo) / 5)
    tick = step * math.ceil(lo / step)
    while tick <= hi:
        y = y_of(tick)
        draw.line((left, y, left + width, y), fill=(232, 232, 232), width=1)
        draw.text((left - 8, y), f"{tick:g}", fill="black", font=font, anchor="rm")
        tick += step


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
    width, height, margin, legend = 900, 540, 70, 190
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    font = chart_font(tr.language, 20)
    lo = min(0.0, *(min(s) for s in series))
    hi = max(float(table.rules.target), *(max(s) for s in series))
    plot_w = width - margin - legend
    plot_h = height - 2 * margin
    hands = max(1, len(history))

    def xy(i: int, v: float) -> tuple[float, float]:
        return margin + plot_w * i / hands, margin + plot_h * (1 - (v - lo) / (hi - lo or 1))

    # Points on the left with light grid lines at a round step, the target marked.
    value_grid(draw, font, lo, hi, margin, plot_w, lambda v: xy(0, v)[1])
    draw.rectangle((margin, margin, margin + plot_w, margin + plot_h), outline="black")
    target_y = xy(0, float(table.rules.target))[1]
    draw.line((margin, target_y, margin + plot_w, target_y), fill=(200, 60, 60), width=2)
    draw.text(
        (margin + plot_w - 6, target_y - 4),
        tr("target {target}", target=table.rules.target),
        fill=(200, 60, 60),
        font=font,
        anchor="rb",
    )
    draw.text((margin, 18), tr("Score by hand"), fill="black", font=font)
    every = max(1, math.ceil(hands / 12))  # at most a dozen hand labels
    for i in range(0, hands + 1, every):
        x, _ = xy(i, lo)
        label = tr("H{hand}", hand=i) if i else tr("start")
        draw.text((x, margin + plot_h + 8), label, fill="black", font=font, anchor="mt")
    for s in range(n):
        color = PALETTE[s % len(PALETTE)]
        points = [xy(i, v) for i, v in enumerate(series[s])]
        draw.line(points, fill=color, width=3)
        for p in points:
            draw.ellipse((p[0] - 3, p[1] - 3, p[0] + 3, p[1] + 3), fill=color)
        ly = margin + 30 * s
        draw.rectangle((width - legend + 10, ly + 4, width - legend + 26, ly + 20), fill=color)
        label = f"{plain_name(table.name(s))[:12]} {series[s][-1]:.0f}"
        draw.text((width - legend + 30, ly), label, fill="black", font=font)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
