"""What a tournament looks like in the group: its message, the round's status lines, rankings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.tables.render import esc, format_total, variant_key
from bot.telegram import callbacks as cb
from bot.texts import t
from engine import Game
from storage.tournaments import Registration, StoredTournament, TournamentTable

MAX_NAMES = 40
"""Names listed on the tournament message; beyond that only the count (Telegram's 4096 chars)."""


def _within(names: Sequence[str], budget: int, total: int | None = None) -> str:
    """``names`` joined by commas, as many as fit in `budget` characters, then "…, +N":
    a tournament's message keeps well within Telegram's 4,096 characters, whoever registers."""
    total = len(names) if total is None else total
    shown: list[str] = []
    used = 0
    for name in names:
        if used + len(name) + 2 > budget:
            break
        shown.append(name)
        used += len(name) + 2
    text = ", ".join(shown)
    return f"{text} … +{total - len(shown)}" if total > len(shown) else text


def when(moment: datetime, time_zone: str) -> str:
    """A moment as the group reads it: ``Tue 1 Dec 2026, 18:00 (Asia/Kolkata)``."""
    local = moment.astimezone(ZoneInfo(time_zone))
    return f"{local:%a} {local.day} {local:%b %Y, %H:%M} ({time_zone})"


def rules_line(tournament: StoredTournament) -> str:
    rules = tournament.rules
    return f"{t('variant.' + variant_key(rules))} to {rules.target}"


def registered(registrations: Sequence[Registration]) -> list[Registration]:
    return [r for r in registrations if r.status == "registered"]


def tournament_message(
    tournament: StoredTournament, registrations: Sequence[Registration], *, registration_open: bool
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The tournament's own message: what, when, how, who; Register while registration is open."""
    o = tournament.options
    lines = [t("event.title", name=esc(tournament.name), organiser=esc(tournament.organiser_name))]
    if tournament.starts_at is not None:
        lines.append(t("event.starts", when=when(tournament.starts_at, tournament.time_zone)))
    else:
        lines.append(t("event.starts_manual"))
    if tournament.registration_deadline is not None:
        lines.append(
            t("event.deadline", when=when(tournament.registration_deadline, tournament.time_zone))
        )
    if o.advance_overall is not None:
        advance = t("event.advance_overall", count=o.advance_overall)
    else:
        advance = t("event.advance_per_table", count=o.advance_per_table)
    lines.append(
        t("event.format", size=o.table_size, advance=advance, rules=rules_line(tournament))
    )
    extras = []
    if o.duplicate_deals:
        extras.append(t("event.extras_duplicate"))
    if o.computer_fill:
        extras.append(t("event.extras_computers"))
    extras.append(t("event.extras_grace", minutes=round(o.grace_s / 60)))
    lines.append(" · ".join(extras))
    if o.allowed_usernames:
        names = _within(["@" + esc(u) for u in o.allowed_usernames], 800)
        lines.append(t("event.only", names=names))
    else:
        lines.append(t("event.members_only"))
    people = registered(registrations)
    lines.append("")
    lines.append(t("event.registered_count", count=len(people)))
    if people:
        lines.append(_within([esc(r.display_name) for r in people[:MAX_NAMES]], 1500, len(people)))
    lines.append("")
    if tournament.status == "registration":
        lines.append(t("event.status.registration" if registration_open else "event.status.closed"))
    elif tournament.status == "running":
        lines.append(t("event.status.running", round=tournament.current_round))
    else:
        lines.append(t(f"event.status.{tournament.status}"))
    markup = None
    if tournament.status == "registration" and registration_open:
        markup = InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        t("event.button.register"),
                        callback_data=cb.button(cb.TOURNAMENT_REGISTER, tournament.id),
                    ),
                    InlineKeyboardButton(
                        t("event.button.withdraw"),
                        callback_data=cb.button(cb.TOURNAMENT_WITHDRAW, tournament.id),
                    ),
                ]
            ]
        )
    return "\n".join(lines), markup


def _seat_name(table: TournamentTable, seat: int) -> str:
    s = table.seats[seat]
    name = esc(s.display_name)
    if s.user_id is None:
        name = t("event.computer_mark", name=name)
    if s.no_show:
        name += t("event.no_show_mark")
    return name


def table_line(table: TournamentTable, game: Game | None) -> str:
    """One table's status: scores as the game goes, places when it is over."""
    if table.status == "cancelled":
        return t("event.table_line_cancelled", no=table.table_no)
    if table.status == "finished":
        ordered = sorted(table.seats, key=lambda s: s.place or 0)
        scores = " · ".join(
            f"{s.place}. {_seat_name(table, s.seat)} {format_total(s.total or 0)}" for s in ordered
        )
        line = t("event.table_line_done", no=table.table_no, scores=scores)
        going = [esc(s.display_name) for s in ordered if s.advanced]
        if going:
            line += " " + t("event.goes_on", names=", ".join(going))
        return line
    if game is None:
        scores = " · ".join(_seat_name(table, s.seat) for s in table.seats)
        return t("event.table_line", no=table.table_no, hand=1, scores=scores)
    scores = " · ".join(
        f"{_seat_name(table, n)} {format_total(game.scores[n])}" for n in range(len(table.seats))
    )
    return t("event.table_line", no=table.table_no, hand=game.hand_number, scores=scores)


def round_message(
    tournament: StoredTournament,
    round_no: int,
    tables: Sequence[TournamentTable],
    games: Mapping[int, Game],
) -> str:
    """The round's message in the group: one line per table, edited as the games go."""
    key = "event.final_title" if len(tables) == 1 else "event.round_title"
    lines = [t(key, name=esc(tournament.name), round=round_no)]
    for table in tables:
        game = games.get(table.game_id) if table.game_id is not None else None
        lines.append(table_line(table, game))
    return "\n".join(lines)


def ranking_lines(registrations: Sequence[Registration]) -> list[str]:
    ranked = sorted(
        (r for r in registrations if r.final_place is not None), key=lambda r: r.final_place or 0
    )
    return [t("event.ranking_row", place=r.final_place, name=esc(r.display_name)) for r in ranked]


def status_text(
    tournament: StoredTournament,
    registrations: Sequence[Registration],
    tables: Sequence[TournamentTable],
    games: Mapping[int, Game],
    *,
    registration_open: bool,
) -> str:
    """``/tournament``: the tournament message, then the current round's tables and any ranking."""
    text, _ = tournament_message(tournament, registrations, registration_open=registration_open)
    parts = [text]
    if tables:
        parts.append(round_message(tournament, tournament.current_round, tables, games))
    ranking = ranking_lines(registrations)
    if ranking:
        parts.append("\n".join(ranking))
    return "\n\n".join(parts)
