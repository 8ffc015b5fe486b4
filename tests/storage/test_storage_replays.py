"""A finished hand is rebuilt from the stored journal (`engine.replay` over `Journal`),
for games dealt from a key and for games stored before verifiable deals (no key)."""

from __future__ import annotations

import secrets

import pytest
from storage_testkit import VARIANTS, play_stored, seats_for

from engine.replay import HandNotOver, hand_replay, replays
from storage import Storage


@pytest.mark.parametrize("keyed", [False, True], ids=["seed (before fair deals)", "deal key"])
async def test_a_stored_games_hands_replay_from_its_journal(store: Storage, keyed: bool) -> None:
    key = secrets.token_bytes(32) if keyed else None
    game_id, game = await play_stored(store, VARIANTS["four"], seed=3, hands=3, deal_key=key)
    start, journal = await store.games.game_and_moves(game_id)
    hands = replays(start, [move for move, _ in journal])
    assert [h.hand_number for h in hands] == [1, 2, 3] == [r.hand_number for r in game.hand_history]
    for hand, result in zip(hands, game.hand_history, strict=True):
        assert (hand.points, hand.totals, hand.shooter) == (
            result.points,
            result.totals,
            result.shooter,
        )
    # The hand being played (the fourth has been dealt) is refused.
    with pytest.raises(HandNotOver):
        hand_replay(start, [move for move, _ in journal], 4)


async def test_a_chats_games_are_its_dealt_games_newest_first(store: Storage) -> None:
    first, _ = await play_stored(store, VARIANTS["four"], seed=1, chat_id=-7, hands=1)
    other, _ = await play_stored(store, VARIANTS["four"], seed=2, chat_id=-8, hands=1)
    second, _ = await play_stored(store, VARIANTS["three"], seed=3, chat_id=-7, max_moves=5)
    lobby = await store.games.create_lobby(-7, None, 1, VARIANTS["four"], seats_for(4))
    found = await store.standings.chat_games(-7, None)
    assert [g.game_id for g in found] == [second, first]  # not the lobby, nor another chat's
    assert lobby not in [g.game_id for g in found] and other not in [g.game_id for g in found]
    assert [g.game_id for g in await store.standings.chat_games(-7, None, limit=1)] == [second]
    assert [len(g.hands) for g in found] == [0, 1]
    assert [s.display_name for s in found[1].seats] == [s.display_name for s in seats_for(4)]
    assert await store.standings.chat_games(-7, 99) == []


async def test_a_tournament_is_playing_while_one_of_its_tables_is_open(store: Storage) -> None:
    assert not await store.standings.tournament_playing(5)
    lobby = await store.games.create_lobby(-7, None, 1, VARIANTS["four"], seats_for(4), {}, 5)
    assert await store.standings.tournament_playing(5)
    assert not await store.standings.tournament_playing(6)
    await store.games.cancel_game(lobby)
    assert not await store.standings.tournament_playing(5)
