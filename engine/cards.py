"""Cards as small integers and hands as bit masks, with a `Card` value object outside.

A card index is ``suit * 13 + (rank - 2)`` with suits in the order ♣ ♦ ♠ ♥, so a hand of
cards is an int whose bit ``i`` is set when the hand holds card ``i``. The masks below are
built once at import; the rules work on them, and `Card` is what the outside sees.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from typing import Final

CardIndex = int
Mask = int

SUITS: Final = "CDSH"
SUIT_SYMBOLS: Final = {"C": "♣", "D": "♦", "S": "♠", "H": "♥"}
RANK_CODES: Final = "23456789TJQKA"
RANK_NAMES: Final = {10: "10", 11: "J", 12: "Q", 13: "K", 14: "A"}

CLUBS, DIAMONDS, SPADES, HEARTS = range(4)
SUIT_MASKS: Final = tuple(0x1FFF << (13 * s) for s in range(4))
HEARTS_MASK: Final = SUIT_MASKS[HEARTS]
FULL_DECK: Final = (1 << 52) - 1


def card_index(rank: int, suit: int) -> CardIndex:
    """The index of the card of ``rank`` (2..14) in ``suit`` (0..3)."""
    return suit * 13 + rank - 2


QUEEN_OF_SPADES: Final = card_index(12, SPADES)
JACK_OF_DIAMONDS: Final = card_index(11, DIAMONDS)
TEN_OF_DIAMONDS: Final = card_index(10, DIAMONDS)
TEN_OF_CLUBS: Final = card_index(10, CLUBS)
QS_BIT: Final = 1 << QUEEN_OF_SPADES
POINT_CARDS: Final = HEARTS_MASK | QS_BIT


BITS: Final = tuple(1 << i for i in range(52))


def indices(mask: Mask) -> Iterator[CardIndex]:
    """The card indices in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def lowest(mask: Mask) -> CardIndex:
    """The lowest card index in a non-empty mask."""
    return (mask & -mask).bit_length() - 1


def mask_of(cards: Iterable[CardIndex]) -> Mask:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


class Card:
    """One playing card, e.g. ``Card.parse("QS")``; ``str(card) == "QS"``.

    Cards are interned: there is one object per card, so parsing is cheap, but compare them
    with ``==`` like any value. They order by suit (♣ ♦ ♠ ♥) and then rank, the order a hand
    is shown in.
    """

    __slots__ = ("index",)
    index: CardIndex

    def __new__(cls, index: CardIndex) -> Card:
        if not 0 <= index < 52:
            raise ValueError(f"no card has index {index}; indices run from 0 to 51")
        return CARDS[index] if len(CARDS) == 52 else cls._make(index)

    @classmethod
    def _make(cls, index: CardIndex) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "index", index)
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card code: rank then suit letter, ``"QS"``, ``"TC"`` or ``"10C"``.

        Raises `ValueError` naming the text when it is not a card.
        """
        code = text.strip().upper()
        if code[:2] == "10":
            code = "T" + code[2:]
        if len(code) != 2 or code[0] not in RANK_CODES or code[1] not in SUITS:
            raise ValueError(f"{text!r} is not a card: write a rank then a suit, like QS or 10C")
        return CARDS[card_index(RANK_CODES.index(code[0]) + 2, SUITS.index(code[1]))]

    @property
    def rank(self) -> int:
        """2..14, where 11 is J, 12 Q, 13 K and 14 A."""
        return self.index % 13 + 2

    @property
    def suit(self) -> str:
        """One of ``"C" "D" "S" "H"``."""
        return SUITS[self.index // 13]

    @property
    def code(self) -> str:
        return RANK_CODES[self.index % 13] + SUITS[self.index // 13]

    @property
    def symbol(self) -> str:
        """How a person reads it: ``Q♠``, ``10♣``."""
        rank = self.rank
        return RANK_NAMES.get(rank, str(rank)) + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other.index == self.index

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __le__(self, other: Card) -> bool:
        return self.index <= other.index

    def __gt__(self, other: Card) -> bool:
        return self.index > other.index

    def __ge__(self, other: Card) -> bool:
        return self.index >= other.index

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (self.index,))


CARDS: Final[list[Card]] = []
CARDS.extend(Card._make(i) for i in range(52))

SHOWN_SUITS: Final = "SHCD"
"""The order every screen shows suits in (♠ ♥ ♣ ♦: black and red alternating), whatever
the indices' order: the DM's buttons, the table page, replays, reviews and results."""


def shown_key(card: Card) -> tuple[int, int]:
    """Where a card stands in `shown_order`."""
    return SHOWN_SUITS.index(card.suit), card.rank


def shown_order(cards: Iterable[Card]) -> list[Card]:
    """Cards as every screen shows them: by suit ♠ ♥ ♣ ♦, each suit low to high."""
    return sorted(cards, key=shown_key)


def _suit_tables() -> list[list[tuple[Card, ...]]]:
    # For each suit, the cards of every 13-bit pattern: a hand becomes four lookups.
    tables = []
    for suit in range(4):
        row: list[tuple[Card, ...]] = [()] * 8192
        for m in range(1, 8192):
            low = m & -m
            row[m] = (CARDS[suit * 13 + low.bit_length() - 1], *row[m ^ low])
        tables.append(row)
    return tables


_SUIT_CARDS: Final = _suit_tables()


def cards_of(mask: Mask) -> list[Card]:
    """The cards in ``mask`` as `Card` objects, in display order."""
    c, d, s, h = _SUIT_CARDS
    return [
        *c[mask & 0x1FFF],
        *d[mask >> 13 & 0x1FFF],
        *s[mask >> 26 & 0x1FFF],
        *h[mask >> 39],
    ]


def codes(mask: Mask) -> list[str]:
    return [CARDS[i].code for i in indices(mask)]


def mask_of_codes(items: Iterable[str | Card]) -> Mask:
    return mask_of((c if isinstance(c, Card) else Card.parse(c)).index for c in items)


@functools.cache
def deck_mask(players: int) -> Mask:
    """The cards in play for a player count (RULES.md §2)."""
    if players == 2:
        return mask_of(card_index(r, s) for s in range(4) for r in (2, 4, 6, 8, 10, 12, 14))
    removed: tuple[tuple[int, int], ...] = {
        3: ((2, DIAMONDS),),
        4: (),
        5: ((2, DIAMONDS), (2, CLUBS)),
        6: ((2, DIAMONDS), (2, CLUBS), (3, DIAMONDS), (3, CLUBS)),
    }[players]
    return FULL_DECK & ~mask_of(card_index(r, s) for r, s in removed)
