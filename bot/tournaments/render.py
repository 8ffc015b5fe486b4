"""What a tournament looks like in the group: its message, the round's status lines, rankings."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from babel.dates import format_datetime

from bot.chats import NONE, Button, Buttons, Register, Withdraw
from bot.i18n import Msg, Say, Tr, isolated_name, mark, msg
from bot.screens.render import VARIANTS, format_total, variant_key
from domain.tournaments import Registration, StoredTournament, TournamentTable
from engine import Game

MAX_NAMES = 40
"""Names listed on the tournament message; beyond that only the count (Telegram's 4096 chars)."""


class Html(str):
    """Text that is Telegram's HTML already, made only here (`esc`, `who`): `said` puts
    it into a sentence as it is, and escapes every other text."""


def esc(text: str) -> Html:
    return Html(html.escape(text, quote=False))


def who(name: str) -> Html:
    """A name (a person's, a group's or an event's) as the tournaments' messages show it
    (they write Telegram's HTML for the `Chats` port), in every language: escaped, its
    bidi controls removed, isolated (FSI…PDI)."""
    return Html(isolated_name(esc(name)))


Value = Html | str | int | Msg | Say


def said(message: str, /, **values: Value) -> Msg:
    """A tournament's sentence (``msg``) with every value escaped on the way in: a text is
    escaped unless it is `Html` already, and so is what a `Say` gives; a number or a `Msg`
    (made by `said` too) goes in as it is. So a person's own words (an unknown option, a
    time zone, a username) can never be markup Telegram refuses, however they are put."""
    return msg(message, **{key: _escaped(value) for key, value in values.items()})


def _escaped(value: Value) -> object:
    if isinstance(value, Html | int | Msg):
        return value
    if isinstance(value, str):
        return esc(value)

    def written(tr: Tr, say: Say = value) -> str:
        text = say(tr)
        return text if isinstance(text, Html) else esc(text)

    return written


def _within(names: Sequence[str], budget: int, total: int | None = None) -> Html:
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
    text = ", ".join(shown)  # names escaped already (`who`, `esc`)
    return Html(f"{text} … +{total - len(shown)}" if total > len(shown) else text)


def example_day(now: datetime) -> str:
    """A day a week from `now` (``2026-12-14``), for the examples people copy: a fixed
    one would soon be in the past, and refused."""
    return (now + timedelta(days=7)).date().isoformat()


def when(tr: Tr, moment: datetime, time_zone: str) -> str:
    """A moment as the group reads it, in its language: ``Tue 1 Dec 2026, 18:00
    (Asia/Kolkata)`` (Babel's names of days and months)."""
    local = moment.astimezone(ZoneInfo(time_zone))
    text = format_datetime(local, "EEE d MMM y, HH:mm", locale=tr.language)
    return f"{text} ({time_zone})"


def rules_line(tr: Tr, tournament: StoredTournament) -> Html:
    rules = tournament.rules
    variant = tr(VARIANTS[variant_key(rules)])
    return Html(tr(said("{variant} to {target}", variant=variant, target=rules.target)))


STATUS_NAMES = {
    "registration": mark("registration"),
    "running": mark("running"),
    "paused": mark("paused"),
    "finished": mark("finished"),
    "cancelled": mark("cancelled"),
}
STATUSES = {
    "registration": mark("Registration is open: tap <b>Register</b>."),
    "closed": mark("Registration is closed."),
    "paused": mark("⏸ Paused by the organiser."),
    "finished": mark("🏁 Finished."),
    "cancelled": mark("✖ Cancelled."),
}


def registered(registrations: Sequence[Registration]) -> list[Registration]:
    return [r for r in registrations if r.status == "registered"]


def tournament_message(
    tr: Tr,
    tournament: StoredTournament,
    registrations: Sequence[Registration],
    *,
    registration_open: bool,
) -> tuple[str, Buttons]:
    """The tournament's own message: what, when, how, who; Register while registration is open."""
    o = tournament.options
    lines = [
        tr(
            said(
                "🏆 <b>{name}</b> — a Hearts event by {organiser}",
                name=who(tournament.name),
                organiser=who(tournament.organiser_name),
            ),
        )
    ]
    # When it starts, only while it has not: a finished event said "Starts when the
    # organiser sends /event start" (issue 51).
    if tournament.status != "registration":
        pass
    elif tournament.starts_at is not None:
        lines.append(
            tr(
                said(
                    "Starts: <b>{when}</b>",
                    when=when(tr, tournament.starts_at, tournament.time_zone),
                )
            )
        )
    else:
        lines.append(tr("Starts when the organiser sends /event start."))
    if tournament.registration_deadline is not None and tournament.status == "registration":
        lines.append(
            tr(
                said(
                    "Registration closes: {when}",
                    when=when(tr, tournament.registration_deadline, tournament.time_zone),
                ),
            )
        )
    if o.advance_overall is not None:
        advance = tr.plural(
            "the best {n} of each round goes on",
            "the best {n} of each round go on",
            o.advance_overall,
        )
    else:
        advance = tr.plural(
            "the best {n} of each table goes on",
            "the best {n} of each table go on",
            o.advance_per_table,
        )
    lines.append(
        tr(
            said(
                "Tables of {size} · {advance} · {rules}",
                size=o.table_size,
                advance=advance,
                rules=rules_line(tr, tournament),
            ),
        )
    )
    extras = []
    if o.duplicate_deals:
        extras.append(tr("duplicate deals (every table of a round gets the same cards)"))
    if o.computer_fill:
        extras.append(tr("computer players fill short tables"))
    if o.seeding == "rating":
        extras.append(tr("seeded by rating: the strongest start at different tables"))
    if not o.watching:
        extras.append(tr("nobody watches the tables"))
    extras.append(
        tr(
            said(
                "no-shows are replaced by a computer after {minutes} min and cannot go on",
                minutes=round(o.grace_s / 60),
            ),
        )
    )
    lines.append(" · ".join(extras))
    if o.allowed_usernames:
        names = _within(["@" + esc(u) for u in o.allowed_usernames], 800)
        lines.append(tr(said("Open to: {names} (and anyone invited)", names=names)))
    else:
        lines.append(tr("Open to members of this group."))
    people = registered(registrations)
    lines.append("")
    lines.append(tr(said("Registered: <b>{count}</b>", count=len(people))))
    if people:
        lines.append(_within([who(r.display_name) for r in people[:MAX_NAMES]], 1500, len(people)))
    lines.append("")
    if tournament.status == "registration":
        status = STATUSES["registration"] if registration_open else STATUSES["closed"]
        lines.append(tr(status))
    elif tournament.status == "running":
        lines.append(tr(said("Round {round} is being played.", round=tournament.current_round)))
    else:
        lines.append(tr(STATUSES[tournament.status]))
    buttons = NONE
    if tournament.status == "registration" and registration_open:
        buttons = (
            (
                Button(tr("✋ Register"), Register(tournament.id)),
                Button(tr("🚪 Withdraw"), Withdraw(tournament.id)),
            ),
        )
    return "\n".join(lines), buttons


def _seat_name(tr: Tr, table: TournamentTable, seat: int) -> Html:
    s = table.seats[seat]
    name: str = who(s.display_name)
    if s.user_id is None:
        name = tr(said("🤖 {name}", name=name))
    if s.no_show:
        name += tr(" (no-show)")
    return Html(name)  # the name escaped, the rest the bot's own words


def table_line(tr: Tr, table: TournamentTable, game: Game | None) -> str:
    """One table's status: scores as the game goes, places when it is over."""
    if table.status == "cancelled":
        return tr(said("Table {no}: cancelled", no=table.table_no))
    if table.status == "finished":
        ordered = sorted(table.seats, key=lambda s: s.place or 0)
        scores = Html(
            " · ".join(
                f"{s.place}. {_seat_name(tr, table, s.seat)} {format_total(s.total or 0)}"
                for s in ordered
            )
        )
        line = tr(said("Table {no} 🏁 {scores}", no=table.table_no, scores=scores))
        going = [who(s.display_name) for s in ordered if s.advanced]
        if going:
            line += " " + tr(said("→ {names}", names=Html(", ".join(going))))
        return line
    if game is None:
        scores = Html(" · ".join(_seat_name(tr, table, s.seat) for s in table.seats))
        return tr(
            said("Table {no} · hand {hand}: {scores}", no=table.table_no, hand=1, scores=scores)
        )
    scores = Html(
        " · ".join(
            f"{_seat_name(tr, table, n)} {format_total(game.scores[n])}"
            for n in range(len(table.seats))
        )
    )
    return tr(
        said(
            "Table {no} · hand {hand}: {scores}",
            no=table.table_no,
            hand=game.hand_number,
            scores=scores,
        ),
    )


def round_message(
    tr: Tr,
    tournament: StoredTournament,
    round_no: int,
    tables: Sequence[TournamentTable],
    games: Mapping[int, Game],
) -> str:
    """The round's message in the group: one line per table, edited as the games go."""
    name = who(tournament.name)
    if len(tables) == 1:
        lines = [tr(said("🏆 <b>{name}</b> · the final", name=name))]
    else:
        lines = [tr(said("🏆 <b>{name}</b> · round {round}", name=name, round=round_no))]
    for table in tables:
        game = games.get(table.game_id) if table.game_id is not None else None
        lines.append(table_line(tr, table, game))
    return "\n".join(lines)


def ranking_lines(tr: Tr, registrations: Sequence[Registration]) -> list[str]:
    ranked = sorted(
        (r for r in registrations if r.final_place is not None), key=lambda r: r.final_place or 0
    )
    return [
        tr(said("{place}. {name}", place=r.final_place or 0, name=who(r.display_name)))
        for r in ranked
    ]


def status_text(
    tr: Tr,
    tournament: StoredTournament,
    registrations: Sequence[Registration],
    tables: Sequence[TournamentTable],
    games: Mapping[int, Game],
    *,
    registration_open: bool,
) -> str:
    """``/tournament``: the tournament message, then the current round's tables and any ranking."""
    text, _ = tournament_message(tr, tournament, registrations, registration_open=registration_open)
    parts = [text]
    if tables:
        parts.append(round_message(tr, tournament, tournament.current_round, tables, games))
    ranking = ranking_lines(tr, registrations)
    if ranking:
        parts.append("\n".join(ranking))
    return "\n\n".join(parts)
