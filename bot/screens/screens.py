"""What each chat shows of a table: the group's table message and posts, each player's
living DM, and the ids of those messages (kept to edit them, and after a restart: the
screens store what they keep themselves, `storage.screens`, apart from the game).

`Screens` decides which screen goes where, when and with what `Urgency`, and makes it as
data (`bot.screens.seat_screen`, `bot.screens.render`); a `Display`, the port it declares,
draws and sends it (the Telegram adapter's, `bot.telegram.display.TelegramDisplay`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from typing import Protocol

from bot.basics import Person
from bot.core.commands import away_said
from bot.core.effects import Urgency
from bot.core.phases import Phase
from bot.i18n import Msg, Tr, msg
from bot.languages import Languages
from bot.screens import render
from bot.screens.kept import KeptScreens
from bot.screens.parts import Name, Part
from bot.screens.seat_screen import Button, OpenDmToSit, Screen, Words, group_screen, seat_screen
from bot.tables.model import Table
from bot.tables.registry import TableRegistry
from bot.timers import Background
from engine import Game
from storage import People

log = logging.getLogger(__name__)


class NotShown(Exception):
    """The chat refused a message (the adapter's error, said in its words)."""


class Display(Protocol):
    """How screens reach people: drawn in the reader's language and sent, each kind of
    request at its own default pace unless given an `Urgency` (`bot.telegram.display`)."""

    page: bool
    """Whether the table page is served (its buttons are offered)."""

    def post(
        self,
        chat_id: int,
        tr: Tr,
        screen: Screen,
        thread_id: int | None = None,
        *,
        notify: bool = True,
        photo: bytes | None = None,
        urgency: Urgency | None = None,
    ) -> Awaitable[int | None]:
        """Send without waiting, in order per chat; awaited: the message's id (None: not
        sent)."""
        ...

    async def send(
        self, chat_id: int, tr: Tr, screen: Screen, thread_id: int | None = None
    ) -> int | None:
        """Send now; the message's id, None if the chat blocked the bot; `NotShown` if
        the chat refused it otherwise."""
        ...

    def edit(
        self,
        chat_id: int,
        message_id: int,
        tr: Tr,
        screen: Screen,
        thread_id: int | None = None,
        *,
        urgency: Urgency | None = None,
    ) -> None: ...

    def edit_later(
        self,
        chat_id: int,
        message_id: int,
        screen: Callable[[], tuple[Tr, Screen]],
        thread_id: int | None = None,
        *,
        urgency: Urgency | None = None,
    ) -> None:
        """Edit to what `screen` makes when the edit's turn comes (the latest state)."""
        ...

    async def delete(self, chat_id: int, message_id: int) -> None: ...

    def is_gone(self, chat_id: int) -> bool:
        """Whether the chat removed or blocked the bot."""
        ...

    def is_newest(self, chat_id: int, message_id: int) -> bool:
        """Whether the message is still at the bottom of a person's chat (nothing the bot
        sent since is there below it)."""
        ...


class Pages(Protocol):
    """The table pages people have open (`bot.live.hub.LiveHub`)."""

    def is_open(self, game_id: int, seat: int) -> bool: ...

    def changed(self, table: Table, seat: int) -> None: ...

    def watchers(self, game_id: int) -> int:
        """How many people watch the game on its page."""
        ...


class NoPages:
    """No table page (``WEBAPP_URL`` is not set)."""

    def is_open(self, game_id: int, seat: int) -> bool:
        return False

    def changed(self, table: Table, seat: int) -> None:
        return None

    def watchers(self, game_id: int) -> int:
        return 0


class Screens:
    """Brings every message of a table up to date through its `Display`, without waiting
    for Telegram: the latest state is drawn when a message's turn comes."""

    def __init__(
        self,
        registry: TableRegistry,
        display: Display,
        background: Background,
        languages: Languages,
        people: People,
        kept: KeptScreens,
        pages: Pages | None = None,
        lean: bool = True,
    ) -> None:
        """`kept`: stores what the screens keep of each table (`Table.ui`)."""
        self.registry = registry
        self.kept = kept
        self.languages = languages
        self.people = people
        self.display = display
        self.background = background
        self.lean = lean
        """Whether the presser's screen goes first and others' wait out a trick in progress
        (see `show_all`); False: the order before the table page (`./dev bench load
        --compare`)."""
        self.pages: Pages = NoPages() if pages is None else pages
        """Told of every change of a seat's screen: the open table pages, when served."""
        self._notices: dict[tuple[int, int], _Notice] = {}
        """The group's idle notice each (table, seat) is in, with the lines it shows."""
        self._moving: set[tuple[int, int]] = set()
        """The (table, seat) DMs being sent anew at the bottom of their chat (`post_dm`)."""

    # ------------------------------------------------------------------ languages

    def group(self, table: Table) -> Tr:
        """The language of the table's group (the table message, results, notices)."""
        return self.languages.chat(table.chat_id)

    def person(self, user_id: int) -> Tr:
        """The language of a person's DM."""
        return self.languages.person(user_id)

    def tell(self, user_id: int, said: Part | Words) -> None:
        """Post a line (or lines) to a person's DM, in their language (without waiting)."""
        self.display.post(user_id, self.person(user_id), _words(said))

    def post_to_group(self, chat_id: int, said: Words) -> None:
        """Post lines to a group (not a table's), in the group's language (without waiting)."""
        self.display.post(chat_id, self.languages.chat(chat_id), said)

    def is_gone(self, chat_id: int) -> bool:
        """Whether the chat removed or blocked the bot."""
        return self.display.is_gone(chat_id)

    def redraw_in_language(self, chat_id: int) -> None:
        """After ``/language``: a group's open table messages, or a person's living DM
        (and table page), drawn again at once in the chat's language now. A lobby shows
        its seats (a rules menu open in it closes: the host opens it again)."""
        if chat_id < 0:
            for table in self.registry.of_chat(chat_id):
                if table.tournament_id is not None:
                    continue  # its group follows the tournament's message instead
                if table.phase is Phase.LOBBY:
                    self.show_lobby(table)
                else:
                    self.show_table(table)
            return
        own = self.registry.of_user(chat_id)
        seat = own.seat_of(chat_id) if own is not None else None
        if own is not None and seat is not None:
            self.show_dm(
                own, seat, Urgency.MOVED
            )  # as for a press in the DM: even with a page open

    # ------------------------------------------------------------------ the group

    async def send_lobby(self, table: Table) -> int | None:
        """Post a new lobby's message now; its id (None: not sent, `NotShown`: refused)."""
        return await self.display.send(
            table.chat_id, self.group(table), render.lobby_screen(table), table.thread_id
        )

    def show_lobby(self, table: Table) -> None:
        if table.ui.table_message_id is None:
            return
        # Shown after someone joined, left or changed something: they are looking at it.
        self.edit_table_message(table, render.lobby_screen(table), Urgency.MOVED)

    def show_rules(self, table: Table, show: bool = True) -> None:
        """The rules menu in the table's message (`show`), or the lobby again: the host
        pressed there."""
        screen = render.rules_screen(table) if show else render.lobby_screen(table)
        self.edit_table_message(table, screen, Urgency.NOW)

    def edit_table_message(self, table: Table, screen: Words, urgency: Urgency) -> None:
        """Show a lobby, its rules menu or an end in the table's message in the group."""
        assert table.ui.table_message_id is not None
        self.display.edit(
            table.chat_id,
            table.ui.table_message_id,
            self.group(table),
            screen,
            table.thread_id,
            urgency=urgency,
        )

    def show_table(self, table: Table, urgency: Urgency | None = None) -> None:
        if table.ui.table_message_id is None or not shows_play(table):
            return
        self._edit_later(table, None, table.chat_id, table.ui.table_message_id, urgency)

    def _edit_later(
        self,
        table: Table,
        seat: int | None,
        chat_id: int,
        message_id: int,
        urgency: Urgency | None,
    ) -> None:
        """Edit a living message of a game: the group's table message (`seat` None) or a
        seat's DM, made from the table as it is when the edit's turn comes (the latest
        state wins), in its reader's language then."""
        page = self.display.page

        def screen() -> tuple[Tr, Screen]:
            tr = self.group(table) if seat is None else self.person(chat_id)
            if seat is not None:
                return tr, seat_screen(table, seat, page=page)
            # The watchers as they are when the message is drawn: a move redraws it anyway.
            return tr, group_screen(table, page=page, watchers=self.pages.watchers(table.id))

        thread_id = table.thread_id if seat is None else None
        self.display.edit_later(chat_id, message_id, screen, thread_id, urgency=urgency)

    def announce(self, table: Table, said: Part | Words) -> None:
        """Post to the group, in its language (in order, without waiting for Telegram)."""
        if not table.in_group:
            return  # a tournament's group follows its status message; a daily deal has none
        self.display.post(
            table.chat_id, self.group(table), _words(said), table.thread_id, notify=False
        )

    def announce_end(self, table: Table, said: Words) -> None:
        """The game's end, once: the chart with the result as its caption (the table's
        message shows the final standings and the rematch button)."""
        if not table.in_group:
            return
        tr = self.group(table)
        try:
            png = render.score_chart_png(tr, table)
        except Exception:
            log.exception("score chart for game %s failed", table.id)
            self.announce(table, said)
        else:
            self.display.post(table.chat_id, tr, said, table.thread_id, photo=png)

    def idle_notice(self, table: Table, said: dict[int, Msg]) -> None:
        """One group message per spell of timeouts, edited as the spell goes on (a timeout,
        another, the computer taking over), instead of one message each: `said` has a line
        for each seat that just timed out; seats that time out at once share one message."""
        if not table.in_group:
            return  # a tournament's group follows the tournament's status message instead
        ids = table.ui.idle_message_ids
        for key in [k for k in self._notices if k[0] == table.id and k[1] not in ids]:
            del self._notices[key]  # that seat moved since: its spell is over
        for key in [k for k in self._notices if self.registry.get(k[0]) is None]:
            del self._notices[key]  # a table that ended
        fresh = _Notice()
        for seat, line in said.items():
            notice = self._notices.get((table.id, seat))
            if notice is None:
                # A seat in a spell from before a restart has its message, not its lines.
                notice = _Notice(ids[seat]) if ids.get(seat) else fresh
                self._notices[(table.id, seat)] = notice
            notice.lines[seat] = line
        mine = [n for (game_id, _), n in self._notices.items() if game_id == table.id]
        tr = self.group(table)
        for notice in {id(n): n for n in mine}.values():
            if notice is not fresh and notice.message_id and set(notice.lines) & set(said):
                self.display.edit(
                    table.chat_id, notice.message_id, tr, notice.words(), table.thread_id
                )
            # A notice still on its way is edited to its newest lines when it arrives.
        if not fresh.lines:
            return
        for seat in fresh.lines:
            ids[seat] = 0
        shown = fresh.words()
        sent = self.display.post(table.chat_id, tr, shown, table.thread_id, notify=False)

        async def keep_id() -> None:
            new_id = await sent
            if new_id is None:
                return
            fresh.message_id = new_id
            for seat in fresh.lines:
                if ids.get(seat) == 0:
                    ids[seat] = new_id
            self.kept.save_soon(table)
            if fresh.words() != shown:
                latest = fresh.words()
                self.display.edit(table.chat_id, new_id, self.group(table), latest, table.thread_id)

        self.background.spawn(keep_id())

    async def ask_to_open_dm(self, table: Table, person: Person) -> None:
        said = msg(
            "{name}, I can't message you yet. Tap below, press <b>Start</b> in our "
            "chat, and your seat is yours.",
            name=Name(person.name),
        )
        button = Button(msg("Open my cards in a DM"), OpenDmToSit(table.join_token))
        screen = Words((said,), ((button,),), table.id)
        self.display.post(table.chat_id, self.group(table), screen, table.thread_id)

    # ------------------------------------------------------------------ the players' DMs

    def show_all(self, table: Table, moved: Collection[int] = ()) -> None:
        """Bring the table and every DM up to date; `moved`: the seats that just moved.

        Who just moved sees it first, then who must act now. With lean edits, a screen
        nobody is waiting on is not written at all while a trick is in progress: another
        player's card changes the others' DMs only by a card in the middle of the trick, so
        they are brought up to date when the trick is complete (or when their reader must
        act or presses there, whichever comes first). A DM then costs about two writes a
        card (the mover's screen and the next player's) instead of four (issue 35, item 4);
        a table page still shows every card, and so does the group's message.
        """
        game = table.game
        fresh = game is not None and _fresh_deal(game)
        acting = _must_look_now(game) if game is not None else set()
        settled = game is not None and _settled(game)
        humans = table.humans()
        # A new deal's commitment goes to the group first, at the players' own urgency
        # (each player's screen shows it too: README, "Fair deals"). The group's message
        # goes at its own pace (a few seconds), its newest state drawn when sent.
        self.show_table(table, Urgency.NOW if fresh else None)
        for seat, _ in humans:
            if not self.lean:  # as before the table page: every screen at every card
                urgency = (
                    Urgency.NOW
                    if seat in acting
                    else Urgency.MOVED
                    if seat in moved
                    else Urgency.EDIT
                )
            else:
                urgency = (
                    Urgency.PLAYED
                    if seat in moved
                    else Urgency.NOW
                    if seat in acting
                    else Urgency.EDIT
                )
                if urgency is Urgency.EDIT and not settled:
                    urgency = Urgency.IDLE
            self.show_dm(table, seat, urgency)

    def show_dm(self, table: Table, seat: int, urgency: Urgency = Urgency.EDIT) -> None:
        """Bring a player's DM up to date (drawn when sent: the latest state wins), and
        their table page if it is open.

        While the page is open, the DM is edited only when its reader pressed in it or a
        trick is complete: the page shows each card and whose turn it is (and the "your
        turn" message still comes)."""
        s = table.seats[seat]
        message_id = table.ui.dm_message_ids.get(seat)
        if s is None or s.user_id is None or table.game is None:
            return
        self.pages.changed(table, seat)  # a page is told of a cancelled game too
        if message_id is None or not shows_play(table):
            return
        if s.away:
            # A computer player holds the seat: its cards are no longer the reader's to play.
            self.close_dm(table, seat, away_said(s))
            return
        if urgency is Urgency.IDLE:
            return  # nobody waits on it: the next screen written there shows it (show_all)
        pressed_here = urgency in (Urgency.PLAYED, Urgency.MOVED)  # a press in the DM itself
        chosen = table.ui.selections.get(seat, ())
        if not pressed_here and self.pages.is_open(table.id, seat):
            if not _settled(table.game, chosen):
                return
            # Their page has shown it already (their turn too): the DM catches up when
            # Telegram's budget has room, behind every screen someone is waiting on.
            urgency = Urgency.EDIT
        if (table.id, seat) in self._moving:
            return  # it is on its way to the bottom, drawn anew once there (`post_dm`)
        if urgency is Urgency.NOW and not self.display.is_newest(s.user_id, message_id):
            # Posts landed below it since (a review, a replay, an answer): on its reader's
            # turn it comes back to the bottom of the chat, where the thumb is; one message
            # sent and one deleted, and only then (issue 51, item 8).
            self.post_dm(table, seat, replacing=message_id)
            return
        self._edit_later(table, seat, s.user_id, message_id, urgency)

    def post_dm(self, table: Table, seat: int, replacing: int | None = None) -> None:
        """Send a player's living DM without waiting; its id is kept when it is known.
        `replacing`: the living DM it takes the place of, deleted once it is sent."""
        s = table.seats[seat]
        if s is None or s.user_id is None or s.away or not shows_play(table):
            return  # (a computer player holds an away seat: its person has no cards to play)
        user_id, name, key = s.user_id, s.name, (table.id, seat)
        screen = seat_screen(table, seat, page=self.display.page)
        sent = self.display.post(user_id, self.person(user_id), screen, urgency=Urgency.NOW)
        table.ui.active_at[seat] = time.time()  # a new message: their phone buzzes with it
        if replacing is not None:
            self._moving.add(key)

        async def keep_id() -> None:
            try:
                message_id = await sent
            finally:
                self._moving.discard(key)
            if replacing is not None:
                if message_id is None:
                    # The one it was to replace stays (a chat gone says so itself), drawn
                    # anew where it is: the moves made while the new one was on its way.
                    self.show_dm(table, seat)
                    return
                if table.ui.dm_message_ids.get(seat) != replacing:
                    await self.display.delete(user_id, message_id)  # closed meanwhile
                    return
                await self.display.delete(user_id, replacing)
            elif message_id is None:
                await self.people.set_dm_open(user_id, False)
                await self.ask_to_open_dm(table, Person(user_id, name))
                return
            table.ui.dm_message_ids[seat] = message_id
            self.kept.save_soon(table)
            self.show_dm(table, seat)  # moves made while it was on its way

        self.background.spawn(keep_id())

    def close_dm(self, table: Table, seat: int, said: Part) -> None:
        """A player's living DM no longer applies (they left, a new one took its place,
        the game was cancelled): at once, its buttons go and it says `said` instead, why;
        the seat has no living DM until one is sent again (stored with the screens' next
        save: until then, a restart closes it again)."""
        s = table.seats[seat]
        message_id = table.ui.dm_message_ids.pop(seat, None)
        if message_id is None or s is None or s.user_id is None:
            return
        tr = self.person(s.user_id)
        self.display.edit(s.user_id, message_id, tr, _words(said), urgency=Urgency.NOW)

    async def send_dm_again(self, table: Table, seat: int) -> None:
        """A new living DM at the bottom of the chat (/rejoin, a /start mid-game); the
        one before it, if any, is closed."""
        s = table.seats[seat]
        self.close_dm(table, seat, MOVED_BELOW)
        if s is None or s.user_id is None or not shows_play(table):
            return
        if s.away:
            self.tell(s.user_id, away_said(s))  # no cards to play until they /rejoin
            return
        screen = seat_screen(table, seat, page=self.display.page)
        table.ui.active_at[seat] = time.time()  # a new message: their phone buzzes with it
        message_id = await self.display.send(s.user_id, self.person(s.user_id), screen)
        if message_id is None:
            await self.people.set_dm_open(s.user_id, False)
            await self.ask_to_open_dm(table, Person(s.user_id, s.name))
            return
        table.ui.dm_message_ids[seat] = message_id

    async def clear_nudges(self, table: Table, seat: int) -> None:
        """The person moved (or the game ended): their "your turn" and "30 s left" DMs
        are no longer true, so they go."""
        s = table.seats[seat]
        for ids in (table.ui.nudge_message_ids, table.ui.reminder_message_ids):
            message_id = ids.pop(seat, None)
            if message_id is None:
                continue
            # Stored soon (a move no longer carries the screens' state): a nudge's id left
            # stored would keep the person's next turn from its nudge after a restart.
            self.kept.save_soon(table)
            if s is not None and s.user_id is not None:
                await self.display.delete(s.user_id, message_id)

    async def message_replaced(self, chat_id: int, old_id: int, new_id: int) -> None:
        """The adapter sent a message anew (the old one could not be edited)."""
        for table in self.registry.showing_in(chat_id):
            if table.chat_id == chat_id and table.ui.table_message_id == old_id:
                table.ui.table_message_id = new_id
            for seat, message_id in list(table.ui.dm_message_ids.items()):
                s = table.seats[seat]
                if message_id == old_id and s is not None and s.user_id == chat_id:
                    table.ui.dm_message_ids[seat] = new_id
            self.kept.save_soon(table)


MOVED_BELOW = msg("⬇ Your cards are in a new message below.")
"""What a player's DM says once a new one has taken its place."""


def _words(said: Part | Words) -> Words:
    return said if isinstance(said, Words) else Words((said,))


@dataclass
class _Notice:
    """One group message about seats that ran out of time (`Screens.idle_notice`)."""

    message_id: int | None = None
    lines: dict[int, Msg] = field(default_factory=dict)

    def words(self) -> Words:
        return Words(tuple(self.lines[seat] for seat in sorted(self.lines)))


def shows_play(table: Table) -> bool:
    """Whether the table's screens may show its game: while it is played, and its final
    state once it is over. A game that ended otherwise (cancelled, its group gone) keeps
    the words that said so: no later edit brings its hand back."""
    game = table.game
    return game is not None and (table.phase is Phase.DEALT or game.phase == "over")


def _settled(game: Game, chosen: Collection[str] = ()) -> bool:
    """Whether no trick is in progress: a trick was just taken, a hand scored (the next
    one dealt, before anyone passed and before the reader `chosen` a card to pass), or the
    game ended (the moment everyone's screen is brought up to date)."""
    if game.phase == "pass":
        return not chosen and not any(game.has_passed(s) for s in range(game.players))
    return game.phase in ("play", "moon", "over") and not game.trick


def _fresh_deal(game: Game) -> bool:
    """Whether the hand was just dealt: nobody has passed or played a card of it yet."""
    if game.phase == "pass":
        return not any(game.has_passed(s) for s in range(game.players))
    return (
        game.phase == "play"
        and game.pass_direction == "hold"
        and not game.tricks
        and not game.trick
    )


def _must_look_now(game: Game) -> set[int]:
    """The seats whose screen changed in a way they must see at once: who must play or
    choose a moon option, and everyone at a new deal. (Another player's pass changes only
    a mark on the others' screens.)"""
    if game.phase == "pass":
        fresh_deal = not any(game.has_passed(s) for s in range(game.players))
        return set(game.waiting_for()) if fresh_deal else set()
    return set(game.waiting_for())
