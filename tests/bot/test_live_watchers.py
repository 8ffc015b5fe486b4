"""What a watcher's page is sent (`bot.live.watchers`), over whole random games of every
variant: never a card any hand holds (nor one chosen to pass, nor a dead card) while it is
held; the seats, the trick, the scores, whose turn it is and the timer; the hand's
results once it is over. The view cannot hold a hand's card: its type has no such field."""

from __future__ import annotations

import json
import random
import re
from dataclasses import fields

import pytest
from test_live_view import step, table_for

from bot.core.phases import Phase
from bot.i18n import Tr, translator
from bot.live.view import words
from bot.live.watchers import (
    NOT_A_MEMBER,
    TOO_MANY,
    WATCHING_OFF,
    WatcherView,
    watcher_state,
    watcher_view,
)
from bot.screens.parts import PLAIN, say
from bot.screens.render import group_screen
from bot.screens.seat_screen import GroupScreen, WatchTable
from engine import Game, PublicView, Rules
from engine.cards import codes

CODE = re.compile(r'"((?:10|[2-9TJQKA])[SHDC])"')
"""A card's code as a JSON string, wherever it is in a frame."""


def hidden(game: Game) -> set[str]:
    """Every card no watcher may see now: in a hand (passed or not) or dead."""
    held = {c.code for s in range(game.players) for c in game.hand(s)}
    dead = set(codes(game.dead))
    return held | dead


@pytest.mark.parametrize(
    "rules",
    [Rules(), Rules(players=3), Rules(variant="complex"), Rules(players=2, variant="two_player")],
    ids=["standard", "three", "complex", "two_player"],
)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_watcher_is_never_sent_a_card_any_hand_holds(rules: Rules, seed: int) -> None:
    tr = translator("en")
    game = Game(rules, seed=seed, deal_key=random.Random(seed).randbytes(32))
    table = table_for(rules, game)
    table.deadline = 1e12
    table.ui.selections = {0: [c.code for c in game.hand(0)[:2]]}  # chosen, never shown
    rng = random.Random(seed)
    seen_phases, frames = set(), 0
    while game.phase != "over":
        state = watcher_state(tr, watcher_view(table), version=frames, watchers=2)
        text = json.dumps(state, ensure_ascii=False)
        assert not set(CODE.findall(text)) & hidden(game), text
        assert state["cards"] == [] and state["you"] is None and state["watching"] is True
        assert state["pass"] is None and state["moon"] is None and state["hint"] is None
        public = game.public_view()
        assert [s["cards"] for s in state["seats"]] == list(public.hand_sizes)
        assert [s["turn"] for s in state["seats"]] == [
            public.phase in ("play", "moon") and public.current_player == s
            for s in range(rules.players)
        ]
        assert [c["code"] for c in state["trick"]] == [c.code for _, c in game.trick]
        assert len(state["history"]["hands"]) == len(game.hand_history)
        assert state["watchers"] == 2 and state["sealed"].startswith("🔐")
        if game.phase == "play":
            assert state["deadline"] == 1e12
            assert game.current_player is not None
            assert state["status"] == f"Turn: \u2068P{game.current_player}\u2069"
        elif game.phase == "pass":
            assert state["status"].startswith(("Passing", "No passing"))
            assert [s["waiting"] for s in state["seats"]] == [
                s in game.waiting_for() for s in range(rules.players)
            ]
        seen_phases.add(game.phase)
        frames += 1
        step(game, rng)
    over = watcher_state(tr, watcher_view(table), version=frames, watchers=0)
    assert over["ended"] == "finished" and over["over"]["winners"] == list(game.winners)
    assert over["status"].startswith("🏁 Game over!") and "<b>" not in over["status"]
    hands = over["history"]["hands"]
    assert [h["hand"] for h in hands] == [h.hand_number for h in game.hand_history]
    assert all(h["seed"] and h["commitment"] for h in hands)  # what the results reveal
    assert "play" in seen_phases and over["sealed"] is None


def test_the_watchers_view_has_no_place_for_a_hands_card() -> None:
    """By construction: neither the engine's public view nor the watcher's has a field for
    a hand, a pass or the dead cards, so nothing can put one there."""
    for kind in (PublicView, WatcherView):
        names = {f.name for f in fields(kind)}
        assert not names & {"cards", "hand_cards", "hand_mask", "passed", "received", "dead"}
        assert not names & {"legal", "legal_mask", "chosen", "hint", "first_lead"}


def test_a_cancelled_table_tells_its_watchers_so() -> None:
    rules = Rules()
    game = Game(rules, seed=4)
    table = table_for(rules, game)
    rng = random.Random(4)
    while game.phase == "pass" or not game.trick:
        step(game, rng)
    table.phase = Phase.CANCELLED
    state = watcher_state(translator("en"), watcher_view(table), version=9, watchers=1)
    assert state["ended"] == "cancelled" and state["status"] == "♥ This table was cancelled."
    assert state["deadline"] is None and state["sealed"] is None
    assert not set(CODE.findall(json.dumps(state))) & hidden(game)


@pytest.mark.parametrize("language", ["es", "fa", "hi", "pt_BR", "ru"])
def test_a_watchers_page_speaks_the_readers_language(language: str) -> None:
    rules = Rules()
    game = Game(rules, seed=6)
    table = table_for(rules, game)
    rng = random.Random(6)
    while game.phase == "pass" or not game.trick:
        step(game, rng)
    tr = translator(language)
    state = watcher_state(tr, watcher_view(table), version=1, watchers=3)
    english = watcher_state(translator("en"), watcher_view(table), version=1, watchers=3)
    assert state["status"] != english["status"] and "<b>" not in state["status"]
    # The page's own words for a watcher, and every refusal a watcher may be given.
    for key in ("watching", "watchers"):
        assert words(tr)[key] not in ("", words(translator("en"))[key])
    for refusal in (NOT_A_MEMBER, WATCHING_OFF, TOO_MANY):
        said = say(tr, refusal, PLAIN)
        assert said and said != say(translator("en"), refusal, PLAIN)


def test_the_group_message_offers_watch_where_allowed_and_counts_the_watchers() -> None:
    rules = Rules()
    table = table_for(rules, Game(rules, seed=1))
    tr = translator("en")

    def shown(screen: GroupScreen) -> tuple[list[str], bool]:
        lines = [say(tr, line, PLAIN) for line in screen.lines]
        return lines, any(isinstance(b.action, WatchTable) for b in screen.actions)

    lines, watch = shown(group_screen(table, page=True, watchers=3))
    assert watch and "👀 3" in lines
    lines, watch = shown(group_screen(table, page=True))
    assert watch and not any("👀" in line for line in lines)
    assert not shown(group_screen(table, page=False, watchers=3))[1]  # no page, no watching
    table.options.watching = False  # an event's table whose organiser said no
    assert not shown(group_screen(table, page=True))[1]
    persian = shown_in(translator("fa"), group_screen(table, page=True, watchers=3))
    assert "👀 \u20683\u2069" in persian


def shown_in(tr: Tr, screen: GroupScreen) -> str:
    return "\n".join(say(tr, line, PLAIN) for line in screen.lines)
