"""The small wrong things of issue 51, item 6, on the screens as data: no "Trick 14/13"
while the moon's shooter chooses, the ⏰ reminder in the pass's own words, a full lobby
that offers no Join, and the final scores by place."""

from __future__ import annotations

import random

from test_live_view import step, table_for

from bot.i18n import english
from bot.screens.parts import HTML, Name, say
from bot.screens.seat_screen import group_screen
from bot.tables.clock import reminder
from bot.tables.model import Seat
from bot.telegram.draw import dm, lobby
from engine import Game, Rules
from engine.scoring import rank_key

EN = english()
SUITED = [[f"{r}{s}" for r in "23456789TJQKA"] for s in "CDSH"]
"""Seat 2 holds every spade (Q♠ too), seat 3 every heart."""


def test_the_moon_choice_screen_has_no_trick_fourteen_of_thirteen() -> None:
    """Every trick is taken while the shooter chooses: no "Trick 14/13: —" on any DM."""
    rules = Rules(pass_cycle=("hold",), moon="choose")
    for seed in range(500):  # random play of this deal until one ends in a moon
        game = Game(rules, deals=[SUITED], first_dealer=3)
        rng = random.Random(seed)
        while game.phase == "play":
            step(game, rng)
        if game.phase == "moon":
            break
    assert game.phase == "moon"
    table = table_for(rules, game)
    for seat in range(4):
        text, _ = dm(EN, table, seat)
        assert "Trick 14" not in text and "/13: —" not in text, text


def test_the_reminder_says_what_is_awaited() -> None:
    chat = Name("Friends")
    said = {phase: say(EN, reminder(phase, 30, chat), HTML) for phase in ("pass", "moon", "play")}
    assert said["pass"] == "⏰ 30 s left to choose your pass in \u2068Friends\u2069."
    assert said["moon"] == "⏰ 30 s left to choose in \u2068Friends\u2069."
    assert said["play"] == "⏰ 30 s left to play in \u2068Friends\u2069."


def test_a_full_lobby_says_so_and_offers_no_join() -> None:
    rules = Rules()
    table = table_for(rules, Game(rules, seed=1))
    table.game = None
    text, markup = lobby(EN, table)
    labels = [b.text for row in markup.inline_keyboard for b in row]
    assert "Tap <b>Join</b>" not in text and "The table is full" in text
    assert "✋ Join" not in labels and "🤖 Add computer" not in labels
    assert {"🚪 Leave", "⚙ Rules", "▶ Start", "✖ Cancel"} <= set(labels)
    table.seats[2] = None
    text, markup = lobby(EN, table)
    labels = [b.text for row in markup.inline_keyboard for b in row]
    assert "Tap <b>Join</b>" in text and "✋ Join" in labels and "🤖 Add computer" in labels
    table.seats[2] = Seat("computer", "Grace", level="standard")


def test_the_final_scores_are_listed_by_place() -> None:
    rules = Rules(target=50)
    for seed in range(6):
        game = Game(rules, seed=seed)
        rng = random.Random(seed)
        while game.phase != "over":
            step(game, rng)
        table = table_for(rules, game)
        lines = [say(EN, line, HTML) for line in group_screen(table).lines]
        final = lines[lines.index("<b>Final scores</b>") + 1 :][:4]
        keys = [rank_key(rules, t) for t in game.scores]
        order = sorted(range(4), key=lambda s: (keys[s], s))
        for line, s in zip(final, order, strict=True):
            place = 1 + sum(k < keys[s] for k in keys)
            assert line == f"{place}. \u2068P{s}\u2069: {game.scores[s]}", (lines, game.scores)


def test_russian_names_the_game_as_its_suit_cherví() -> None:
    """The table's heading said "Червы" beside "черви" in the rules: one spelling."""
    from pathlib import Path

    from bot.i18n import translator

    ru = translator("ru")
    heading = ru("♥ <b>Hearts</b> — table opened by {creator}", creator="Ann")
    assert "Черви" in heading and "Червы" not in heading
    catalog = Path(__file__).resolve().parents[2] / "bot/locales/ru/LC_MESSAGES/messages.po"
    assert "Червы" not in catalog.read_text() and "червы" not in catalog.read_text()


def test_a_finished_event_does_not_say_when_it_starts() -> None:
    from datetime import UTC, datetime

    from bot.tournaments.render import tournament_message
    from domain.tournaments import StoredTournament, TournamentOptions, TournamentState

    now = datetime(2026, 12, 7, tzinfo=UTC)

    def event(status: str, starts_at: datetime | None) -> str:
        stored = StoredTournament(
            id=1,
            chat_id=-5,
            thread_id=None,
            organiser_id=1,
            organiser_name="Ann",
            name="Cup",
            rules=Rules(),
            options=TournamentOptions(),
            time_zone="UTC",
            starts_at=starts_at,
            registration_deadline=None,
            status=status,  # type: ignore[arg-type]
            current_round=2,
            state=TournamentState(),
            created_at=now,
        )
        return tournament_message(EN, stored, [], registration_open=False)[0]

    assert "Starts when the organiser sends /event start." in event("registration", None)
    assert "Starts: " in event("registration", now)
    for status in ("finished", "cancelled", "running"):
        for start in (None, now):
            assert "Starts" not in event(status, start), (status, start)
