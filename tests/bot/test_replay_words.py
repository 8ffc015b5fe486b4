"""A replay's words in every shipped language: each sentence translated, the names kept
in their own direction, and the whole hand in one Telegram message for every table size."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from bot.i18n import ENGLISH, FSI, LANGUAGES, PDI, translator
from bot.live.replay import captions
from bot.replays.replays import hand_lines
from bot.screens.seat_screen import Words
from bot.telegram import draw
from bot.telegram.fit import utf16_len
from domain.games import StoredGame, StoredSeat
from engine import Game, Move, Rules
from engine.replay import HandReplay, frames, replays

NAMES = ["Ann", "Bob", "Chandra", "Dmitri", "Esperanza", "Farhad"]


def _hand(rules: Rules, seed: int) -> HandReplay:
    start = Game(rules, seed=seed)
    game, rng, moves = start.copy(), random.Random(seed), []
    while not game.hand_history:
        if game.phase == "pass":
            seat = game.waiting_for()[0]
            move = Move.pass_cards(seat, rng.sample(game.hand(seat), 3))
        elif game.phase == "moon":
            move = Move.moon(game.waiting_for()[0], "add_to_others")
        else:
            assert game.current_player is not None
            move = Move.play(game.current_player, rng.choice(game.legal_plays()))
        move.apply(game)
        moves.append(move)
    return replays(start, moves)[0]


def _stored(rules: Rules, names: list[str]) -> StoredGame:
    seats = tuple(StoredSeat(s, "human", names[s], 1000 + s) for s in range(rules.players))
    now = datetime.now(UTC)
    return StoredGame(
        7, -100, None, 1000, "finished", rules, seats, {}, None, 1, 0, [], 60, now, now, now
    )


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_hand_in_every_language_fits_one_message(language: str, players: int) -> None:
    rules = Rules(players=players, variant="two_player" if players == 2 else "standard")
    hand = _hand(rules, players)
    names = [name * 3 for name in NAMES]  # longer names than most
    said = Words(tuple(hand_lines(_stored(rules, names), hand)))
    text, _ = draw.words(translator(language), said)
    english, _ = draw.words(translator(ENGLISH), said)
    assert utf16_len(text) <= 4096
    for name in names[:players]:
        assert f"{FSI}{name}{PDI}" in text  # every name isolated, in every language
    lines, english_lines = text.splitlines(), english.splitlines()
    assert len(lines) == len(english_lines)
    passes = 2 + len(hand.passes) if hand.passes else 0
    moon = hand.shooter is not None
    assert len(lines) == 3 + players + bool(hand.dead) + passes + 2 + len(hand.tricks) + 3 + moon
    if language != ENGLISH:
        # The sentences (the title, the three headings) are the language's own.
        headings = ["<b>The deal</b>", "<b>The passes</b>", "<b>The tricks</b>"]
        worded = [0, *(k for k, line in enumerate(english_lines) if line in headings)]
        assert len(worded) == 3 + bool(hand.passes)
        for k in worded:
            assert lines[k] != english_lines[k], (language, english_lines[k])


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_pages_captions_in_every_language(language: str) -> None:
    rules = Rules(players=4)
    hand = _hand(rules, 4)
    names = NAMES[:4]
    said = captions(translator(language), names, hand)
    english = captions(translator(ENGLISH), names, hand)
    assert len(said) == len(frames(hand)) and all(said)
    assert all(FSI not in line or PDI in line for lines in said for line in lines)
    steps = [f.step for f in frames(hand)]
    for k, step in enumerate(steps):
        if language != ENGLISH and step in ("deal", "pass"):
            assert said[k][0] != english[k][0], (language, english[k][0])
    # The score: the hand's points and the standings, each seat named.
    assert all(name in "".join(said[-1]) for name in names)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_longest_names_at_a_table_of_three_are_cut_to_fit(language: str) -> None:
    rules = Rules(players=3)
    hand = _hand(rules, 3)
    names = [f"{n}{'x' * 64}"[:64] for n in NAMES[:3]]  # Telegram's longest names
    whole, _ = draw.words(
        translator(language), Words(tuple(hand_lines(_stored(rules, names), hand)))
    )
    cut, _ = draw.words(
        translator(language), Words(tuple(hand_lines(_stored(rules, names), hand, short=True)))
    )
    assert utf16_len(whole) > 4096 >= utf16_len(cut)
    english = draw.words(
        translator(ENGLISH), Words(tuple(hand_lines(_stored(rules, names), hand, short=True)))
    )[0]
    assert len(cut.splitlines()) == len(english.splitlines())  # every line, the last too
    assert f"{FSI}{names[0][:10]}…{PDI}" in cut
