"""Deals anyone can verify: a hand's seed, the deal it gives, and the commitment to both.

The scheme (README, "Fair deals"), version 1:

- A game has a secret **game key**: 32 bytes from the operating system's secure random
  source, made outside the engine and stored with the game, never shown.
- Hand ``h``'s seed is ``HMAC-SHA256(key, "hearts hand h")``: 32 bytes. HMAC is a
  pseudo-random function, so a revealed seed tells nothing about any other hand's.
- The seed's **text** says everything its deal depends on: ``4p-d3-<64 hex digits>`` is a
  4-player table where seat 3 (seats counted from 1, in play order) deals.
- The deal: the deck in its order (2 … A of ♣, then ♦, ♠, ♥, without the cards the table
  size removes; with 2 players 2 4 6 8 10 Q A of each suit), shuffled by Fisher–Yates from
  the last position down, position ``i`` swapped with ``j``, a number 0 … ``i`` drawn from
  the stream of 32-bit big-endian words of ``SHA-256(seed ‖ k)`` (``k`` = 0, 1, … as 8
  bytes big-endian), a word ``w`` rejected when ``w ≥ 2³² − 2³² mod (i+1)`` (so no number
  is likelier than another) and ``j = w mod (i+1)``. With 2 players the first and last
  cards are dead; the others are dealt one at a time, the first to the dealer's left.
- The deal's text: one line per seat in seat order, each hand's cards in deck order as
  codes (``2C 7C TD QS AH``) separated by one space; with 2 players a last line of the
  dead cards. The **commitment** is the SHA-256 of the UTF-8 text ``seed text`` + newline
  + deal text, in lowercase hex.

Everything here is pure and deterministic; only the key comes from outside.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Final, NamedTuple

from .cards import Mask, codes, deck_mask, indices

SCHEME: Final = 1
KEY_BYTES: Final = 32
_WORD: Final = 1 << 32


class DealProof(NamedTuple):
    """A hand's seed as text and its commitment (lowercase hex SHA-256)."""

    seed: str
    commitment: str


def hand_seed(key: bytes, hand_number: int) -> bytes:
    """Hand ``hand_number``'s seed (hands counted from 1) from the game's key."""
    if len(key) != KEY_BYTES:
        raise ValueError(f"A game key has {KEY_BYTES} bytes, not {len(key)}.")
    return hmac.new(key, f"hearts hand {hand_number}".encode(), hashlib.sha256).digest()


def first_dealer(key: bytes, players: int) -> int:
    """The first dealer drawn from the game's key, as the deal draws (no bias)."""
    seed = hmac.new(key, b"hearts first dealer", hashlib.sha256).digest()
    return _uniform(_words(seed), players)


def seed_text(players: int, dealer: int, seed: bytes) -> str:
    """``4p-d3-<hex>``: the table size, the dealer's seat counted from 1, the seed."""
    return f"{players}p-d{dealer + 1}-{seed.hex()}"


def parse_seed(text: str) -> tuple[int, int, bytes]:
    """The table size, the dealer's seat (from 0) and the seed of a seed's text.

    Raises `ValueError` with what is wrong."""
    parts = text.strip().lower().split("-")
    if len(parts) != 3 or not parts[0].endswith("p") or not parts[1].startswith("d"):
        raise ValueError(f"{text!r} is not a seed: it reads like 4p-d3-<64 hex digits>.")
    try:
        players, dealer, seed = int(parts[0][:-1]), int(parts[1][1:]) - 1, bytes.fromhex(parts[2])
    except ValueError:
        raise ValueError(f"{text!r} is not a seed: it reads like 4p-d3-<64 hex digits>.") from None
    if not 2 <= players <= 6 or not 0 <= dealer < players:
        raise ValueError(f"{text!r}: 2 to 6 players, and a dealer's seat from 1 to the players.")
    if len(seed) != KEY_BYTES:
        raise ValueError(f"{text!r}: a seed has 64 hex digits, not {len(parts[2])}.")
    return players, dealer, seed


def _words(seed: bytes) -> Iterator[int]:
    """The seed's stream of 32-bit words: SHA-256(seed ‖ k) for k = 0, 1, …"""
    k = 0
    while True:
        block = hashlib.sha256(seed + k.to_bytes(8, "big")).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")
        k += 1


def _uniform(words: Iterator[int], bound: int) -> int:
    """A number 0 … ``bound - 1``, every one equally likely (rejection sampling)."""
    limit = _WORD - _WORD % bound
    for word in words:
        if word < limit:
            return word % bound
    raise AssertionError("the stream of words never ends")  # pragma: no cover


def shuffle(seed: bytes, players: int) -> list[int]:
    """The deck for ``players`` (card indices) in the order the seed shuffles it."""
    deck = list(indices(deck_mask(players)))
    words = _words(seed)
    for i in range(len(deck) - 1, 0, -1):
        j = _uniform(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal(seed: bytes, players: int, dealer: int) -> tuple[list[Mask], Mask]:
    """Each seat's hand and (two players) the dead cards, as masks, from a hand's seed."""
    deck = shuffle(seed, players)
    dead = 0
    if players == 2:
        dead = 1 << deck[0] | 1 << deck[-1]
        deck = deck[1:-1]
    hands = [0] * players
    for k, card in enumerate(deck):
        hands[(dealer + 1 + k) % players] |= 1 << card
    return hands, dead


def deal_text(hands: Sequence[Mask], dead: Mask = 0) -> str:
    """The deal's canonical text: a line per seat (then the dead cards, if any)."""
    piles = [*hands, dead] if dead else list(hands)
    return "\n".join(" ".join(codes(pile)) for pile in piles)


def commitment(seed: str, hands: Sequence[Mask], dead: Mask = 0) -> str:
    """SHA-256 (lowercase hex) of the seed's text, a newline and the deal's text."""
    text = f"{seed}\n{deal_text(hands, dead)}"
    return hashlib.sha256(text.encode()).hexdigest()


@lru_cache(maxsize=4096)
def proof(key: bytes, hand_number: int, players: int, dealer: int) -> DealProof:
    """Hand ``hand_number``'s seed text and commitment, dealt by ``dealer``.

    Remembered (the last 4,096 hands, about 460 bytes each: 2 MB at most): every screen
    of a hand shows its commitment, the table page each finished hand's, and a table's
    screens are drawn at every card; a deal costs a few hundred µs."""
    text = seed_text(players, dealer, hand_seed(key, hand_number))
    hands, dead = deal(hand_seed(key, hand_number), players, dealer)
    return DealProof(text, commitment(text, hands, dead))


class Verdict(NamedTuple):
    """What a seed and a commitment say: whether they match, and the seed's deal."""

    matches: bool
    hands: list[Mask]
    dead: Mask
    commitment: str


def verify(seed: str, claimed: str) -> Verdict:
    """Recompute the deal of a seed's text and whether ``claimed`` is its commitment.

    Raises `ValueError` for a seed's text that does not read."""
    players, dealer, raw = parse_seed(seed)
    hands, dead = deal(raw, players, dealer)
    text = seed_text(players, dealer, raw)
    actual = commitment(text, hands, dead)
    given = claimed.strip().lower()
    matches = given.isascii() and hmac.compare_digest(actual, given)
    return Verdict(matches, hands, dead, actual)
