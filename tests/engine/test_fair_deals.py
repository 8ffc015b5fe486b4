"""Deals anyone can verify (issue 33, item 3): a hand's seed, its deal, its commitment."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter

import pytest
from hearts_helpers import HOLD, hands, play_hand

from engine import Game, Rules, fair
from engine.cards import deck_mask, mask_of_codes

KEY = bytes(range(32))


def rules_for(players: int, **options: object) -> Rules:
    variant = "two_player" if players == 2 else "standard"
    return Rules(players=players, variant=variant, **options)  # type: ignore[arg-type]


def piles(game: Game) -> tuple[list[int], int]:
    return list(game.hands), game.dead


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_hand_is_the_deal_of_its_own_seed(players: int) -> None:
    """Each hand's cards are the documented shuffle of HMAC-SHA256(key, "hearts hand h"),
    dealt from the dealer's left, and its commitment verifies."""
    rules = rules_for(players, pass_cycle=HOLD, target=10_000, moon="add_to_others")
    game = Game(rules, seed=5, deal_key=KEY)
    assert game.first_dealer == fair.first_dealer(KEY, players)
    for number in range(1, 4):
        seed = hmac.new(KEY, f"hearts hand {number}".encode(), hashlib.sha256).digest()
        assert piles(game) == fair.deal(seed, players, game.dealer)
        proof = game.deal_proof()
        assert proof is not None
        assert proof.seed == f"{players}p-d{game.dealer + 1}-{seed.hex()}"
        verdict = fair.verify(proof.seed, proof.commitment)
        assert verdict.matches
        assert (verdict.hands, verdict.dead) == piles(game)
        play_hand(game)


def test_the_scheme_gives_these_cards_in_every_version() -> None:
    """A known answer: stored games and published seeds must verify forever."""
    seed = "4p-d1-" + "00" * 32
    verdict = fair.verify(seed, "")
    assert not verdict.matches
    text = fair.deal_text(verdict.hands, verdict.dead)
    assert hashlib.sha256(f"{seed}\n{text}".encode()).hexdigest() == verdict.commitment
    assert fair.verify(seed, verdict.commitment.upper()).matches
    assert text.splitlines()[0] == "2C 3C 8C KD AD 5S 6S KS AS 3H 7H 9H KH"
    assert verdict.commitment == (
        "332c1a7419f197fa5bce7a42efb270e6828f187c4c32e9db6ca45b33b2d2c602"
    )


def test_a_changed_seed_deal_or_commitment_is_detected() -> None:
    game = Game(Rules(), deal_key=KEY)
    proof = game.deal_proof()
    assert proof is not None
    other = proof.seed[:-1] + ("0" if proof.seed[-1] != "0" else "1")
    assert not fair.verify(other, proof.commitment).matches
    last = "1" if proof.commitment[-1] == "0" else "0"
    assert not fair.verify(proof.seed, proof.commitment[:-1] + last).matches
    assert not fair.verify(proof.seed, "é" * 64).matches
    # A deal with two cards swapped between seats does not give the commitment.
    swapped = list(game.hands)
    a, b = swapped[0] & -swapped[0], swapped[1] & -swapped[1]
    swapped[0], swapped[1] = swapped[0] ^ a | b, swapped[1] ^ b | a
    assert fair.commitment(proof.seed, swapped) != proof.commitment
    assert fair.commitment(proof.seed, game.hands) == proof.commitment
    # The same seed said for another dealer or table size is another deal.
    players, dealer, raw = fair.parse_seed(proof.seed)
    moved = fair.seed_text(players, (dealer + 1) % players, raw)
    assert not fair.verify(moved, proof.commitment).matches


def test_one_hands_seed_says_nothing_of_the_next() -> None:
    """Each hand has its own seed from the key; none is another's or the key."""
    game = Game(rules_for(4, pass_cycle=HOLD, target=10_000), deal_key=KEY)
    seeds = set()
    for _ in range(8):
        proof = game.deal_proof()
        assert proof is not None
        seeds.add(fair.parse_seed(proof.seed)[2])
        play_hand(game)
    assert len(seeds) == 8 and KEY not in seeds


@pytest.mark.parametrize(
    "text",
    [
        "",
        "4p-d1",
        "4-d1-" + "00" * 32,
        "4p-d5-" + "00" * 32,
        "7p-d1-" + "00" * 32,
        "4p-d1-" + "00" * 31,
        "4p-d1-zz" + "00" * 31,
    ],
)
def test_a_seed_that_does_not_read_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"seed|players"):
        fair.verify(text, "00")


def test_a_number_is_drawn_without_bias() -> None:
    """A word at or above the largest multiple of the bound is drawn again."""
    bound = 3
    limit = 2**32 - 2**32 % bound
    assert fair._uniform(iter([limit, limit + 1, 2**32 - 1, 7]), bound) == 7 % bound
    assert fair._uniform(iter([limit - 1]), bound) == (limit - 1) % bound


def test_the_shuffle_puts_every_card_in_every_place_about_equally_often() -> None:
    places: Counter[tuple[int, int]] = Counter()
    runs = 2000
    for n in range(runs):
        deck = fair.shuffle(hashlib.sha256(n.to_bytes(4, "big")).digest(), 4)
        assert sorted(deck) == list(range(52))
        places.update((card, place) for place, card in enumerate(deck[:4]))
    expected = runs / 52
    # 208 cells of about 38.5: each well within 5 standard deviations.
    assert all(
        abs(places[c, p] - expected) < 5 * expected**0.5 for c in range(52) for p in range(4)
    )


def test_the_key_survives_a_save_and_deals_the_same_next_hands() -> None:
    game = Game(rules_for(4, pass_cycle=HOLD, target=10_000), deal_key=KEY)
    play_hand(game)
    restored = Game.from_json(game.to_json())
    assert restored.deal_key == KEY
    assert restored.deal_proof() == game.deal_proof()
    play_hand(game)
    play_hand(restored)
    assert piles(restored) == piles(game)
    assert game.copy().deal_proof() == game.deal_proof()


def test_a_game_without_a_key_saves_as_before_and_has_no_proof() -> None:
    game = Game(Rules(), seed=3)
    assert "deal_key" not in json.loads(game.to_json())
    assert game.deal_proof() is None and game.deal_key is None


def test_a_fixed_deal_has_no_seed_and_the_hands_after_it_have() -> None:
    fixed = hands(*(" ".join(c for c in codes_ if c) for codes_ in _split_deck()))
    rules = rules_for(4, pass_cycle=HOLD, target=10_000, moon="add_to_others")
    game = Game(rules, deals=[fixed], deal_key=KEY)
    assert game.deal_proof() is None
    assert game.hands[0] == mask_of_codes(fixed[0])
    play_hand(game)
    proof = game.deal_proof()
    assert proof is not None and fair.verify(proof.seed, proof.commitment).matches
    assert game.deal_proof(1) is None and game.deal_proof(2) == proof


def test_a_key_of_the_wrong_length_is_refused() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        Game(Rules(), deal_key=b"short")


def test_a_deal_gives_every_card_of_the_deck_once() -> None:
    for players in (2, 3, 4, 5, 6):
        dealt, dead = fair.deal(KEY, players, 0)
        together = dead
        for hand in dealt:
            assert not hand & together
            together |= hand
        assert together == deck_mask(players)


def _split_deck() -> list[list[str]]:
    ranks = "23456789TJQKA"
    return [[r + s for r in ranks] for s in "CDSH"]


def test_a_hands_proof_is_worked_out_once() -> None:
    """Every screen of a hand shows its commitment, drawn at every card: the deal behind
    it is worked out once per hand, not at every draw."""
    first = fair.proof(KEY, 5, 4, 2)
    assert fair.proof(KEY, 5, 4, 2) is first
    assert fair.proof(KEY, 6, 4, 3) != first
