"""What a watcher of a table sees: what a spectator at a real table would, and no card of
anyone's hand.

`watcher_view(table)` reads the game only through the engine's `PublicView`
(`Game.public_view`), which has no field for a card in a hand, a card chosen to pass or a
dead card; and `WatcherView` has no field for one either. So no watcher's frame can carry
a hand's card: what it shows of cards is the trick being played, the tricks taken and
the cards played (the tracker), and, once a hand is over, what its results show (the
points, and the seed that deal came from, which the group's message reveals too).

`watcher_state` writes the view as the page's JSON, in the shape of a seat's
(`bot.live.view.page_state`) with ``"watching": true``, no seat of its own and no cards,
so the same page draws both.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from bot.i18n import Msg, Tr, msg
from bot.live.view import history_json, table_json
from bot.screens.parts import PLAIN, SUIT_ORDER, Name, Part, say
from bot.screens.seat_screen import (
    CANCELLED,
    PASSING,
    Player,
    commitment_line,
    how_it_ended,
    listed,
    revealed_proofs,
    seat_players,
    winners,
)
from bot.tables.model import Table
from engine import Card, HandResult, PublicView

Json = dict[str, Any]

NOT_A_MEMBER = msg("Only members of this table's group can watch it.")
WATCHING_OFF = msg("Watching is turned off for this event's tables.")
TOO_MANY = msg("Too many pages are watching from here. Close one and try again.")


@dataclass(frozen=True)
class WatcherView:
    """One moment of a table, as a watcher sees it. No field holds a card of a hand."""

    game: int
    hand: int
    phase: str
    ended: str | None
    """``"finished"``, ``"cancelled"``, or None while it is played."""
    status: Part
    """What happens now, in one line, as the group's message says it."""
    players: tuple[Player, ...]
    trick: tuple[tuple[int, Card], ...]
    last_trick: tuple[tuple[tuple[int, Card], ...], int] | None
    tricks_done: int
    hearts_broken: bool
    deadline: float | None
    voids: tuple[frozenset[str], ...]
    played: dict[str, tuple[Card, ...]]
    results: tuple[HandResult, ...]
    target: int
    winners: tuple[int, ...]
    sealed: Msg | None
    """This hand's deal commitment (public from the deal on)."""
    revealed: tuple[tuple[int, str, str], ...]
    """Each finished hand's seed and commitment (public once the hand is over)."""


def watcher_view(table: Table) -> WatcherView:
    """The watcher's view of `table` (which has a game), from its public view only."""
    game = table.game
    assert game is not None
    public = game.public_view()
    names = table.names()
    ended = how_it_ended(table, public.phase)
    playing = ended is None
    players = seat_players(table, names, public, playing)
    return WatcherView(
        game=table.id,
        hand=public.hand_number,
        phase=public.phase,
        ended=ended,
        status=CANCELLED if ended == "cancelled" else _status(names, public),
        players=players,
        trick=public.trick,
        last_trick=(public.tricks[-1].plays, public.tricks[-1].winner) if public.tricks else None,
        tricks_done=len(public.tricks),
        hearts_broken=public.hearts_broken,
        deadline=table.deadline if public.phase == "play" and playing else None,
        voids=tuple(frozenset(v) for v in public.voids()),
        played={suit: tuple(cards) for suit, cards in public.cards_played_by_suit().items()},
        results=public.hand_history,
        target=table.rules.target,
        winners=public.winners,
        sealed=commitment_line(game) if playing and public.phase != "over" else None,
        revealed=revealed_proofs(game),
    )


def _status(names: tuple[str, ...], public: PublicView) -> Part:
    """The group message's line of what happens now (`names`: every seat's)."""
    if public.phase == "over":
        return msg("🏁 <b>Game over!</b> {winners} won.", winners=winners(names, public.winners))
    if public.phase == "pass":
        return Msg(PASSING[public.pass_direction], {"names": listed(names, public.waiting_for)})
    if public.current_player is None:
        return ""
    name = Name(names[public.current_player])
    if public.phase == "moon":
        return msg("🌕 {name} shot the moon and is choosing.", name=name)
    return msg("Turn: <b>{name}</b>", name=name)


def watcher_state(tr: Tr, watched: WatcherView, version: int, watchers: int) -> Json:
    """A `WatcherView` as the page's JSON: a seat's shape, no seat of its own, no cards."""
    state: Json = {
        "t": "state",
        "watching": True,
        "watchers": watchers,
        "game": watched.game,
        "version": version,
        "hand": watched.hand,
        "phase": watched.phase,
        "you": None,
        **table_json(watched.players, watched.trick, watched.tricks_done, watched.last_trick),
        "cards": [],
        "hearts_broken": watched.hearts_broken,
        "status": say(tr, watched.status, PLAIN),
        "sealed": say(tr, watched.sealed, PLAIN) if watched.sealed is not None else None,
        "deadline": watched.deadline,
        "now": time.time(),
        "pass": None,
        "moon": None,
        "tracker": {
            "played": {suit: [c.symbol[:-1] for c in watched.played[suit]] for suit in SUIT_ORDER},
            "voids": {
                str(s): sorted(v, key=SUIT_ORDER.index) for s, v in enumerate(watched.voids) if v
            },
        },
        "history": history_json(watched.results, watched.target, watched.revealed),
        "over": (
            {"winners": list(watched.winners), "target": watched.target}
            if watched.phase == "over"
            else None
        ),
        "ended": watched.ended,
        "hint": None,
    }
    return state
