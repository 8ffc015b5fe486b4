"""The coach's words and stored form: a hint as the DM shows it, a review as the DM
receives it, and a hint kept in the table's screen state (`bot.computers.coach` acts)."""

from __future__ import annotations

from typing import Any

from bot.core.decisions import decision_key as decision_key
from bot.i18n import Msg, msg, msg_plural
from bot.screens.parts import Joined, Name, Number, Part
from engine import Card
from engine.cards import SUIT_SYMBOLS, shown_order
from engine.coach import REVIEW_THRESHOLD, Fact, Finding, Hint, Option

GAME_NOTE = 0.5
"""The part of a reviewed choice's cost that is the game's end (in points) from which
the review says so: a chance of the game's end about 3% apart."""


# ---------------------------------------------------------------------- stored hints


def hint_to_dict(found: Hint) -> dict[str, Any]:
    def option(o: Option) -> dict[str, Any]:
        return {
            "cards": [c.code for c in o.cards],
            "points": round(o.points, 3),
            "lose": round(o.lose, 3),
            "win": round(o.win, 3),
            "even": o.even,
        }

    return {
        "kind": found.kind,
        "forced": found.forced,
        "best": option(found.best),
        "others": [option(o) for o in found.others],
        "rival": option(found.rival) if found.rival is not None else None,
        "facts": [
            {
                "kind": f.kind,
                "seat": f.seat,
                "suit": f.suit,
                "n": f.n,
                "card": f.card.code if f.card else None,
            }
            for f in found.facts
        ],
    }


def _option(data: dict[str, Any]) -> Option:
    # A hint stored before the points and the game's end were apart has only "cost".
    points = float(data["points"] if "points" in data else data["cost"])
    cards = tuple(Card.parse(c) for c in data["cards"])
    lose, win = float(data.get("lose", 0.0)), float(data.get("win", 0.0))
    return Option(cards, points, lose, win, even=bool(data.get("even", False)))


def hint_from_dict(data: dict[str, Any]) -> Hint:
    facts = tuple(
        Fact(
            f["kind"],
            seat=f["seat"],
            suit=f["suit"],
            n=f["n"],
            card=Card.parse(f["card"]) if f["card"] else None,
        )
        for f in data["facts"]
    )
    return Hint(
        data["kind"],
        _option(data["best"]),
        tuple(_option(o) for o in data["others"]),
        facts,
        forced=data["forced"],
        rival=_option(data["rival"]) if data.get("rival") else None,
    )


# ---------------------------------------------------------------------- words


def _cards(option: Option) -> str:
    return " ".join(c.symbol for c in shown_order(option.cards))


def hint_sentences(names: list[str], found: Hint) -> list[Part]:
    """The hint as a screen shows it above the cards: the choice, the numbers, the facts."""
    best = _cards(found.best)
    lines: list[Part]
    if found.kind == "pass":
        lines = [msg("💡 The expert would pass <b>{cards}</b>.", cards=best)]
    elif found.forced:
        lines = [
            msg("💡 <b>{card}</b>: every card you can play here comes to the same.", card=best)
        ]
    else:
        lines = [msg("💡 The expert would play <b>{card}</b>.", card=best)]
    if not found.forced:
        even = [o for o in found.others if o.even]
        if even:
            choices = Joined(tuple(_cards(o) for o in even))
            lines.append(
                msg("{choices} would do as well, as far as the expert can tell.", choices=choices)
                if len(even) == 1
                else msg(
                    "{choices} would each do as well, as far as the expert can tell.",
                    choices=choices,
                )
            )
        shown = [found.best, *(o for o in found.others if not o.even)]
        lines.append(
            msg(
                "Expected points this hand: {choices}",
                choices=Joined(tuple(Joined((_cards(o), Number(o.points)), " ") for o in shown)),
            )
        )
    if found.rival is not None and not found.forced:
        lines.append(game_sentence(found.rival, found.best))
    facts = [fact_sentence(names, f) for f in found.facts]
    if facts:
        lines.append(Joined(tuple(facts)))
    return lines


def shown_hint(
    stored: dict[str, Any] | None, key: str | None, names: list[str]
) -> tuple[Part, ...] | None:
    """The hint a seat asked for, in words, while the choice it was asked for (`key`,
    `decision_key`) is still open: None when no choice is open, () before one is asked for
    (or once its choice is made); `stored`: the hint kept in the table's screen state."""
    if key is None:
        return None
    if not stored or stored.get("key") != key:
        return ()
    found = hint_from_dict(stored)
    return tuple(hint_sentences(names, found))


def game_sentence(worse: Option, other: Option) -> Msg:
    """Why ``worse`` loses to ``other`` at the game's end: more often lost, or less often
    won (whichever differs more)."""
    if worse.lose - other.lose >= other.win - worse.win:
        return msg(
            "For the game's end: {cards} risks losing the game ({risk} against {other}).",
            cards=_cards(worse),
            risk=Number(worse.lose, "percent"),
            other=Number(other.lose, "percent"),
        )
    return msg(
        "For the game's end: {cards} misses a chance to win the game ({chance} against {other}).",
        cards=_cards(worse),
        chance=Number(worse.win, "percent"),
        other=Number(other.win, "percent"),
    )


def fact_sentence(names: list[str], fact: Fact) -> Msg:
    name: Part = Name(names[fact.seat]) if fact.seat is not None else ""
    suit = SUIT_SYMBOLS.get(fact.suit or "", "")
    n = fact.n
    if fact.kind == "queen_out":
        return msg("Q♠ is still out")
    if fact.kind == "queen_mine":
        return msg_plural("you hold Q♠ and {n} other spade", "you hold Q♠ and {n} other spades", n)
    if fact.kind == "void":
        return msg("{name} has no {suit}", name=name, suit=suit)
    if fact.kind == "hearts_left":
        return msg_plural("{n} heart still out", "{n} hearts still out", n)
    if fact.kind == "moon_threat":
        return msg(
            "{name} has every point so far ({points}): a moon is possible", name=name, points=n
        )
    if fact.kind == "trick_points":
        return msg_plural("{n} point on this trick", "{n} points on this trick", n)
    if fact.kind == "game_can_end":
        return msg("this hand can end the game")
    if fact.kind == "queen_unguarded":
        return msg_plural(
            "Q♠ with only {n} low spade to guard it", "Q♠ with only {n} low spades to guard it", n
        )
    if fact.kind == "spade_unguarded":
        card = fact.card.symbol if fact.card else ""
        return msg_plural(
            "{card} with only {n} low spade", "{card} with only {n} low spades", n, card=card
        )
    if fact.kind == "makes_void":
        return msg("no {suit} left: a void to discard on", suit=suit)
    return msg_plural("{n} high heart goes", "{n} high hearts go", n)


def review_lines(names: list[str], hand: int, decided: bool, findings: list[Finding]) -> list[Part]:
    """The review of a hand, as the DM is told it: the costliest choices by the expert's
    count, each with the facts that decided it."""
    if not decided:
        return [
            msg(
                "🔍 <b>Hand {hand}</b>: a computer played your seat, so there is nothing of "
                "yours to review.",
                hand=hand,
            )
        ]
    if not findings:
        return [
            msg(
                "🔍 <b>Hand {hand}</b>: well played. Each of your choices came within {points} "
                "points of the expert's.",
                hand=hand,
                points=Number(REVIEW_THRESHOLD),
            )
        ]
    lines: list[Part] = [
        msg("🔍 <b>Hand {hand}</b>: your costliest choices, by the expert's count", hand=hand)
    ]
    for number, finding in enumerate(findings, start=1):
        values: dict[str, object] = {
            "mine": _cards(finding.chosen),
            "expert": _cards(finding.expert),
            "loss": Number(finding.points_loss),
            "mine_cost": Number(finding.chosen.points),
            "expert_cost": Number(finding.expert.points),
        }
        said: list[Part] = [f"{number}."]
        if finding.trick == 0:
            said.append(
                msg(
                    "The pass: you passed {mine}; the expert would pass <b>{expert}</b>. "
                    "Expected points {mine_cost} against {expert_cost}: {loss} more.",
                    **values,
                )
            )
        elif finding.points_loss > 0:
            said.append(
                msg(
                    "Trick {trick}: you played {mine}; the expert would play <b>{expert}</b>. "
                    "Expected points {mine_cost} against {expert_cost}: {loss} more.",
                    trick=finding.trick,
                    **values,
                )
            )
        else:
            said.append(
                msg(
                    "Trick {trick}: you played {mine}; the expert would play <b>{expert}</b>. "
                    "Expected points {mine_cost} against {expert_cost}, but the game's end "
                    "counts more.",
                    trick=finding.trick,
                    **values,
                )
            )
        if finding.game_loss >= GAME_NOTE:
            said.append(game_sentence(finding.chosen, finding.expert))
        lines += ["", Joined(tuple(said), " ")]
        if finding.facts:
            lines.append(Joined(tuple(fact_sentence(names, f) for f in finding.facts)))
    return lines
