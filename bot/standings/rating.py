"""``/rating``, the rating leaderboard of ``/scores``, and each game's rating changes.

The number people see is `ratings.Skill.shown`: 1000 + 20 × (μ − 3σ), a skill the player
is almost surely above; a newcomer starts at 1000 and rises as they win and as the bot
grows surer of them. Its ± is 20 × σ. ``/rating`` says it in words (`why_lines`: whom the
last game put the player above or below, and the uncertainty it took away); the formula is
in docs/ratings.md.
"""

from __future__ import annotations

import io
import logging
import math

from bot.basics import Person
from bot.i18n import Msg, Tr, msg, msg_plural
from bot.screens import render
from bot.screens.parts import Bare, Joined, Name, Number, Part
from bot.screens.seat_screen import LEVEL_NAMES
from bot.tables.model import Table
from domain.standings import GameTable, RatingChange, RatingEntry
from engine import magnitude_squared
from engine.scoring import Score
from ratings import Pool, level_of
from storage import Standings, StorageError

log = logging.getLogger(__name__)

POOLS: tuple[Pool, ...] = ("main", "two")


class Ratings:
    def __init__(self, standings: Standings) -> None:
        self.standings = standings

    async def rating(
        self, tr: Tr, person: Person, chat_id: int | None
    ) -> tuple[list[Part], bytes | None]:
        """``/rating``: the person's rating in this group (``chat_id``) and overall, with a
        chart of its history (in the group's scope in a group, overall in a DM, drawn in
        `tr`'s language); its lines as parts, for the adapter to write."""
        lines: list[Part] = [msg("📈 <b>{name}'s rating</b>", name=Name(person.name))]
        found = False
        for pool in POOLS:
            scopes = ((chat_id, True), (None, False)) if chat_id is not None else ((None, False),)
            for scope, here in scopes:
                entry = await self.standings.player_rating(person.id, scope, pool)
                if entry is None:
                    continue
                found = True
                lines.append(_entry_line(entry, pool, here))
        if not found:
            said = msg(
                "📈 No rated games yet. Finish a game (with people or computer players) and "
                "your rating appears here."
            )
            return [said], None
        history = await self.standings.rating_history(person.id, chat_id, "main")
        if not history and chat_id is None:
            history = await self.standings.rating_history(person.id, None, "two")
        if history:
            last = history[-1]
            try:
                everyone = await self.standings.rating_changes(last.game_id, chat_id)
                scores = await self.standings.game_table(last.game_id)
            except StorageError:
                log.exception("the last rated game %s of %s", last.game_id, person.id)
            else:
                lines.append("")
                lines.extend(why_lines(last, everyone, scores))
        png = None
        if len(history) >= 1:
            try:
                png = rating_chart_png(tr, history)
            except Exception:
                log.exception("rating chart failed")
        return lines, png

    async def board_lines(self, chat_id: int) -> list[Part]:
        """The rating leaderboard of ``/scores``: people, then the computer levels (no
        lines while nobody here is rated)."""
        board = await self.standings.rating_board(chat_id, "main", limit=10)
        if not board:
            return []
        lines: list[Part] = [msg("<b>Ratings here</b>")]
        people = [e for e in board if e.player > 0]
        for e in people:
            line = msg_plural(
                "{rank}. {name} — {rating} ± {spread} · {n} game",
                "{rank}. {name} — {rating} ± {spread} · {n} games",
                e.games,
                rank=e.place,
                name=Name(e.display_name),
                rating=Number(e.skill.shown, "whole"),
                spread=e.skill.spread,
            )
            lines.append(Joined((line, msg("(provisional)")), " ") if e.provisional else line)
        computers = tuple(
            Joined(
                (
                    Msg(LEVEL_NAMES[level_of(e.player) or "standard"]),
                    Number(e.skill.shown, "whole"),
                ),
                " ",
            )
            for e in board
            if e.player < 0
        )
        if computers:
            lines.append(msg("🤖 Computer players: {levels}", levels=Joined(computers)))
        return lines

    async def changes(self, table: Table) -> Part | None:
        """The game-end line with each person's rating change in this group."""
        try:
            changes = await self.standings.rating_changes(table.id, table.chat_id)
        except StorageError:
            log.exception("rating changes of game %s", table.id)
            return None
        people = [c for c in changes if c.player > 0]
        if not people:
            return None

        each = tuple(
            Joined((Name(table.name(c.seat)), Number(c.shown_change, "signed")), " ")
            for c in people
        )
        return msg("📈 Ratings: {changes}", changes=Bare(Joined(each)))


def why_lines(mine: RatingChange, everyone: list[RatingChange], scores: GameTable) -> list[Part]:
    """The last rated game in words: the change and the place, whom the player finished
    above though rated above them (the big gains) or below though rated below them (the
    losses), and the uncertainty the game took away (why a loss can still lift the number),
    or, when a game with people left the number where it was though the bot grew surer,
    the limit that kept it there (docs/ratings.md, "What puppets cannot lift").
    """
    seats = {s.seat: s for s in scores.seats}

    def key(total: Score) -> float:
        return float(magnitude_squared(total)) if isinstance(total, complex) else float(total)

    keys = [key(t) for t in scores.totals]
    place = 1 + sum(k < keys[mine.seat] for k in keys) if keys else 1

    def named(change: RatingChange) -> Part:
        seat = seats.get(change.seat)
        level = level_of(change.player)
        if level is not None:
            return Msg(LEVEL_NAMES[level])
        return Name(seat.display_name if seat else "?")

    above: list[Part] = []
    below: list[Part] = []
    mine_key, mine_before = keys[mine.seat], mine.before.conservative
    for other in everyone:
        if other.seat == mine.seat or other.seat >= len(keys):
            continue
        them = named(other)
        if keys[other.seat] > mine_key and other.before.conservative > mine_before:
            above.extend([them] if them not in above else [])  # a level said once
        elif keys[other.seat] < mine_key and other.before.conservative < mine_before:
            below.extend([them] if them not in below else [])
    lines: list[Part] = [
        msg(
            "Your last game: {change}, {place} of {players}.",
            change=Number(mine.shown_change, "signed"),
            place=place,
            players=len(keys),
        )
    ]
    if above:
        lines.append(
            msg(
                "You finished above {players}, rated above you.", players=Joined(tuple(above), ", ")
            )
        )
    if below:
        lines.append(
            msg(
                "You finished below {players}, rated below you.", players=Joined(tuple(below), ", ")
            )
        )
    if not above and not below:
        lines.append(msg("You finished about where the ratings expected."))
    held = (
        abs(mine.after.conservative - mine.before.conservative) < 1e-9
        and mine.after.sigma < mine.before.sigma
        and any(c.player > 0 and c.seat != mine.seat for c in everyone)
    )
    if held:  # a limit kept it (`ratings.proven_ceiling`), though the game taught the bot
        lines.append(
            msg(
                "This game could lift you no higher: a game with people lifts you no higher "
                "than your record against computer players (your games alone with them, "
                "played to the end) or the ratings of the people you finish above."
            )
        )
    elif mine.after.spread < mine.before.spread:
        lines.append(
            msg(
                "The bot is surer of you now (± {before} → ± {after}), and that lifts your "
                "rating too.",
                before=mine.before.spread,
                after=mine.after.spread,
            )
        )
    return lines


def _entry_line(entry: RatingEntry, pool: Pool, here: bool) -> Part:
    if pool == "two":
        where = msg("Two-player, here") if here else msg("Two-player, overall")
    else:
        where = msg("Here") if here else msg("Overall")
    line = msg_plural(
        "{where}: <b>{rating}</b> ± {spread} · {place} of {rated} · {n} rated game",
        "{where}: <b>{rating}</b> ± {spread} · {place} of {rated} · {n} rated games",
        entry.games,
        where=where,
        rating=Number(entry.skill.shown, "whole"),
        spread=entry.skill.spread,
        place=entry.place,
        rated=entry.rated,
    )
    return Joined((line, msg("(provisional)")), " ") if entry.provisional else line


def rating_chart_png(tr: Tr, history: list[RatingChange]) -> bytes:
    """A line of the shown rating game by game (its first point the rating before the
    first game here)."""
    from PIL import Image, ImageDraw

    values = [float(history[0].before.shown)] + [float(h.after.shown) for h in history]
    width, height, margin = 900, 420, 70
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    font = render.chart_font(tr.language, 20)
    pad = max(20.0, (max(values) - min(values)) * 0.08)  # room above and below the line
    ends = render.axis_range(min(values) - pad, max(values) + pad)
    lo, hi, _ = ends
    plot_w, plot_h = width - 2 * margin, height - 2 * margin
    games = max(1, len(values) - 1)

    def xy(i: int, v: float) -> tuple[float, float]:
        return margin + plot_w * i / games, margin + plot_h * (1 - (v - lo) / (hi - lo))

    render.value_grid(draw, font, ends, margin, plot_w, lambda v: xy(0, v)[1])
    draw.rectangle((margin, margin, margin + plot_w, margin + plot_h), outline="black")
    draw.text((margin, 18), tr("Rating by game"), fill="black", font=font)
    every = max(1, math.ceil(games / 12))
    labels = [(xy(i, lo)[0], str(i) if i else tr("start")) for i in range(0, games + 1, every)]
    render.step_labels(draw, font, labels, margin + plot_h)
    points = [xy(i, v) for i, v in enumerate(values)]
    color = render.PALETTE[0]
    if len(points) > 1:
        draw.line(points, fill=color, width=3)
    for p in points:
        draw.ellipse((p[0] - 4, p[1] - 4, p[0] + 4, p[1] + 4), fill=color)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
