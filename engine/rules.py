"""A table's rule set: every option of RULES.md, chosen when the table is created."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Final, Literal

Variant = Literal["standard", "complex", "two_player"]
MoonOption = Literal["choose", "add_to_others", "subtract_from_shooter"]
MoonChoice = Literal["add_to_others", "subtract_from_shooter"]
PassDirection = Literal["left", "right", "across", "hold"]
TiePolicy = Literal["play_on", "share"]

VARIANTS: Final = ("standard", "complex", "two_player")
MOON_OPTIONS: Final = ("choose", "add_to_others", "subtract_from_shooter")
MOON_CHOICES: Final = ("add_to_others", "subtract_from_shooter")
PASS_DIRECTIONS: Final = ("left", "right", "across", "hold")
BONUS_CARDS: Final = (None, "JD", "TD")
TIE_POLICIES: Final = ("play_on", "share")


def default_pass_cycle(players: int) -> tuple[PassDirection, ...]:
    """RULES.md §3: left, right, across, hold for four; left, right, hold for 3, 5, 6."""
    if players == 2:
        return ("hold",)
    if players == 4:
        return ("left", "right", "across", "hold")
    return ("left", "right", "hold")


@dataclass(frozen=True)
class Rules:
    """The rules a table plays by. Immutable; impossible combinations raise `ValueError`."""

    players: int = 4
    variant: Variant = "standard"
    bonus_card: str | None = None
    moon: MoonOption = "choose"
    queen_breaks_hearts: bool = True
    no_points_on_first_trick: bool = True
    pass_cycle: tuple[PassDirection, ...] | None = None
    target: int = 100
    ties: TiePolicy = "play_on"
    hands: int | None = field(default=None, repr=False)
    """A game of this many hands, whatever the scores (the daily deal plays four), the
    lowest total winning (a tie shared); None: hands until someone reaches the target. Not
    in the repr, which stored records of the rules before it compare as text."""
    _cycle: tuple[PassDirection, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.pass_cycle, list):
            object.__setattr__(self, "pass_cycle", tuple(self.pass_cycle))
        self._validate()
        cycle = self.pass_cycle if self.pass_cycle is not None else default_pass_cycle(self.players)
        object.__setattr__(self, "_cycle", cycle)

    def _validate(self) -> None:
        p = self.players
        if isinstance(p, bool) or not isinstance(p, int) or not 2 <= p <= 6:
            raise ValueError(f"Hearts is played by 2 to 6 players, not {p!r}.")
        if self.variant not in VARIANTS:
            raise ValueError(
                f"Unknown variant {self.variant!r}: choose standard, complex or two_player."
            )
        if self.variant == "two_player" and p != 2:
            raise ValueError(f"Two-player Hearts is for 2 players, not {p}.")
        if p == 2 and self.variant != "two_player":
            raise ValueError("Two players play two-player Hearts: choose the two_player variant.")
        if self.variant == "complex" and p != 4:
            raise ValueError(f"Complex Hearts is for 4 players, not {p}.")
        if self.bonus_card not in BONUS_CARDS:
            raise ValueError(f"The bonus card can be JD or TD (or none), not {self.bonus_card!r}.")
        if self.bonus_card is not None and self.variant != "standard":
            raise ValueError(
                "A bonus card (Omnibus) is for standard Hearts only: Complex Hearts has its "
                "own J♦ and two-player Hearts has none."
            )
        if self.moon not in MOON_OPTIONS:
            raise ValueError(
                f"Unknown moon option {self.moon!r}: choose choose, add_to_others or "
                "subtract_from_shooter."
            )
        for name in ("queen_breaks_hearts", "no_points_on_first_trick"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} is on or off (true or false).")
        if self.pass_cycle is not None:
            self._validate_pass_cycle(self.pass_cycle)
        if isinstance(self.target, bool) or not isinstance(self.target, int) or self.target < 1:
            raise ValueError(
                f"The target score must be a whole number of 1 or more, not {self.target!r}."
            )
        if self.ties not in TIE_POLICIES:
            raise ValueError(f"Ties are play_on or share, not {self.ties!r}.")
        if self.hands is not None and (
            isinstance(self.hands, bool) or not isinstance(self.hands, int) or self.hands < 1
        ):
            raise ValueError(f"A game's hands are a whole number of 1 or more, not {self.hands!r}.")

    def _validate_pass_cycle(self, cycle: tuple[str, ...]) -> None:
        if not isinstance(cycle, tuple) or not cycle:
            raise ValueError("The pass cycle needs at least one direction, such as hold.")
        for direction in cycle:
            if direction not in PASS_DIRECTIONS:
                raise ValueError(
                    f"{direction!r} is not a pass direction: use left, right, across or hold."
                )
            if direction == "across" and self.players % 2:
                raise ValueError(
                    f"With {self.players} players nobody sits across: pass left, right or hold."
                )
        if self.variant == "two_player" and any(d != "hold" for d in cycle):
            raise ValueError("Two-player Hearts has no passing.")

    @property
    def cycle(self) -> tuple[PassDirection, ...]:
        """The pass directions hand by hand, the default filled in."""
        return self._cycle

    def pass_direction(self, hand_index: int) -> PassDirection:
        """The direction of the hand numbered ``hand_index`` from 0."""
        return self._cycle[hand_index % len(self._cycle)]

    @property
    def hand_size(self) -> int:
        return {2: 13, 3: 17, 4: 13, 5: 10, 6: 8}[self.players]

    def with_players(self, players: int) -> Rules:
        """These rules for ``players``, every other choice kept where it still applies.

        Two players play two-player Hearts (no bonus card); Complex Hearts is for four, so
        another count plays standard; two-player rules for more players become standard.
        The pass cycle goes back to the default for the new count. `ValueError` outside 2-6.
        """
        variant: Variant = self.variant
        bonus = self.bonus_card
        if players == 2:
            variant, bonus = "two_player", None
        elif variant == "two_player" or (variant == "complex" and players != 4):
            variant = "standard"
        return replace(self, players=players, variant=variant, bonus_card=bonus, pass_cycle=None)

    def with_variant(self, variant: Variant, bonus_card: str | None = None) -> Rules:
        """These rules for ``variant`` (and Omnibus ``bonus_card`` in standard), with the
        player count it needs: two for two-player Hearts, four for Complex Hearts, and four
        again when standard Hearts follows a two-player table. The pass cycle is reset."""
        players = self.players
        if variant == "two_player":
            players = 2
        elif variant == "complex" or players == 2:
            players = 4
        return replace(
            self, players=players, variant=variant, bonus_card=bonus_card, pass_cycle=None
        )

    @classmethod
    def from_stored(cls, data: Mapping[str, Any] | None) -> Rules:
        """The rules kept in a chat's settings or a stored row, or the defaults when they
        are missing or no longer valid (an option renamed or removed since they were kept)."""
        if not data:
            return cls()
        try:
            return cls.from_dict(dict(data))
        except (TypeError, ValueError):
            return cls()

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("_cycle")
        if data["hands"] is None:
            data.pop("hands")  # rules stored before a game of fixed hands read the same
        if data["pass_cycle"] is not None:
            data["pass_cycle"] = list(data["pass_cycle"])
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Build rules from `to_dict` output; unknown keys raise `ValueError`."""
        known = {f.name for f in fields(cls) if f.init}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"Unknown rule option(s): {', '.join(sorted(unknown))}.")
        args = dict(data)
        if args.get("pass_cycle") is not None:
            args["pass_cycle"] = tuple(args["pass_cycle"])
        return cls(**args)
