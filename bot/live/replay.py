"""The table page's ▶ Replay: a finished hand of the page's own game, face up, as frames
the page steps through (the deal, the passes, each card, the score), with a caption for
each in the reader's language; then the coach's review of the reader's own seat, whose
findings the page marks on the cards they played.

The page asks with ``{"t": "replay", "id": n, "game": g, "hand": h}`` (a typed request,
never a callback string). The page's person sits at that game (the page is theirs), so
`bot.replays.replays`' rule lets them; any other game is refused, as is a hand not over
("nobody sees a hand before it ends"). The answer is ``{"t": "replay", "id": n, ...}``
(`engine.replay.hand_data` and the captions), or ``{"t": "answer", "id": n, "text": …}``
with the refusal; the review follows as ``{"t": "marks", "game": g, "hand": h, ...}`` once
the worker pool has thought it out (at a tournament's table, only once its game is over,
as the DM's 🔍 Review).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import OrderedDict
from typing import Any, Protocol

from bot.basics import Person, UserError
from bot.computers.coach_words import review_lines
from bot.i18n import Msg, Tr, msg
from bot.live.hub import Page
from bot.replays.replays import (
    NOT_VALID,
    Replays,
    pass_lines,
    plays_part,
    result_lines,
    seat_names,
    trick_line,
)
from bot.screens.parts import PLAIN, Part, say
from engine.coach import Finding
from engine.replay import HandReplay, frames, hand_data
from storage.errors import StorageError

log = logging.getLogger(__name__)

Json = dict[str, Any]
REVIEWS_KEPT = 256
"""Reviews kept for replays opened again."""


class ReviewMarks(Protocol):
    """The coach's review of a seat's hand, as data (`bot.computers.coach.Coach.findings`)."""

    async def findings(self, game_id: int, seat: int, hand: int) -> tuple[bool, list[Finding]]: ...


class PageReplays:
    """The page's replays: given the replays' rules and words, and the coach."""

    def __init__(self, replays: Replays, coach: ReviewMarks) -> None:
        self.replays = replays
        self.coach = coach
        self._reviews: set[asyncio.Task[None]] = set()
        self._found: OrderedDict[tuple[int, int, int], tuple[bool, list[Finding]]] = OrderedDict()
        """The reviews thought out, newest last (a finished hand's never changes): opening
        a replay again costs the worker pool nothing."""

    async def serve(self, page: Page, said: Json) -> None:
        """Answer one request of the page, then (for the reader's own seat) its marks."""
        asked = said.get("id")
        request_id = asked if isinstance(asked, int) and not isinstance(asked, bool) else None
        answer, hand = await self.frames(page, said.get("game"), said.get("hand"))
        await _send(page, {**answer, "id": request_id})
        if hand is not None:
            task = asyncio.create_task(self._marks(page, hand))
            self._reviews.add(task)
            task.add_done_callback(self._reviews.discard)

    async def frames(self, page: Page, game: Any, number: Any) -> tuple[Json, HandReplay | None]:
        """The hand as the page's JSON, or the refusal; and the hand, when the reader's
        seat may have its review marked on it."""
        tr = page.tr
        if not _whole(game) or not _whole(number) or game != page.table.id:
            return _refused(tr, NOT_VALID), None
        person = Person(page.user_id, "", on_page=True)
        # A watcher's membership of the table's group was asked of Telegram when the page
        # opened (`bot.live.membership`): they replay as a member asking in the group.
        in_group = page.table.chat_id if page.watching else None
        try:
            stored, hand = await self.replays.hand(game, number, person, in_group)
        except UserError as error:
            return _refused(tr, error.said), None
        except StorageError:
            log.exception("replay of game %s, hand %s", game, number)
            return _refused(tr, msg("Something went wrong; please try again.")), None
        names = seat_names(stored)
        answer = {
            "t": "replay",
            "game": game,
            "you": page.seat,
            "names": names,
            "title": say(tr, msg("▶ Hand {hand}", hand=hand.hand_number), PLAIN),
            "captions": captions(tr, names, hand),
            **hand_data(hand),
        }
        marked = not page.watching and (stored.tournament_id is None or stored.status == "finished")
        return answer, hand if marked else None

    async def _marks(self, page: Page, hand: HandReplay) -> None:
        key = (page.table.id, page.seat, hand.hand_number)
        try:
            known = self._found.get(key)
            if known is None:
                known = await self.coach.findings(*key)
                self._found[key] = known
                while len(self._found) > REVIEWS_KEPT:
                    self._found.popitem(last=False)
            decided, found = known
        except UserError as error:
            await _send(
                page,
                {
                    "t": "marks",
                    "game": page.table.id,
                    "hand": hand.hand_number,
                    "marks": [],
                    "review": [say(page.tr, error.said, PLAIN)],
                },
            )
            return
        except Exception:
            log.exception("replay marks of game %s, hand %s", page.table.id, hand.hand_number)
            return
        names = [page.table.name(s) for s in range(len(page.table.seats))]
        review = review_lines(names, hand.hand_number, decided, found)
        await _send(
            page,
            {
                "t": "marks",
                "game": page.table.id,
                "hand": hand.hand_number,
                "marks": [
                    {
                        "trick": f.trick,
                        "mine": [c.code for c in f.chosen.cards],
                        "expert": [c.code for c in f.expert.cards],
                    }
                    for f in found
                ],
                "review": [say(page.tr, line, PLAIN) for line in review],
            },
        )


def captions(tr: Tr, names: list[str], hand: HandReplay) -> list[list[str]]:
    """Each frame's caption, its lines in the reader's language."""
    out: list[list[str]] = []
    total = len(hand.tricks)
    tricks = {t.number: t for t in hand.tricks}
    for frame in frames(hand):
        lines: list[Part]
        if frame.step == "deal":
            lines = [msg("The deal")]
        elif frame.step == "pass":
            lines = [msg("The passes"), *pass_lines(names, hand)]
        elif frame.step == "card" and frame.winner is not None:
            lines = [trick_line(names, tricks[frame.trick])]
        elif frame.step == "card":
            cards = plays_part(names, frame.table)
            lines = [
                msg("Trick {number}/{total}: {cards}", number=frame.trick, total=total, cards=cards)
            ]
        else:
            lines = result_lines(names, hand)
        out.append([say(tr, line, PLAIN) for line in lines])
    return out


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10**18


def _refused(tr: Tr, said: Msg) -> Json:
    return {"t": "answer", "text": say(tr, said, PLAIN)}


async def _send(page: Page, data: Json) -> None:
    socket = page.socket
    if socket.closed:
        return
    with contextlib.suppress(ConnectionError, RuntimeError):
        await socket.send_str(json.dumps(data, ensure_ascii=False))
