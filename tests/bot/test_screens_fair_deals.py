"""A new deal's table message, which carries the hand's commitment, is sent to the group at
the players' own urgency, ahead of their screens (README, "Fair deals"); later states of
it wait as before (`Screens.show_all`, through the `Display` port)."""

from __future__ import annotations

import random
from typing import Any

from test_live_view import step, table_for

from bot.core.effects import Urgency
from bot.i18n import translator
from bot.screens.screens import Screens
from engine import Game, Rules

KEY = bytes(range(7, 39))


class Recording:
    """A `Display` that keeps which chat was to be edited, and how urgently."""

    page = False

    def __init__(self) -> None:
        self.edits: list[tuple[int, Urgency | None]] = []

    def edit_later(
        self,
        chat_id: int,
        message_id: int,
        screen: Any,
        thread_id: Any = None,
        *,
        urgency: Urgency | None = None,
    ) -> None:
        self.edits.append((chat_id, urgency))

    def is_newest(self, chat_id: int, message_id: int) -> bool:
        return True  # nothing is ever posted below a screen here


class English:
    def chat(self, chat_id: int) -> Any:
        return translator("en")

    def person(self, user_id: int) -> Any:
        return translator("en")


def group_urgency(screens: Screens, display: Recording, table: Any) -> Urgency | None:
    display.edits.clear()
    screens.show_all(table)
    (group, *_) = [urgency for chat, urgency in display.edits if chat == table.chat_id]
    assert display.edits[0][0] == table.chat_id  # the group's message first
    return group


def test_a_new_deals_table_message_goes_first_at_the_players_urgency() -> None:
    rules = Rules(target=30)
    game = Game(rules, deal_key=KEY)
    table = table_for(rules, game)
    table.ui.table_message_id = 1
    table.ui.dm_message_ids.update({seat: 10 + seat for seat in range(rules.players)})
    display = Recording()
    screens = Screens(None, display, None, English(), None, None)  # type: ignore[arg-type]
    assert group_urgency(screens, display, table) is Urgency.NOW  # just dealt
    rng = random.Random(3)
    step(game, rng)  # a pass: the commitment has been out since the deal
    assert group_urgency(screens, display, table) is None
    while game.hand_number == 1:
        step(game, rng)
    assert game.phase == "pass" and group_urgency(screens, display, table) is Urgency.NOW
