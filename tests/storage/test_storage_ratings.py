"""Ratings as stored: rated with the game's last move (or as a game is cancelled after its
first hand), in its chat and overall, a leaver ranked last, the computer levels fixed,
rebuilt to the same floats, never twice."""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from openskill_reference import openskill_rate
from sqlalchemy import select
from storage_testkit import VARIANTS, play_stored, seats_for, tamper

from domain.games import StoredSeat
from engine import Game, Rules
from engine.scoring import rank_key
from ratings import (
    ANCHORS,
    COMPUTER_PLAYERS,
    REAL_OPPONENTS,
    SOLO_MARGIN,
    START,
    SeatResult,
    Skill,
    rate_record,
    solo_ceiling,
)
from storage import Storage, WrongGameStatus
from storage.rating import RECORDS
from storage.schema import rated_games, ratings

ADA, BOB, CY = 1, 2, 3
EASY = COMPUTER_PLAYERS["easy"]
EXPERT = COMPUTER_PLAYERS["expert"]
BOTS = [ANCHORS["expert"]] * 3
ONE_HAND = Rules(players=4, target=1)
"""A game of one hand, where what a test rates is how a game ends, not its length (a game
to 60 is four to six hands: 1.5 to 3 s each on PostgreSQL)."""


PROVEN = Skill(50.0, 1.0)
"""A record against computers (shown 1,940) that no test's game reaches."""


async def _proven(store: Storage, *people: int, record: Skill = PROVEN) -> None:
    """Give `people` a record against computers (`storage.rating.RECORDS`) that no test's
    game reaches, so a test of something else rates their games with people whole."""
    await tamper(
        store,
        *(
            (
                "INSERT INTO ratings (pool, chat_id, player, mu, sigma, games, updated_at)"
                " VALUES ('main', :scope, :player, :mu, :sigma, 50, 0)",
                {"scope": RECORDS, "player": p, "mu": record.mu, "sigma": record.sigma},
            )
            for p in people
        ),
    )


def _ranks(game: Game) -> list[int]:
    return [rank_key(game.rules, total) for total in game.scores]


def _seats(*users: int, level: str = "expert") -> list[StoredSeat]:
    people = [StoredSeat.human(i, u, f"P{u}") for i, u in enumerate(users)]
    return people + [StoredSeat.computer(i, f"C{i}", level) for i in range(len(users), 4)]


async def test_a_finished_game_is_rated_in_its_chat_and_overall(store: Storage) -> None:
    game_id, game = await play_stored(
        store, ONE_HAND, seed=1, chat_id=10, seats=_seats(ADA, BOB, CY)
    )
    want = openskill_rate([START] * 3 + [ANCHORS["expert"]], _ranks(game))
    for scope in (10, None):
        changes = await store.standings.rating_changes(game_id, scope)
        assert [c.player for c in changes] == [ADA, BOB, CY]  # the computer is fixed
        assert [c.after for c in changes] == want[:3]
        assert all(c.before == START and c.weight == 1.0 for c in changes)
        assert all(c.pool == "main" for c in changes)
    ada = await store.standings.player_rating(ADA, 10)
    assert ada is not None and ada.games == 1 and ada.skill == want[0]
    assert ada.provisional
    expected_place = 1 + sum(1 for s in want[:3] if s.conservative > want[0].conservative)
    assert (ada.place, ada.rated) == (expected_place, 3)
    board = await store.standings.rating_board(10)
    people = [e for e in board if e.player > 0]
    assert [e.player for e in people] == sorted(
        (ADA, BOB, CY), key=lambda p: -want[p - 1].conservative
    )
    assert [e.place for e in people] == [1, 2, 3]
    computers = [(e.player, e.skill) for e in board if e.player < 0]
    assert computers == sorted(
        ((COMPUTER_PLAYERS[level], skill) for level, skill in ANCHORS.items()),
        key=lambda c: -c[1].conservative,
    )
    assert people[0].display_name.startswith("P")


async def test_each_chat_keeps_its_own_ratings_and_overall_sees_them_all(
    store: Storage,
) -> None:
    await _proven(store, ADA, BOB)  # (two wins over experts beside a person: not capped)
    first, _ = await play_stored(store, ONE_HAND, seed=2, chat_id=10, seats=_seats(ADA, BOB))
    second, g2 = await play_stored(store, ONE_HAND, seed=3, chat_id=20, seats=_seats(ADA, BOB))
    in_10 = {c.player: c for c in await store.standings.rating_changes(first, 10)}
    in_20 = {c.player: c for c in await store.standings.rating_changes(second, 20)}
    overall = {c.player: c for c in await store.standings.rating_changes(second)}
    # The second chat starts everyone afresh; overall goes on from the first game.
    assert in_20[ADA].before == START
    assert overall[ADA].before == in_10[ADA].after
    fresh = openskill_rate([START] * 2 + BOTS[:2], _ranks(g2))
    assert [in_20[ADA].after, in_20[BOB].after] == fresh[:2]
    going_on = openskill_rate([in_10[p].after for p in (ADA, BOB)] + BOTS[:2], _ranks(g2))
    assert [overall[ADA].after, overall[BOB].after] == going_on[:2]
    overall_ada = await store.standings.player_rating(ADA)
    assert overall_ada is not None and overall_ada.games == 2
    history = await store.standings.rating_history(ADA)
    assert [h.game_id for h in history] == [first, second]
    assert history[1].before == history[0].after
    assert [h.game_id for h in await store.standings.rating_history(ADA, 20)] == [second]


def _leaver_last(ranks: list[int], leavers: set[int]) -> list[int]:
    return [max(ranks) + 1 if seat in leavers else r for seat, r in enumerate(ranks)]


async def test_a_person_who_left_after_one_move_is_rated_last_with_full_weight(
    store: Storage,
) -> None:
    """Leaving cost a share of a loss (one move of 55: weight 0.036); now a leaver is
    rated as finishing last, below everyone present, whatever their seat's total."""
    game_id, game = await play_stored(
        store, ONE_HAND, seed=4, chat_id=10, seats=_seats(ADA, BOB), own_moves={0: 1}
    )
    changes = {c.player: c for c in await store.standings.rating_changes(game_id)}
    assert changes[ADA].weight == 1.0
    want = openskill_rate([START] * 2 + BOTS[:2], _leaver_last(_ranks(game), {0}))
    assert [changes[ADA].after, changes[BOB].after] == want[:2]
    assert changes[ADA].after.shown < START.shown


async def test_a_no_show_is_a_leaver_and_leavers_tie_for_last(store: Storage) -> None:
    game_id, game = await play_stored(
        store,
        ONE_HAND,
        seed=5,
        chat_id=10,
        seats=_seats(ADA, BOB, CY),
        own_moves={1: 0, 2: 8},
    )
    changes = {c.player: c for c in await store.standings.rating_changes(game_id)}
    assert set(changes) == {ADA, BOB, CY}
    want = openskill_rate([START] * 3 + BOTS[:1], _leaver_last(_ranks(game), {1, 2}))
    assert [changes[p].after for p in (ADA, BOB, CY)] == want[:3]
    assert changes[BOB].after == changes[CY].after  # tied, from the same rating
    assert changes[BOB].after.mu < START.mu


async def test_a_person_back_with_rejoin_gains_by_their_share_and_loses_whole(
    store: Storage,
) -> None:
    """Ada makes 2 moves, a computer plays her seat's next 7, she is back (/rejoin) for
    the 5 left: a win gains by the share of the seat's moves she made (she was rated
    whole on the stand-in's play), a loss counts whole; Bob, who played all, as usual."""
    for seed, won in ((85, True), (83, False)):  # seat 0 alone first, then alone last
        game_id, game = await play_stored(
            store,
            ONE_HAND,
            seed=seed,
            chat_id=10,
            seats=_seats(ADA + seed, BOB + seed),
            own_moves={0: 2},
            back_after={0: 9},
        )
        ranks = _ranks(game)
        assert ranks.count(ranks[0]) == 1 and ranks[0] == (min(ranks) if won else max(ranks))
        moves = [e.move for e in await store.games.journal(game_id) if e.move.get("seat") == 0]
        share = sum(1 for m in moves if not m.get("stand_in")) / len(moves)
        assert share == 7 / 14  # (2 + the 5 after her 9th of the hand's 14)
        changes = {c.player: c for c in await store.standings.rating_changes(game_id)}
        ada, bob = changes[ADA + seed], changes[BOB + seed]
        weights = [share if won else 1.0, 1.0, 1.0, 1.0]
        want = openskill_rate([START] * 2 + BOTS[:2], ranks, weights)
        assert (ada.after, bob.after, ada.weight) == (want[0], want[1], weights[0])
        whole = openskill_rate([START] * 2 + BOTS[:2], ranks)[0]
        if won:
            assert START.mu < ada.after.mu < whole.mu
            assert ada.after.mu - START.mu == pytest.approx((whole.mu - START.mu) * share)
        else:
            assert ada.after == whole


async def test_back_with_rejoin_after_the_seats_last_move_a_win_earns_nothing(
    store: Storage,
) -> None:
    """Ada's seat is played by a computer from the first move to its last; she sends
    /rejoin before the game's last move (another seat's) and her seat wins: she made none
    of its moves, so the win earns her nothing (it earned one move's share before); Bob is
    rated as if her seat were played whole."""
    seed = 85
    game_id, game = await play_stored(
        store,
        ONE_HAND,
        seed=seed,
        chat_id=10,
        seats=_seats(ADA + seed, BOB + seed),
        own_moves={0: 0},
        back_after={0: 14},  # a hand's 14: her pass and 13 cards
    )
    ranks = _ranks(game)
    assert ranks.count(ranks[0]) == 1 and ranks[0] == min(ranks)  # her seat won alone
    journal = [e.move for e in await store.games.journal(game_id)]
    assert journal[-1].get("seat") != 0  # the game ended on another seat's move
    assert all(m.get("stand_in") for m in journal if m.get("seat") == 0)
    for scope in (10, None):
        changes = {c.player: c for c in await store.standings.rating_changes(game_id, scope)}
        ada, bob = changes[ADA + seed], changes[BOB + seed]
        assert ada.after == ada.before == START and ada.weight == 0.0
        assert bob.after == openskill_rate([START] * 2 + BOTS[:2], ranks)[1]


async def test_a_sock_puppet_counts_like_a_computer_and_an_established_person_whole(
    store: Storage,
) -> None:
    """Ada wins beside a fresh throwaway account and two `easy` computers: capped like a
    game against computers only. Beside Bob, established (five rated games, at least a
    newcomer's rating, `REAL_OPPONENTS` different people met), the same win counts whole."""
    ceiling = solo_ceiling([EASY] * 3)
    assert ceiling is not None
    first, g1 = await play_stored(store, ONE_HAND, seed=85, seats=_seats(ADA, 100, level="easy"))
    whole = openskill_rate([START] * 2 + [ANCHORS["easy"]] * 2, _ranks(g1))[0]
    assert whole.conservative > ceiling  # the win would have lifted her past it
    [ada, _] = await store.standings.rating_changes(first)
    assert ada.after == _capped(whole)
    established = Skill(30.0, 1.5)
    # Bob meets four people (REAL_OPPONENTS) in two games, then is set at five games.
    for seed, people in ((1, (201, 202, 203)), (2, (204,))):
        await play_stored(store, ONE_HAND, seed=seed, seats=_seats(BOB, *people))
    await tamper(
        store,
        (
            "UPDATE ratings SET mu = :mu, sigma = :sigma, games = 5"
            " WHERE pool = 'main' AND chat_id = 0 AND player = :player",
            {"player": BOB, "mu": established.mu, "sigma": established.sigma},
        ),
    )
    second, g2 = await play_stored(store, ONE_HAND, seed=85, seats=_seats(CY, BOB, level="easy"))
    [cy, _] = await store.standings.rating_changes(second)
    want = openskill_rate([START, established] + [ANCHORS["easy"]] * 2, _ranks(g2))[0]
    assert cy.after == want and cy.after.conservative > ceiling


async def test_puppets_that_met_too_few_people_lift_their_farmer_no_higher_than_the_ceiling(
    store: Storage,
) -> None:
    """Issue 50: three puppets that look established (five rated games, above a newcomer)
    but have met only their farmer and each other (fewer than `REAL_OPPONENTS` people)
    count like computers: the farmer's wins over them, one-hand games and games cancelled
    after their first hand, stop at a newcomer's + `SOLO_MARGIN` (no computer at the
    table); before, they counted whole and the farmer climbed past it."""
    farmer, puppets = 300, (301, 302, 303)
    lifted = Skill(30.0, 1.5)
    await tamper(
        store,
        *(
            (
                "INSERT INTO ratings (pool, chat_id, player, mu, sigma, games, updated_at)"
                " VALUES ('main', 0, :player, :mu, :sigma, 5, 0)",
                {"player": puppet, "mu": lifted.mu, "sigma": lifted.sigma},
            )
            for puppet in puppets
        ),
    )
    ceiling = solo_ceiling(puppets, like_computers=puppets)  # a newcomer's + SOLO_MARGIN
    assert ceiling is not None and len(puppets) < REAL_OPPONENTS
    wins = 0
    for seed in range(1, 40):
        cancelled = seed % 2 == 0  # every other game stopped after its first hand
        game_id, game = await play_stored(
            store,
            VARIANTS["four"] if cancelled else ONE_HAND,
            seed=seed,
            seats=_seats(farmer, *puppets),
            hands=1 if cancelled else None,
        )
        if cancelled:
            assert await store.games.cancel_game(game_id) is True
        ranks = _ranks(game)
        [change] = [c for c in await store.standings.rating_changes(game_id) if c.player == farmer]
        assert change.after.conservative <= max(change.before.conservative, ceiling) + 1e-9
        if ranks[0] < min(ranks[1:]):
            wins += 1
            whole = openskill_rate([change.before, *[lifted] * 3], ranks)[0]
            if whole.conservative > ceiling:
                assert change.after.conservative < whole.conservative  # capped, not whole
                break
    else:
        pytest.fail("the farmer never won a game that would have lifted them past the ceiling")
    entry = await store.standings.player_rating(farmer)
    assert entry is not None and entry.skill.shown <= START.shown + SOLO_MARGIN
    assert wins >= 1


async def _record(store: Storage, person: int) -> Skill | None:
    """A person's record against computers as stored (`storage.rating.RECORDS`)."""
    rows = await store.database.read(
        select(ratings.c.mu, ratings.c.sigma).where(
            ratings.c.pool == "main", ratings.c.chat_id == RECORDS, ratings.c.player == person
        )
    )
    return Skill(rows[0][0], rows[0][1]) if rows else None


def _alone(person: int, game: Game, level: str) -> list[SeatResult]:
    ranks = _ranks(game)
    return [SeatResult(0, person, ranks[0])] + [
        SeatResult(seat, COMPUTER_PLAYERS[level], ranks[seat]) for seat in (1, 2, 3)
    ]


async def test_a_record_counts_games_played_alone_against_computers_to_their_end(
    store: Storage,
) -> None:
    """Issue 50: each person's record against computers (what bounds their games with
    people) changes with a game played alone against computers to its end (not capped
    against `expert`); not with one stopped after its first hand, nor one with another
    person, nor one whose deal could be known or played with hints. A rebuild gives the
    same records, and a database from before records were kept gets them from its games
    at the next rating."""
    first, g1 = await play_stored(store, ONE_HAND, seed=11, chat_id=10, seats=_seats(ADA))
    record = openskill_rate([START, *BOTS], _ranks(g1))[0]  # against experts: whole
    assert await _record(store, ADA) == record
    stopped, _ = await play_stored(store, VARIANTS["four"], seed=12, seats=_seats(ADA), hands=1)
    assert await store.games.cancel_game(stopped) is True
    assert await _record(store, ADA) == record
    await play_stored(store, ONE_HAND, seed=13, chat_id=10, seats=_seats(ADA, BOB))
    assert (await _record(store, ADA), await _record(store, BOB)) == (record, START)
    fourth, g4 = await play_stored(store, ONE_HAND, seed=14, seats=_seats(ADA, level="easy"))
    against_experts, record = record, rate_record(_alone(ADA, g4, "easy"), {ADA: record}).after
    assert await _record(store, ADA) == record
    report = await store.standings.rebuild_ratings()
    assert report.differing == 0
    assert (await _record(store, ADA), await _record(store, BOB)) == (record, START)
    # Nor does a game whose deal someone could know (the daily deal's, a tournament's) or
    # one played with the coach's hints: rebuilt so, the fourth game no longer counts.
    for meta, tournament in (
        ('{"hints_used": {"1": {"0": 1}}}', None),
        ('{"daily": 12}', None),
        ("{}", 1),
    ):
        await tamper(
            store,
            (
                "UPDATE games SET meta = :meta, tournament_id = :tournament WHERE id = :id",
                {"meta": meta, "tournament": tournament, "id": fourth},
            ),
        )
        assert (await store.standings.rebuild_ratings()).differing == 0
        assert await _record(store, ADA) == against_experts
    await tamper(
        store,
        ("UPDATE games SET meta = '{}', tournament_id = NULL WHERE id = :id", {"id": fourth}),
    )
    await store.standings.rebuild_ratings()
    assert await _record(store, ADA) == record
    await tamper(store, ("DELETE FROM ratings WHERE chat_id = :scope", {"scope": RECORDS}))
    assert await _record(store, ADA) is None
    await play_stored(store, ONE_HAND, seed=15, chat_id=10, seats=_seats(BOB, ADA))
    assert (await _record(store, ADA), await _record(store, BOB)) == (record, START)
    assert first


async def test_a_ring_of_four_puppets_lifts_its_farmer_no_higher_than_its_records(
    store: Storage,
) -> None:
    """Issue 50: four puppets meet four people among themselves and their farmer, so they
    count as real opponents (each lifted just above a newcomer, as by wins against `easy`;
    the farmer set just under the ceiling before each game). The farmer's wins over them,
    one-hand games and games cancelled after their first hand, stop at a newcomer's +
    `SOLO_MARGIN`: nobody in the ring has a record against computers above it, nor is
    rated above it."""
    farmer, puppets = 300, (301, 302, 303, 304)
    for seed, table in enumerate(
        ((300, 301, 302, 303), (300, 301, 302, 304), (303, 304, 300, 301))
    ):
        await play_stored(store, ONE_HAND, seed=seed, seats=_seats(*table))
    lifted, near = Skill(6.0, 1.5), Skill(19.95, 5.0)  # 1,030; 1,099

    def established(person: int, skill: Skill) -> tuple[str, dict[str, Any]]:
        return (
            "UPDATE ratings SET mu = :mu, sigma = :sigma, games = 5"
            " WHERE pool = 'main' AND chat_id = 0 AND player = :player",
            {"player": person, "mu": skill.mu, "sigma": skill.sigma},
        )

    await tamper(store, *(established(p, lifted) for p in puppets))
    ceiling = START.conservative + SOLO_MARGIN / 20
    passed = 0
    for seed in range(1, 40):
        await tamper(store, established(farmer, near))  # each game from just under it
        table = [puppets[(seed + i) % 4] for i in range(3)]
        cancelled = seed % 2 == 0  # every other game stopped after its first hand
        game_id, game = await play_stored(
            store,
            VARIANTS["four"] if cancelled else ONE_HAND,
            seed=seed,
            seats=_seats(farmer, *table),
            hands=1 if cancelled else None,
        )
        if cancelled:
            assert await store.games.cancel_game(game_id) is True
        changes = {c.player: c for c in await store.standings.rating_changes(game_id)}
        mine = changes[farmer]
        assert mine.before == near
        assert mine.after.conservative <= ceiling + 1e-9
        whole = openskill_rate([near, *(changes[p].before for p in table)], _ranks(game))
        if whole[0].conservative > ceiling + 1e-9:  # the rules before (people met): whole
            passed += 1
        if passed == 2:
            break
    else:
        pytest.fail("no two games would have lifted the farmer past the ceiling")
    for person in (farmer, *puppets):
        entry = await store.standings.player_rating(person)
        assert entry is not None and entry.skill.shown <= START.shown + SOLO_MARGIN


async def test_two_player_games_are_rated_in_their_own_pool(store: Storage) -> None:
    game_id, _ = await play_stored(
        store, replace(VARIANTS["two_player"], target=1), seed=6, chat_id=10, user_ids=[ADA, BOB]
    )
    assert {c.pool for c in await store.standings.rating_changes(game_id)} == {"two"}
    assert await store.standings.player_rating(ADA, pool="main") is None
    two = await store.standings.player_rating(ADA, pool="two")
    assert two is not None and two.games == 1


async def test_a_game_cancelled_during_its_first_hand_does_not_count(
    store: Storage,
) -> None:
    game_id, _ = await play_stored(
        store, VARIANTS["four"], seed=7, chat_id=10, user_ids=[ADA], max_moves=20
    )
    assert await store.games.cancel_game(game_id) is False
    assert await store.standings.rating_changes(game_id) == []
    assert await store.standings.player_rating(ADA) is None


async def test_a_game_cancelled_after_its_first_hand_is_rated_from_its_totals(
    store: Storage,
) -> None:
    """A host who cancels while losing (or a group that removes the bot) is rated from
    the standing totals, with a leaver last, in the same transaction as the cancel."""
    game_id, game = await play_stored(
        store,
        VARIANTS["four"],
        seed=9,
        chat_id=10,
        seats=_seats(ADA, BOB, CY),
        own_moves={2: 3},
        hands=2,
        max_moves=None,
    )
    assert len(game.hand_history) == 2 and game.phase != "over"
    assert await store.games.cancel_game(game_id) is True
    want = openskill_rate([START] * 3 + BOTS[:1], _leaver_last(_ranks(game), {2}))
    for scope in (10, None):
        changes = await store.standings.rating_changes(game_id, scope)
        assert [c.player for c in changes] == [ADA, BOB, CY]
        assert [c.after for c in changes] == want[:3]
    ada = await store.standings.player_rating(ADA)
    assert ada is not None and ada.games == 1
    with pytest.raises(WrongGameStatus):  # cancelled once, rated once
        await store.games.cancel_game(game_id)
    assert len(await store.standings.rating_history(ADA)) == 1


async def test_farming_and_sock_puppets_move_nobody_beyond_the_ceiling(
    store: Storage,
) -> None:
    """Games with one person and three `easy` computers: whatever the person's results,
    their rating stays at or below easy's + `SOLO_MARGIN`; easy is never stored or moved,
    so puppets losing to it leave a newcomer's gain against it as it was."""
    ceiling = ANCHORS["easy"].shown + SOLO_MARGIN
    first, g1 = await play_stored(store, ONE_HAND, seed=60, seats=_seats(ADA, level="easy"))
    newcomer = openskill_rate([START] + [ANCHORS["easy"]] * 3, _ranks(g1))[0]
    for user, seed in ((100, 61), (101, 62), (102, 63), (ADA, 64), (ADA, 65)):
        await play_stored(store, ONE_HAND, seed=seed, seats=_seats(user, level="easy"))
    late, g2 = await play_stored(store, ONE_HAND, seed=60, seats=_seats(BOB, level="easy"))
    assert _ranks(g2) == _ranks(g1)
    [bob] = await store.standings.rating_changes(late)
    [ada] = await store.standings.rating_changes(first)
    assert bob.after == ada.after == _capped(newcomer)
    for user in (ADA, BOB, 100, 101, 102):
        entry = await store.standings.player_rating(user)
        assert entry is not None and entry.skill.shown <= ceiling
    assert await store.standings.player_rating(EASY) is None
    board = await store.standings.rating_board(None)
    assert [e.skill for e in board if e.player == EASY] == [ANCHORS["easy"]]


def _capped(after: Skill) -> Skill:
    limit = solo_ceiling([EASY] * 3)
    assert limit is not None
    return after if after.conservative <= limit else Skill(limit + 3 * after.sigma, after.sigma)


async def test_complex_hearts_is_rated_by_magnitude_in_the_main_pool(store: Storage) -> None:
    game_id, game = await play_stored(
        store,
        replace(VARIANTS["complex"], target=1),
        seed=8,
        chat_id=10,
        seats=_seats(ADA, BOB, CY),
    )
    changes = await store.standings.rating_changes(game_id)
    assert {c.pool for c in changes} == {"main"}
    assert [c.after for c in changes] == openskill_rate([START] * 3 + BOTS[:1], _ranks(game))[:3]


async def test_rebuild_gives_exactly_the_stored_values(store: Storage) -> None:
    plan = [
        ("four", 10, (ADA, BOB, CY)),
        ("complex", 10, (BOB, CY)),
        ("omnibus", 20, (ADA, CY)),
        ("four", 20, (ADA,)),
        ("four", 10, (CY, ADA, BOB)),
    ]
    for seed, (variant, chat, users) in enumerate(plan, start=20):
        await play_stored(
            store,
            replace(VARIANTS[variant], target=1),  # one hand each
            seed=seed,
            chat_id=chat,
            seats=_seats(*users),
            own_moves={0: 12} if seed == 22 else None,
        )
    await play_stored(
        store, replace(VARIANTS["two_player"], target=1), seed=30, chat_id=10, user_ids=[ADA, BOB]
    )
    # Cancelled after its first hand, with a leaver: rated; during its first hand: not.
    cancelled, _ = await play_stored(
        store,
        VARIANTS["four"],
        seed=31,
        chat_id=10,
        seats=_seats(ADA, BOB),
        own_moves={1: 2},
        hands=1,
    )
    assert await store.games.cancel_game(cancelled)
    early, _ = await play_stored(
        store, VARIANTS["four"], seed=32, chat_id=10, seats=_seats(ADA, BOB), max_moves=9
    )
    assert not await store.games.cancel_game(early)
    before = [
        await store.standings.rating_board(s, p) for s in (None, 10, 20) for p in ("main", "two")
    ]
    history = await store.standings.rating_history(ADA)
    report = await store.standings.rebuild_ratings()
    assert (report.games, report.differing) == (7, 0)
    assert report.values == 2 * (3 + 2 + 2 + 1 + 3 + 2 + 2)
    assert [
        await store.standings.rating_board(s, p) for s in (None, 10, 20) for p in ("main", "two")
    ] == before
    assert await store.standings.rating_history(ADA) == history

    # A stored value that is not what the model gives is found and put right.
    await tamper(
        store, ("UPDATE rating_changes SET mu_after = mu_after + 1 WHERE player = :p", {"p": ADA})
    )
    report = await store.standings.rebuild_ratings()
    assert report.differing > 0
    assert await store.standings.rating_history(ADA) == history


async def test_games_finished_before_ratings_existed_are_rated_once_by_the_backlog(
    db_path: Path,
) -> None:
    store = await Storage.open(db_path)
    ids = [
        (await play_stored(store, ONE_HAND, seed=s, chat_id=10, seats=_seats(ADA)))[0]
        for s in (40, 41)
    ]
    rated = await store.standings.rating_board(10)
    await store.close()
    with sqlite3.connect(db_path) as db:  # as a version 6 database left them
        for table in ("rating_changes", "ratings", "rated_games"):
            db.execute(f"DELETE FROM {table}")
    store = await Storage.open(db_path)
    assert await store.standings.rating_board(10) == []  # opening rates nothing itself
    await store.close()
    for expected in (2, 0):  # the bot's start-up, twice: rated the first time only
        store = await Storage.open(db_path)
        assert await store.standings.rate_backlog() == expected
        assert await store.standings.rating_board(10) == rated
        ada = await store.standings.player_rating(ADA, 10)
        assert ada is not None and ada.games == 2
        await store.close()
    assert ids


async def test_a_game_that_ends_across_a_restart_is_rated_once(db_path: Path) -> None:
    store = await Storage.open(db_path)
    rules = ONE_HAND
    seats = seats_for(4, [ADA, BOB])
    game_id, game = await play_stored(store, rules, seed=50, chat_id=10, seats=seats)
    last = (await store.games.journal(game_id))[-1]
    await store.close()
    store = await Storage.open(db_path)  # the bot restarts after the last move
    from engine import Move

    with pytest.raises(WrongGameStatus):  # the last move sent again is refused
        await store.games.record_move(game_id, Move.from_dict(last.move), game)
    ada = await store.standings.player_rating(ADA)
    assert ada is not None and ada.games == 1
    assert len(await store.standings.rating_history(ADA)) == 1
    await store.close()


async def test_ratings_from_before_the_levels_were_fixed_still_read_and_rebuild(
    store: Storage,
) -> None:
    """A database whose computer levels were rated like people (easy moved to 1634 by
    sock puppets): it reads as before, the board shows the fixed levels, and a rebuild
    says which stored values the new rules change and drops the levels' old rows."""
    game_id, _ = await play_stored(store, ONE_HAND, seed=70, chat_id=10, seats=_seats(ADA))
    board = await store.standings.rating_board(10)
    await tamper(
        store,
        (
            "INSERT INTO ratings (pool, chat_id, player, mu, sigma, games, updated_at)"
            " VALUES ('main', 10, :player, 40.0, 1.0, 41, 0)",
            {"player": EXPERT},
        ),
        (
            "INSERT INTO rating_changes (game_id, chat_id, player, pool, seat, weight,"
            " mu_before, sigma_before, mu_after, sigma_after)"
            " VALUES (:game, 10, :player, 'main', 1, 1.0, 25.0, 8.0, 26.0, 7.0)",
            {"game": game_id, "player": EXPERT},
        ),
    )
    assert await store.standings.rating_board(10) == board
    ada = await store.standings.player_rating(ADA, 10)
    assert ada is not None and (ada.place, ada.rated) == (1, 1)
    report = await store.standings.rebuild_ratings()
    assert (report.games, report.differing) == (1, 1)
    assert await store.standings.rating_board(10) == board
    assert [c.player for c in await store.standings.rating_changes(game_id, 10)] == [ADA]


async def test_the_upserts_of_a_rating_and_of_a_handled_update_are_compiled_once(
    store: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLAlchemy gives an ON CONFLICT clause no cache key, so an upsert executed as an
    expression is compiled at every call: each game rated compiled its ratings' upsert
    again (twice: its chat and overall), each move made by an update its ledger row's.
    Written once, they are compiled once, and store the same rows."""
    from sqlalchemy.dialects.postgresql.base import PGCompiler
    from sqlalchemy.dialects.sqlite.base import SQLiteCompiler

    from domain.handling import Handling

    compiled: list[str] = []
    for compiler in (PGCompiler, SQLiteCompiler):
        for visit in ("visit_on_conflict_do_update", "visit_on_conflict_do_nothing"):
            original = getattr(compiler, visit)

            def counted(self: object, *args: object, _o: object = original, **kw: object) -> str:
                compiled.append(type(self).__name__)
                return _o(self, *args, **kw)  # type: ignore[operator, no-any-return]

            monkeypatch.setattr(compiler, visit, counted)

    async def play(seed: int, update_id: int) -> int:
        game_id, _ = await play_stored(
            store,
            ONE_HAND,
            seed=seed,
            chat_id=10,
            seats=_seats(ADA, BOB),
            handled=Handling(update_id),
        )
        return game_id

    await play(1, 9001)  # compiled here, if no test before compiled them
    compiled.clear()
    game_id = await play(2, 9002)
    assert compiled == []
    assert [c.player for c in await store.standings.rating_changes(game_id, 10)] == [ADA, BOB]
    assert (await store.standings.player_rating(ADA, 10)).games == 2  # type: ignore[union-attr]
    assert await store.ledger.was_handled(9002)


async def test_a_rebuild_sends_a_handful_of_statements_not_a_dozen_a_game(store: Storage) -> None:
    """Rebuilding reads the games' inputs a chunk at a time, keeps the ratings as they
    change, and writes them in batches: the same ratings (nothing differing) in a few
    statements whatever the number of games (it was twelve a game: 100,000 stored hands,
    60,000 statements)."""
    from sqlalchemy import Engine, event

    for seed in range(8):
        await play_stored(store, ONE_HAND, seed=seed, chat_id=10 + seed % 2, seats=_seats(ADA, BOB))
    board = await store.standings.rating_board(10)
    sent: list[str] = []

    def count(*args: object) -> None:
        sent.append(str(args[2]))

    event.listen(Engine, "before_cursor_execute", count)
    try:
        report = await store.standings.rebuild_ratings()
    finally:
        event.remove(Engine, "before_cursor_execute", count)
    assert (report.games, report.differing) == (8, 0)
    assert len(sent) <= 20, sent
    assert await store.standings.rating_board(10) == board


async def test_games_ending_at_once_on_two_accounts_are_all_rated_one_after_another(
    postgres_url: str,
) -> None:
    """Two bot accounts (two processes, each with its connection pool) on one PostgreSQL
    end games at the same moment, in one group: each game is rated, in an order of its own
    (no two share a place in the rating order), and the group's board counts every game.
    Rating reads the ratings and the last place and writes them back: without a lock two
    transactions read the same ones (a /cancel failed so in the two-account load run).
    Each table has people of its own: nobody sits at two live tables (issue 50.3)."""
    first, second = await Storage.open(postgres_url), await Storage.open(postgres_url)
    try:
        stores = [first, second] * 4
        played = await asyncio.gather(
            *(
                play_stored(store, ONE_HAND, seed=50 + n, chat_id=10, seats=_seats(100 + n))
                for n, store in enumerate(stores)
            )
        )
        rows = await first.database.read(select(rated_games.c.seq, rated_games.c.game_id))
        assert sorted(g for _, g in rows) == sorted(game_id for game_id, _ in played)
        assert len({seq for seq, _ in rows}) == len(stores)  # one place each
        for n in range(len(stores)):
            rated = await second.standings.player_rating(100 + n)
            assert rated is not None and rated.games == 1
    finally:
        await first.close()
        await second.close()
