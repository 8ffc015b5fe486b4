"""Who may replay which hand (`bot.replays.replays.Replays`), on a real SQLite database: a
group's member in the group, a player anywhere, nobody else; a hand in progress never; a
tournament's hands once every one of its tables has finished (they may share deals)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.basics import Person, UserError
from bot.replays.replays import NOT_OVER, NOT_YOURS, TOURNAMENT_PLAYING, Replays
from domain.games import StoredSeat
from engine import Game, Move, Rules
from storage import Storage

GROUP = -100
RULES = Rules(players=4, target=100)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Storage]:
    storage = await Storage.open(tmp_path / "hearts.db")
    try:
        yield storage
    finally:
        await storage.close()


def _seats(first: int = 10) -> list[StoredSeat]:
    return [StoredSeat(s, "human", f"P{s}", first + s) for s in range(4)]


async def _played(
    store: Storage, hands: int, tournament: int | None = None, first: int = 10
) -> int:
    """A game of the group with `hands` hands over and the next one begun, its people
    numbered from `first` (one live table each)."""
    seats = _seats(first)
    game_id = await store.games.create_lobby(GROUP, None, first, RULES, seats, {}, tournament)
    game = Game(RULES, seed=game_id)
    await store.games.start_game(game_id, seats, game)
    rng = random.Random(game_id)
    while len(game.hand_history) < hands or not game.tricks:
        if game.phase == "pass":
            seat = game.waiting_for()[0]
            move = Move.pass_cards(seat, rng.sample(game.hand(seat), 3))
        elif game.phase == "moon":
            move = Move.moon(game.waiting_for()[0], "add_to_others")
        else:
            assert game.current_player is not None
            move = Move.play(game.current_player, rng.choice(game.legal_plays()))
        move.apply(game)
        await store.games.record_move(game_id, move, game, None)
    return game_id


async def _refused(call: object) -> str:
    with pytest.raises(UserError) as refused:
        await call  # type: ignore[misc]
    return refused.value.said.message


async def test_members_in_the_group_and_players_anywhere(store: Storage) -> None:
    replays = Replays(store.games, store.standings)
    game_id = await _played(store, hands=1)
    player, stranger = Person(10, "P0"), Person(99, "Zed")
    # In the group: a member (Telegram shows its buttons to members only).
    stored, hand = await replays.hand(game_id, 1, stranger, GROUP)
    assert hand.hand_number == 1 and stored.id == game_id
    # A player in their DM; a stranger elsewhere is refused.
    assert (await replays.hand(game_id, 1, player, player.id))[1].hand_number == 1
    assert await _refused(replays.hand(game_id, 1, stranger, stranger.id)) == NOT_YOURS.message
    assert await _refused(replays.hand(game_id, 1, stranger, -555)) == NOT_YOURS.message
    # Hand 2 is being played: refused to everyone, its players too.
    assert await _refused(replays.hand(game_id, 2, player, GROUP)) == NOT_OVER.message
    assert await _refused(replays.text(game_id, 2, player, player.id)) == NOT_OVER.message
    # A hand that never was, or not yet dealt: said so.
    for number in (3, 0, 999):
        said = await _refused(replays.hand(game_id, number, player, GROUP))
        assert said == "There is no hand {hand} in this game."


async def test_a_tournaments_hands_wait_for_all_its_tables(store: Storage) -> None:
    replays = Replays(store.games, store.standings)
    over = await _played(store, hands=1, tournament=7)
    other = await _played(store, hands=0, tournament=7, first=20)  # the round's other table
    player = Person(10, "P0")
    said = await _refused(replays.hand(over, 1, player, GROUP))
    assert said == TOURNAMENT_PLAYING.message
    await store.games.cancel_game(other)
    await store.games.cancel_game(over)
    assert (await replays.hand(over, 1, player, GROUP))[1].hand_number == 1
