"""Compact callback data for inline buttons: what was pressed, in which game, for which hand.

Telegram allows 64 bytes. A button says ``<action>:<game>:<stamp>:<arg>``, where the stamp
is the hand number for DM buttons (so a button from an earlier hand is recognised as stale)
and 0 for lobby buttons. Nothing in it is trusted: the service checks who pressed it, that
the game is the one the message belongs to, and that the move is legal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bot.basics import parse_id
from bot.core.accepts import Ask

MAX_BYTES: Final = 64
MAX_STAMP: Final = 999_999

# Lobby (group) actions.
JOIN, LEAVE, ADD_COMPUTER, RULES, START, CANCEL, BACK, SET_RULE, KICK = (
    "lj",
    "ll",
    "la",
    "lr",
    "ls",
    "lc",
    "lb",
    "ro",
    "lk",
)
# DM actions.
CARD, PASS, MOON, TRACKER = "c", "p", "m", "t"
# The coach in a DM: a hint (stamp: the hand) and a review (stamp: the hand to review).
HINT, REVIEW = "h", "v"
# Group actions under a finished game.
REMATCH: Final = "rm"
# Replays (`bot.telegram.replaying`): a game's finished hands; a hand (stamp: its number;
# arg "n": in a new message, under a hand's result).
REPLAY_GAME, REPLAY_HAND = "rg", "rh"
# The daily deal: post the presser's card of the day (the id field holds the day).
DAILY_POST: Final = "dp"
DAILY_ACTIONS: Final = frozenset({DAILY_POST})
# Tournament actions: the id field holds the tournament's id, not a game's.
TOURNAMENT_REGISTER, TOURNAMENT_WITHDRAW = "er", "ew"
TOURNAMENT_ACTIONS: Final = frozenset({TOURNAMENT_REGISTER, TOURNAMENT_WITHDRAW})
# A chat's language (/language): no game; the argument is the language ("" for automatic).
LANGUAGE: Final = "lg"
CHAT_ACTIONS: Final = frozenset({LANGUAGE})

SEAT_ACTIONS: Final = frozenset({CARD, PASS, MOON, TRACKER})
"""A seat's moves: paced faster than other presses (a hand played as fast as fingers go)."""
COACH_ACTIONS: Final = frozenset({HINT, REVIEW})
"""Paced by the coach itself (`bot.tables.coach`: one answer for many presses)."""

ACTIONS: Final = frozenset(
    {JOIN, LEAVE, ADD_COMPUTER, RULES, START, CANCEL, BACK, SET_RULE, KICK}
    | {CARD, PASS, MOON, TRACKER, REMATCH, HINT, REVIEW}
    | {REPLAY_GAME, REPLAY_HAND}
    | TOURNAMENT_ACTIONS
    | CHAT_ACTIONS
    | DAILY_ACTIONS
)

ASKS: Final = {
    JOIN: Ask.JOIN,
    LEAVE: Ask.LEAVE,
    ADD_COMPUTER: Ask.ADD_COMPUTER,
    RULES: Ask.RULES,
    BACK: Ask.RULES,
    SET_RULE: Ask.SET_RULE,
    KICK: Ask.KICK,
    START: Ask.START,
    CANCEL: Ask.CANCEL,
    CARD: Ask.CARD,
    PASS: Ask.PASS,
    MOON: Ask.MOON,
    TRACKER: Ask.TRACKER,
    HINT: Ask.HINT,
    REVIEW: Ask.REVIEW,
    REPLAY_GAME: Ask.REPLAY,
    REPLAY_HAND: Ask.REPLAY,
    REMATCH: Ask.REMATCH,
}
"""What each action that names a table asks of it (`bot.core.accepts`): every other action
names a tournament, a day or a chat."""
EVENT_ASKS: Final = {TOURNAMENT_REGISTER: Ask.REGISTER, TOURNAMENT_WITHDRAW: Ask.WITHDRAW}
"""What a tournament's buttons ask of it (`bot.core.accepts.EVENT_ACCEPTS`)."""


class BadCallback(ValueError):
    """Callback data this bot did not make (forged, or from another version)."""


@dataclass(frozen=True)
class Callback:
    action: str
    game_id: int
    stamp: int = 0
    arg: str = ""

    def encode(self) -> str:
        data = f"{self.action}:{self.game_id}:{self.stamp}:{self.arg}"
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback data too long: {data!r}")
        return data

    @classmethod
    def decode(cls, data: str | None) -> Callback:
        if not data or len(data.encode()) > MAX_BYTES:
            raise BadCallback("empty or oversized callback data")
        parts = data.split(":", 3)
        if len(parts) != 4 or parts[0] not in ACTIONS:
            raise BadCallback(f"unknown callback data {data!r}")
        action, game, stamp, arg = parts
        game_id = parse_id(game)
        hand = parse_id(stamp, MAX_STAMP)
        if game_id is None or hand is None:
            raise BadCallback(f"malformed callback data {data!r}")
        return cls(action, game_id, hand, arg)


def button(action: str, game_id: int, stamp: int = 0, arg: str = "") -> str:
    return Callback(action, game_id, stamp, arg).encode()


def posts_anew(data: Callback) -> bool:
    """Whether the press posts a new message where it was pressed (a hand's ▶ Replay under
    its result, 🔁 New game), rather than changing its own: in a group, it takes a share of
    the group's posts (`bot.flood.GroupPosts`)."""
    return data.action == REMATCH or (data.action == REPLAY_HAND and data.arg == "n")
