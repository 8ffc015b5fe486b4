"""Replays in the chat: `/replay` lists a group's last games, a game's finished hands, and
a hand as a short text (the deal face up, the passes, each trick in one line with who took
it and its points, the hand's points and the moon), built from the stored journal
(`engine.replay`), so it works after a restart and for games from before replays.

Who may replay: the members of the game's group, and its players; a tournament's hands
once all its tables have finished (they may share their deals). A press or a command in
the game's own group is a member's (Telegram shows a group's messages, and so its buttons,
only to its members); anywhere else (a DM, the table page) only a person seated at that
game may. A hand in progress is refused everywhere: nobody sees a hand before it is over.
The daily deal's hands (the same for everyone) are refused to all, their player too, until
their day has closed; after, anyone may replay them.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.basics import Person, UserError
from bot.core.decode import ReplayGame, ReplayHand
from bot.i18n import Msg, msg
from bot.screens.parts import SUIT_ORDER, Joined, Name, Part, Strong, format_score
from bot.screens.render import revealed_short
from bot.screens.seat_screen import DIRECTIONS, Button, Words
from domain.games import StoredGame
from engine import Card
from engine.cards import shown_order
from engine.replay import HandNotOver, HandReplay, ReplayTrick, hand_replay
from storage import GameNotFound, Journal, Standings

GAMES_LISTED = 5
"""How many of a group's last games `/replay` lists."""
HANDS_IN_A_ROW = 5

NOT_VALID = msg("That button isn't valid any more.")
NOT_YOURS = msg("Only the players of that game and the members of its group can replay it.")
NOT_OVER = msg("That hand isn't over yet: nobody sees a hand before it ends.")
NONE_OVER = msg("No hand of that game is over yet.")
TOURNAMENT_PLAYING = msg(
    "A tournament's hands can be replayed once every one of its tables has finished."
)
DAILY_OPEN = msg(
    "The daily deal's hands can be replayed once its day has closed (at 01:00 UTC): "
    "until then, some have not played them yet."
)


def cards_text(cards: tuple[Card, ...] | list[Card]) -> str:
    """``7♠ A♠ · 2♥ 10♥ · …``: by suit, in the order every screen shows
    (`engine.cards.shown_order`)."""
    shown = shown_order(cards)
    by_suit = [" ".join(c.symbol for c in shown if c.suit == s) for s in SUIT_ORDER]
    return " · ".join(group for group in by_suit if group) or "—"


class Replays:
    """The chat's side of replays: which games and hands, who may see them, and the words."""

    def __init__(
        self, games: Journal, standings: Standings, closed_day: Callable[[], int] = lambda: 0
    ) -> None:
        """`closed_day`: the latest daily deal's day that has closed
        (`bot.daily.daily.DailyDesk.last_closed`)."""
        self.games = games
        self.standings = standings
        self.closed_day = closed_day

    async def listing(self, chat_id: int, thread_id: int | None) -> Words:
        """`/replay` in a group: its last games, a button each."""
        found = await self.standings.chat_games(chat_id, thread_id, GAMES_LISTED)
        if not found:
            return Words((msg("No game has been played here yet: nothing to replay."),))
        lines: list[Part] = [msg("▶ <b>Replays</b>: the last games here. Choose one.")]
        rows: list[tuple[Button, ...]] = []
        for table in found:
            lines.append(
                msg(
                    "Game {game}: {names} · hands over: {hands}",
                    game=table.game_id,
                    names=Joined(tuple(Name(s.display_name) for s in table.seats), ", "),
                    hands=len(table.hands),
                )
            )
            if table.hands:
                label = msg("▶ Game {game}", game=table.game_id)
                rows.append((Button(label, ReplayGame(table.game_id)),))
        return Words(tuple(lines), tuple(rows))

    def scores_button(self, game_id: int) -> Words:
        """▶ Replay under ``/scores``, for the game it shows (`Standings.scores_lines`),
        answered in a new message."""
        return Words((), ((Button(msg("▶ Replay"), ReplayGame(game_id, new=True)),),))

    async def game(
        self, game_id: int, person: Person, chat_id: int | None
    ) -> tuple[Words, int | None]:
        """A game's finished hands, a button each; and the forum topic of the game's group
        (None: none), where a new message of it goes."""
        stored = await self._allowed(game_id, person, chat_id)
        assert stored.game is not None
        hands = [r.hand_number for r in stored.game.hand_history]
        if not hands:
            raise UserError(NONE_OVER)
        buttons = [Button(msg("Hand {hand}", hand=h), ReplayHand(game_id, h)) for h in hands]
        rows = tuple(
            tuple(buttons[i : i + HANDS_IN_A_ROW]) for i in range(0, len(buttons), HANDS_IN_A_ROW)
        )
        lines: tuple[Part, ...] = (
            msg("▶ <b>Game {game}</b>: {names}", game=game_id, names=_names(stored)),
            msg("Choose a hand to replay."),
        )
        return Words(lines, rows), stored.thread_id

    async def hand(
        self, game_id: int, number: int, person: Person, chat_id: int | None
    ) -> tuple[StoredGame, HandReplay]:
        """A finished hand of the game, face up; refuses a stranger and a hand not over."""
        stored = await self._allowed(game_id, person, chat_id)
        assert stored.game is not None
        if not 1 <= number <= len(stored.game.hand_history):
            playing = stored.status == "active" and number == stored.game.hand_number
            no_such = msg("There is no hand {hand} in this game.", hand=number)
            raise UserError(NOT_OVER if playing else no_such)
        start, journal = await self.games.game_and_moves(game_id)
        try:
            return stored, hand_replay(start, [move for move, _ in journal], number)
        except HandNotOver:
            raise UserError(NOT_OVER) from None

    async def text(
        self,
        game_id: int,
        number: int,
        person: Person,
        chat_id: int | None,
        short: bool = False,
    ) -> tuple[Words, int | None]:
        """A finished hand as a short text, with buttons to the hands beside it; and the
        forum topic of the game's group (None: none). `short`: the names cut (long names
        at a table of three, whose hand has seventeen tricks, fill more than a message)."""
        stored, hand = await self.hand(game_id, number, person, chat_id)
        assert stored.game is not None
        last = len(stored.game.hand_history)
        nav: list[Button] = []
        if number > 1:
            back = msg("« Hand {hand}", hand=number - 1)
            nav.append(Button(back, ReplayHand(game_id, number - 1)))
        if number < last:
            on = msg("Hand {hand} »", hand=number + 1)
            nav.append(Button(on, ReplayHand(game_id, number + 1)))
        # The deal's proof a tap away: its seed and commitment short, 📋 the seed whole.
        proof, copy = revealed_short(stored.game, number)
        rows = tuple(row for row in (tuple(nav), copy) if row)
        said = (*hand_lines(stored, hand, short), *proof)
        return Words(said, rows), stored.thread_id

    async def _allowed(self, game_id: int, person: Person, chat_id: int | None) -> StoredGame:
        try:
            stored = await self.games.load_game(game_id, verify=False)
        except GameNotFound:
            raise UserError(NOT_VALID) from None
        if stored.game is None:
            raise UserError(NOT_VALID)
        day = stored.meta.get("daily")
        if day is not None:
            # The daily deal's hands are the same for everyone: nobody sees them before
            # the day has closed, their player included (a replay could be passed on to
            # someone who has not played); anyone may see them after.
            if not isinstance(day, int) or day > self.closed_day():
                raise UserError(DAILY_OPEN)
            return stored
        if chat_id != stored.chat_id and stored.seat_of(person.id) is None:
            raise UserError(NOT_YOURS)
        # A tournament's tables may share their deals (duplicate deals): a hand over at one
        # may be in play at another.
        tournament = stored.tournament_id
        if tournament is not None and await self.standings.tournament_playing(tournament):
            raise UserError(TOURNAMENT_PLAYING)
        return stored


def _names(stored: StoredGame) -> Joined:
    return Joined(tuple(Name(s.display_name) for s in stored.seats), ", ")


SHORT_NAME = 10
"""A name's letters in a replay that would not fit one message with whole names."""


def seat_names(stored: StoredGame, short: bool = False) -> list[str]:
    """Each seat's name, by seat; `short`: cut to `SHORT_NAME` letters and "…"."""
    names = [s.display_name for s in stored.seats]
    if not short:
        return names
    return [n if len(n) <= SHORT_NAME + 1 else n[:SHORT_NAME] + "…" for n in names]


def _name(names: list[str], seat: int) -> Part:
    return Name(names[seat]) if seat < len(names) else "?"


def plays_part(names: list[str], plays: tuple[tuple[int, Card], ...]) -> Joined:
    """``Ann 2♣, Bob 5♣``: a trick's cards in the order played, with who played each."""
    return Joined(tuple(Joined((_name(names, s), c.symbol), " ") for s, c in plays), ", ")


def trick_line(names: list[str], trick: ReplayTrick) -> Msg:
    """``3. Ann 2♣, Bob 5♣, … → Bob (1)``: a trick, who took it and its points."""
    return msg(
        "{number}. {plays} → {name} ({points})",
        number=trick.number,
        plays=plays_part(names, trick.plays),
        name=_name(names, trick.winner),
        points=format_score(trick.points),
    )


def pass_lines(names: list[str], hand: HandReplay) -> list[Part]:
    """``Ann → Bob: Q♣ · 4♦ 3♦``, one line a pass."""
    return [
        Joined(
            (Joined((_name(names, p.giver), _name(names, p.receiver)), " → "), cards_text(p.cards)),
            ": ",
        )
        for p in hand.passes
    ]


def result_lines(names: list[str], hand: HandReplay) -> list[Part]:
    """The moon if any, the hand's points, the standings after it."""
    lines: list[Part] = []
    if hand.shooter is not None:
        lines.append(msg("🌕 {name} shot the moon!", name=_name(names, hand.shooter)))
    points = Joined(
        tuple(Joined((_name(names, s), format_score(p)), " ") for s, p in enumerate(hand.points))
    )
    totals = Joined(
        tuple(Joined((_name(names, s), format_score(t)), " ") for s, t in enumerate(hand.totals))
    )
    lines.append(msg("✋ <b>Hand {hand}</b>: {points}", hand=hand.hand_number, points=points))
    lines.append(msg("Standings: {totals}", totals=totals))
    return lines


def hand_lines(stored: StoredGame, hand: HandReplay, short: bool = False) -> list[Part]:
    """A hand as a short text: the deal, the passes, one line per trick, the points
    (`short`: the names cut, for a message that would not fit whole)."""
    names = seat_names(stored, short)
    lines: list[Part] = [
        msg(
            "▶ <b>Hand {hand}</b> of game {game} · {direction}",
            hand=hand.hand_number,
            game=stored.id,
            direction=Msg(DIRECTIONS[hand.pass_direction]),
        ),
        "",
        Strong(msg("The deal")),
    ]
    lines.extend(
        Joined((Strong(_name(names, s)), cards_text(cards)), ": ")
        for s, cards in enumerate(hand.deal)
    )
    if hand.dead:
        lines.append(msg("Dead cards: {cards}", cards=cards_text(hand.dead)))
    if hand.passes:
        lines.extend(("", Strong(msg("The passes"))))
        lines.extend(pass_lines(names, hand))
    lines.extend(("", Strong(msg("The tricks"))))
    lines.extend(trick_line(names, trick) for trick in hand.tricks)
    lines.append("")
    lines.extend(result_lines(names, hand))
    return lines
