"""What the table page shows one seat: the state as JSON, made from that seat's
`SeatView` only (never another seat's cards), with its sentences in the reader's language.

Plain text only: the page puts every string in with ``textContent``, never as HTML.
"""

from __future__ import annotations

import html
import re
import time
from typing import Any

from bot.i18n import Tr, isolated_name, msg
from bot.tables import render
from bot.tables.coach_words import decision_key, hint_from_dict, hint_lines, offers_hints
from bot.tables.model import Table
from engine import Card, SeatView

Json = dict[str, Any]

_TAG = re.compile(r"<[^>]+>")
CANCELLED = msg("♥ This table was cancelled.")


def plain(text: str) -> str:
    """A sentence made for Telegram's HTML, as plain text."""
    return html.unescape(_TAG.sub("", text))


def _card(card: Card) -> Json:
    return {"code": card.code, "rank": card.symbol[:-1], "suit": card.suit}


def words(tr: Tr) -> Json:
    """The page's fixed words, in the reader's language (sent once per connection)."""
    return {
        "title": tr("Hearts"),
        "scores": plain(tr("<b>Scores</b>")),
        "tracker": tr("📋 Cards played"),
        "total": tr("Total"),
        "hand": tr("Hand"),
        "reconnecting": tr("Reconnecting…"),
        "voids": tr("Known voids: {voids}", voids="").rstrip(" :"),
        "chart": tr("Score by hand"),
        "close": tr("Close"),
        "you": tr("you"),
    }


def seat_state(tr: Tr, table: Table, seat: int, version: int) -> Json:
    """The page's state for `seat`: everything its DM shows, as data; a game that ended
    says how (``ended``: "finished" or "cancelled") and offers nothing more to press."""
    game = table.game
    assert game is not None
    view = game.view(seat)
    n = table.rules.players
    ended = (
        "finished"
        if view.phase == "over"
        else None
        if table.status in ("active", "lobby")
        else "cancelled"
    )
    playing = ended is None
    selected = table.ui.selections.get(seat, []) if view.phase == "pass" and playing else []
    received = {c.code for c in view.received or ()} if not view.tricks else set()
    legal = {c.code for c in view.legal} if view.current_player == seat and playing else set()
    seats = []
    for s in range(n):
        sitting = table.seats[s]
        seats.append(
            {
                "name": isolated_name(table.name(s)),
                "score": render.format_score(view.scores[s]),
                "taken": render.format_score(view.points_taken[s]),
                "cards": view.hand_sizes[s],
                "computer": sitting is None or sitting.is_computer_now,
                "turn": playing and view.current_player == s and view.phase in ("play", "moon"),
                "waiting": playing and view.phase == "pass" and s in view.waiting_for,
            }
        )
    state: Json = {
        "t": "state",
        "game": table.id,
        "version": version,
        "hand": view.hand_number,
        "phase": view.phase,
        "you": seat,
        "players": n,
        "seats": seats,
        "trick": [{"seat": s, **_card(c)} for s, c in view.trick],
        "tricks_done": len(view.tricks),
        "last_trick": (
            {
                "plays": [{"seat": s, **_card(c)} for s, c in view.tricks[-1].plays],
                "winner": view.tricks[-1].winner,
            }
            if view.tricks
            else None
        ),
        "cards": [
            {
                **_card(c),
                "legal": c.code in legal,
                "chosen": c.code in selected,
                "received": c.code in received,
            }
            for c in view.hand
        ],
        "hearts_broken": view.hearts_broken,
        "status": plain(tr(CANCELLED) if ended == "cancelled" else _status(tr, table, view)),
        "deadline": table.ui.deadline if view.phase == "play" and playing else None,
        "now": time.time(),
        "pass": None,
        "moon": None,
        "tracker": _tracker(view) if table.options.track_cards else None,
        "history": _history(table),
        "over": None,
        "ended": ended,
        "hint": _hint(tr, table, view) if playing else None,
    }
    if not playing:
        if view.phase == "over":
            state["over"] = {"winners": list(view.winners), "target": table.rules.target}
        return state
    if view.phase == "pass" and view.passed is None:
        arrow = render.ARROWS[view.pass_direction]
        state["pass"] = {
            "chosen": len(selected),
            "button": tr(
                "Pass {count}/3 {arrow}",
                count=len(selected),
                arrow=f"{arrow} {isolated_name(table.name(view.pass_to))}",
            ),
        }
    if view.phase == "moon" and view.moon_shooter == seat:
        if table.rules.variant == "complex":
            subtract, add = tr("−(13+13i) for me"), tr("+(13+13i) for everyone else")
        else:
            subtract, add = tr("−26 for me"), tr("+26 for everyone else")
        state["moon"] = [{"choice": "subtract", "label": subtract}, {"choice": "add", "label": add}]
    return state


def _hint(tr: Tr, table: Table, view: SeatView) -> Json | None:
    """💡 Hint while this seat has a choice to make (the DM's button, through the same
    coach), and the hint it asked for while that choice is still open."""
    key = decision_key(view)
    if not offers_hints(table) or key is None:
        return None
    shown = table.ui.hints.get(view.seat)
    lines: list[str] = []
    if shown and shown.get("key") == key:
        names = [table.name(s) for s in range(len(table.seats))]
        lines = [plain(line) for line in hint_lines(tr, names, hint_from_dict(shown))]
    return {"button": tr("💡 Hint"), "lines": lines}


def _status(tr: Tr, table: Table, view: SeatView) -> str:
    """The one line that says what happens now, from this seat."""
    phase, seat = view.phase, view.seat
    if phase == "over":
        winners = render.winners_text(tr, table, view.winners)
        return tr("🏁 <b>Game over.</b> {winners} won.", winners=winners)
    if phase == "pass":
        if view.passed is None:
            return tr(
                "Pass 3 cards {arrow} <b>{name}</b>",
                arrow=render.ARROWS[view.pass_direction],
                name=render.who(table.name(view.pass_to)),
            )
        names = ", ".join(render.who(table.name(s)) for s in view.waiting_for)
        return tr(
            "You passed {cards}. Waiting for: {names}.",
            cards=" ".join(c.symbol for c in view.passed),
            names=names,
        )
    if phase == "moon":
        if view.moon_shooter == seat:
            return tr("🌕 <b>You shot the moon!</b> Choose:")
        return tr(
            "🌕 {name} shot the moon and is choosing…",
            name=render.who(table.name(view.moon_shooter or 0)),
        )
    if view.current_player == seat:
        return tr("👉 <b>Your turn.</b>")
    return tr("Waiting for <b>{name}</b>.", name=render.who(table.name(view.current_player or 0)))


def _tracker(view: SeatView) -> Json:
    played = view.cards_played_by_suit()
    return {
        "played": {suit: [c.symbol[:-1] for c in played[suit]] for suit in render.SUIT_ORDER},
        "voids": {
            str(s): sorted(v, key=render.SUIT_ORDER.index)
            for s, v in enumerate(view.voids())
            if v and s != view.seat
        },
    }


def _history(table: Table) -> Json:
    """Every scored hand: points and totals by seat, and the totals as numbers to chart."""
    game = table.game
    assert game is not None
    return {
        "hands": [
            {
                "hand": h.hand_number,
                "points": [render.format_score(p) for p in h.points],
                "totals": [render.format_score(t) for t in h.totals],
                "values": [render.chart_value(t) for t in h.totals],
                "shooter": h.shooter,
            }
            for h in game.hand_history
        ],
        "target": table.rules.target,
    }
