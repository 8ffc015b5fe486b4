"""The page adapter: what the table page shows one seat, as JSON made from that seat's
`SeatScreen` (itself made from its `SeatView` only: never another seat's cards), with
its sentences in the reader's language.

Plain text only: every sentence is written by `bot.screens.parts.PLAIN` (names isolated,
never escaped; nothing to strip), and the page puts every string in with
``textContent``, never as HTML.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bot.core.decode import ChooseMoon, PassCards
from bot.i18n import Tr, msg
from bot.screens.parts import PLAIN, SUIT_ORDER, Part, format_score, say
from bot.screens.render import chart_value
from bot.screens.seat_screen import (
    HandCard,
    Player,
    SeatScreen,
    revealed_proofs,
    seat_screen,
)
from bot.tables.model import Table
from engine import Card, HandResult

Json = dict[str, Any]


def card_json(card: Card) -> Json:
    return {"code": card.code, "rank": card.symbol[:-1], "suit": card.suit}


Plays = tuple[tuple[int, Card], ...]


def table_json(
    players: Sequence[Player],
    trick: Plays,
    tricks_done: int,
    last_trick: tuple[Plays, int] | None,
) -> Json:
    """What everyone at the table sees, as the page's JSON (a seat's page and a watcher's
    alike): the seats, the trick being played and the last one taken."""
    return {
        "players": len(players),
        "seats": [
            {
                "name": PLAIN.name(p.name),
                "score": format_score(p.score),
                "taken": format_score(p.taken),
                "cards": p.cards,
                "computer": p.computer,
                "turn": p.turn,
                "waiting": p.waiting,
            }
            for p in players
        ],
        "trick": [{"seat": s, **card_json(c)} for s, c in trick],
        "tricks_done": tricks_done,
        "last_trick": (
            {
                "plays": [{"seat": s, **card_json(c)} for s, c in last_trick[0]],
                "winner": last_trick[1],
            }
            if last_trick is not None
            else None
        ),
    }


def words(tr: Tr) -> Json:
    """The page's fixed words, in the reader's language (sent once per connection)."""
    return {
        "title": tr("Hearts"),
        "scores": tr.unmarked(msg("<b>Scores</b>")),
        "tracker": tr("📋 Cards played"),
        "total": tr("Total"),
        "hand": tr("Hand"),
        "reconnecting": tr("Reconnecting…"),
        "voids": tr("Known voids: {voids}", voids="").rstrip(" :"),
        "chart": tr("Score by hand"),
        "start": tr("start"),
        "hand_short": tr("H{hand}", hand="{h}"),
        "close": tr("Close"),
        "you": tr("you"),
        "verify": tr("🔐 Verify deal"),
        "verified": tr(
            "✅ This seed gives the deal below and this commitment: compare it with the "
            "one shown before the pass."
        ),
        "unverified": tr("❌ This seed does not give this commitment."),
        "watching": tr("👀 Watching"),
        "watchers": tr("Watching this table"),
    }


def seat_state(tr: Tr, table: Table, seat: int, version: int) -> Json:
    """The page's state for `seat`: everything its DM shows, as data; a game that ended
    says how (``ended``: "finished" or "cancelled") and offers nothing more to press."""
    screen = seat_screen(table, seat)
    if table.game is not None and table.daily is None:  # a daily deal's seeds: after the day
        screen = replace(screen, revealed=revealed_proofs(table.game))
    return page_state(tr, screen, version)


def page_state(tr: Tr, screen: SeatScreen, version: int) -> Json:
    """A `SeatScreen` as the page's JSON."""

    def text(part: Part) -> str:
        return say(tr, part, PLAIN)

    playing = screen.ended is None
    buttons = [button for group in screen.actions for button in group] if playing else []
    state: Json = {
        "t": "state",
        "game": screen.game,
        "version": version,
        "hand": screen.hand,
        "phase": screen.phase,
        "you": screen.seat,
        **table_json(screen.players, screen.trick, screen.tricks_done, screen.last_trick),
        "cards": [_hand_card(c) for c in screen.cards],
        "hearts_broken": screen.hearts_broken,
        "status": text(screen.status),
        "sealed": text(screen.sealed) if screen.sealed is not None else None,
        "deadline": screen.deadline,
        "now": time.time(),
        "pass": None,
        "moon": None,
        "tracker": _tracker(screen) if screen.tracker else None,
        "history": history_json(screen.results, screen.target, screen.revealed),
        "over": None,
        "ended": screen.ended,
        "hint": (
            {"button": tr("💡 Hint"), "lines": [text(line) for line in screen.hint]}
            if screen.hint is not None
            else None
        ),
    }
    if not playing:
        if screen.phase == "over":
            state["over"] = {"winners": list(screen.winners), "target": screen.target}
        return state
    for button in buttons:
        if isinstance(button.action, PassCards):
            state["pass"] = {"chosen": screen.chosen, "button": text(button.label)}
        elif isinstance(button.action, ChooseMoon):
            state["moon"] = [
                *(state["moon"] or []),
                {"choice": button.action.choice, "label": text(button.label)},
            ]
    return state


def _hand_card(card: HandCard) -> Json:
    return {
        **card_json(card.card),
        "legal": card.legal,
        "chosen": card.chosen,
        "received": card.received,
    }


def _tracker(screen: SeatScreen) -> Json:
    return {
        "played": {suit: [c.symbol[:-1] for c in screen.played[suit]] for suit in SUIT_ORDER},
        "voids": {
            str(s): sorted(v, key=SUIT_ORDER.index)
            for s, v in enumerate(screen.voids)
            if v and s != screen.seat
        },
    }


def history_json(
    results: tuple[HandResult, ...], target: int, revealed: tuple[tuple[int, str, str], ...]
) -> Json:
    """Every scored hand: points and totals by seat, the totals as numbers to chart, and
    (a deal from a key) its seed and commitment, to verify on the page."""
    proofs = {hand: (seed, commitment) for hand, seed, commitment in revealed}
    return {
        "hands": [
            {
                "hand": h.hand_number,
                "points": [format_score(p) for p in h.points],
                "totals": [format_score(t) for t in h.totals],
                "values": [chart_value(t) for t in h.totals],
                "shooter": h.shooter,
                "seed": proofs.get(h.hand_number, (None, None))[0],
                "commitment": proofs.get(h.hand_number, (None, None))[1],
            }
            for h in results
        ],
        "target": target,
    }
