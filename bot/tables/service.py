"""The tables of every chat: lobby, play, timers and computer players.

Handlers call one method here per update; each method takes the table's lock, asks the
engine, makes the move durable in storage before anyone is answered, then updates what
people see through the `Outbox`. A rejected input raises `UserError` with the sentence to
show, and changes nothing.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import secrets
import time
import weakref
from collections.abc import Awaitable, Callable, Collection, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.tables import render
from bot.tables.model import LEVELS, TARGETS, TIMERS, Seat, Table, TableOptions, TableUI
from bot.tables.thinker import Thinker
from bot.telegram import callbacks as cb
from bot.telegram.callbacks import parse_id
from bot.telegram.outbox import EDIT, MOVED, POST, URGENT, Outbox
from bot.texts import t
from engine import (
    Card,
    CardPlayed,
    CardsPassed,
    Event,
    Game,
    GameOver,
    HandScored,
    IllegalMove,
    MoonShot,
    Move,
    Rules,
)
from engine.rules import Variant
from storage.errors import GameNotFound, StorageUnavailable
from storage.models import ChatSettings, StoredGame
from storage.models import Seat as StoredSeat
from storage.repository import Storage

log = logging.getLogger(__name__)

COMPUTER_NAMES = ("Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald")


class UserError(Exception):
    """A request the bot turns down; the message is shown to the person as it is."""


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    username: str | None = None


@dataclass(frozen=True)
class ServiceConfig:
    bot_username: str
    computer_delay: float = 1.0
    """Seconds a computer player 'thinks' before its card shows (natural pace)."""
    computer_budget_ms: int = 300
    nudge_delay: float = 5.0
    """Seconds into a person's turn before the "your turn" message (0: at once)."""
    default_turn_timer: int = 60
    timeouts_before_away: int = 3
    lobby_ttl_s: float = 6 * 3600
    """A lobby not started within this long closes (with a line in its message)."""


RETRY_FIRST_S = 0.5
RETRY_MAX_S = 30.0


class Scheduler:
    """Named one-shot timers, each replaced when armed again (`turn:<game>` and so on)."""

    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self.closed = False
        self.on_trouble: Callable[[str, bool], Awaitable[None]] | None = None
        """Told ``(name, True)`` when a timer's step met a storage error (it is tried
        again), and ``(name, False)`` when a retried step went through."""

    def arm(
        self, name: str, delay: float, action: Callable[[], Awaitable[None]], *, retry: int = 0
    ) -> None:
        """Run `action` after `delay` seconds under `name` (replacing what was armed).

        A step that fails because the database cannot be written is tried again, after
        `RETRY_FIRST_S`, then twice as long each time up to `RETRY_MAX_S`, until it goes
        through; unless something armed the same name meanwhile (the game moved on)."""
        self.cancel(name)
        if self.closed:
            return  # shutting down: what is stored resumes on the next start

        async def run() -> None:
            await asyncio.sleep(max(0.0, delay))
            self._tasks.pop(name, None)
            try:
                await action()
            except StorageUnavailable as error:
                wait = min(RETRY_FIRST_S * 2**retry, RETRY_MAX_S)
                log.warning("timer %s: %s; trying again in %.0f s", name, error, wait)
                await self._tell(name, True)
                if name not in self._tasks:
                    self.arm(name, wait, action, retry=retry + 1)
                return
            except Exception:
                log.exception("timer %s failed", name)
                return
            if retry:
                log.info("timer %s went through after %d retries", name, retry)
                await self._tell(name, False)

        self._tasks[name] = asyncio.create_task(run(), name=name)

    async def _tell(self, name: str, failing: bool) -> None:
        if self.on_trouble is None:
            return
        try:
            await self.on_trouble(name, failing)
        except Exception:
            log.exception("telling about timer %s failed", name)

    def cancel(self, name: str) -> None:
        task = self._tasks.pop(name, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def cancel_game(self, game_id: int) -> None:
        for name in [n for n in self._tasks if n.endswith(f":{game_id}")]:
            self.cancel(name)

    def names(self) -> list[str]:
        return sorted(self._tasks)

    async def close(self) -> None:
        self.closed = True
        for name in list(self._tasks):
            self.cancel(name)


AdminCheck = Callable[[int, int], Awaitable[bool]]
"""``(chat_id, user_id)`` → whether the person is an admin (or, for `MemberCheck`, a
member) of the chat; False when Telegram cannot tell."""
MemberCheck = AdminCheck
JOIN_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,32}")
"""What a table's link token looks like (`secrets.token_urlsafe`, or the migration's hex)."""
StartHook = Callable[["Person", int], Awaitable[str]]
"""Handles a ``/start <letter><id>`` deep link for another service (``e<id>``: events)."""
Listener = Callable[["Table", list[Event]], Awaitable[None]]
"""Told of every move a table makes (after it is stored and shown), and of its start."""
DealSource = Callable[["Table"], tuple[int, list[list[list[str]]] | None]]
"""How a table's game is dealt: a seed and, optionally, fixed deals (tournaments, tests)."""


def random_deal(table: Table) -> tuple[int, list[list[list[str]]] | None]:
    return secrets.randbits(62), None


class HeartsService:
    def __init__(
        self,
        storage: Storage,
        outbox: Outbox,
        thinker: Thinker,
        config: ServiceConfig,
        is_admin: AdminCheck,
        is_member: MemberCheck,
    ) -> None:
        self.storage = storage
        self.outbox = outbox
        self.thinker = thinker
        self.config = config
        self.is_admin = is_admin
        self.is_member = is_member
        self.scheduler = Scheduler()
        self.deal_source: DealSource = random_deal
        self.listeners: list[Listener] = []
        self.start_hooks: dict[str, StartHook] = {}
        self.tables: dict[int, Table] = {}
        self._by_token: dict[str, int] = {}
        """Lobbies by their link token (kept in step with `tables` by `_register`)."""
        self._by_chat: dict[tuple[int, int | None], int] = {}
        """The group's own table (not a tournament's) by chat and topic."""
        self._in_chat: dict[int, set[int]] = {}
        """Every live table of a chat (its own and a tournament's)."""
        self._by_user: dict[int, int] = {}
        """The table each person sits at (kept by `_index_seats`)."""
        self._users_at: dict[int, set[int]] = {}
        self.seq: dict[int, int] = {}
        self._locks = weakref.WeakValueDictionary[int, asyncio.Lock]()
        """A table's lock while someone holds or waits for it (then it is dropped)."""
        self._seating = asyncio.Lock()
        """Held while deciding whether a chat may open a table or a person may sit down,
        so two at once keep the rules one at a time keeps (one table a chat, one seat a
        person). Taken after a table's lock, never before."""
        self._background: set[asyncio.Task[None]] = set()
        self._meta_dirty: set[int] = set()
        outbox.on_replaced = self._message_replaced
        outbox.on_gone = self.chat_gone
        self.scheduler.on_trouble = self._timer_trouble
        self._troubled: set[int] = set()
        self._idle_text: dict[tuple[int, int], str] = {}
        """The newest text of an idle notice still on its way to the group."""
        """Tables told that their moves cannot be saved just now."""

    def lock(self, game_id: int) -> asyncio.Lock:
        """A table's lock: the same one for everyone who holds or waits for it, and nothing
        kept once nobody does (a forged id costs nothing after its press is answered)."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    def _register(self, table: Table) -> None:
        """Keep a live table, and index it."""
        self.tables[table.id] = table
        if table.join_token:
            self._by_token[table.join_token] = table.id
        if table.event_id is None:
            self._by_chat[(table.chat_id, table.thread_id)] = table.id
        self._in_chat.setdefault(table.chat_id, set()).add(table.id)
        self._index_seats(table)

    def _unregister(self, table: Table) -> None:
        """Forget a table that ended (finished, cancelled, expired), and all kept for it."""
        self.tables.pop(table.id, None)
        self._by_token.pop(table.join_token, None)
        if self._by_chat.get((table.chat_id, table.thread_id)) == table.id:
            del self._by_chat[(table.chat_id, table.thread_id)]
        in_chat = self._in_chat.get(table.chat_id)
        if in_chat is not None:
            in_chat.discard(table.id)
            if not in_chat:
                del self._in_chat[table.chat_id]
        for user_id in self._users_at.pop(table.id, set()):
            if self._by_user.get(user_id) == table.id:
                del self._by_user[user_id]
        self.seq.pop(table.id, None)
        self._troubled.discard(table.id)
        self.scheduler.cancel_game(table.id)

    def _index_seats(self, table: Table) -> None:
        """Index who sits at ``table`` now (after its seats changed)."""
        now = {s.user_id for s in table.seats if s is not None and s.user_id is not None}
        for user_id in self._users_at.get(table.id, set()) - now:
            if self._by_user.get(user_id) == table.id:
                del self._by_user[user_id]
        for user_id in now:
            self._by_user[user_id] = table.id
        self._users_at[table.id] = now

    def kept_sizes(self) -> dict[str, int]:
        """How much is held per table, chat or person (memory tests)."""
        return {
            "tables": len(self.tables),
            "locks": len(self._locks),
            "seq": len(self.seq),
            "by_token": len(self._by_token),
            "by_chat": len(self._by_chat),
            "in_chat": len(self._in_chat),
            "by_user": len(self._by_user),
            "users_at": len(self._users_at),
            "meta_dirty": len(self._meta_dirty),
            "timers": len(self.scheduler.names()),
        }

    # ================================================================ loading

    def _table_from_stored(self, stored: StoredGame) -> Table:
        meta = stored.meta
        seats: list[Seat | None] = [None] * stored.rules.players
        seat_state = meta.get("seat_state", {})
        for s in stored.seats:
            extra = seat_state.get(str(s.seat), {})
            seats[s.seat] = Seat(
                kind=s.kind,
                name=s.display_name,
                user_id=s.user_id,
                level=s.computer_level or "standard",
                away=bool(extra.get("away", False)),
                timeouts=int(extra.get("timeouts", 0)),
            )
        table = Table(
            id=stored.id,
            chat_id=stored.chat_id,
            thread_id=stored.thread_id,
            chat_title=meta.get("chat_title", ""),
            creator_id=stored.creator_id,
            creator_name=meta.get("creator_name", ""),
            rules=stored.rules,
            options=TableOptions.from_dict(meta.get("options", {})),
            seats=seats,
            status=stored.status,
            game=stored.game,
            ui=TableUI.from_dict(meta.get("ui", {})),
            event_id=stored.event_id,
            join_token=stored.join_token,
        )
        return table

    @staticmethod
    def _meta(table: Table) -> dict[str, Any]:
        meta = table.meta()
        meta["seat_state"] = {
            str(n): {"away": s.away, "timeouts": s.timeouts}
            for n, s in enumerate(table.seats)
            if s is not None and s.kind == "human"
        }
        return meta

    @staticmethod
    def _stored_seats(table: Table) -> list[StoredSeat]:
        out = []
        for n, s in enumerate(table.seats):
            if s is None:
                continue
            if s.kind == "human":
                assert s.user_id is not None
                out.append(StoredSeat.human(n, s.user_id, s.name))
            else:
                out.append(StoredSeat.computer(n, s.name, s.level))
        return out

    async def _get(self, game_id: int) -> Table:
        table = self.tables.get(game_id)
        if table is None:
            raise UserError(t("toast.unknown_button"))
        return table

    async def table_in_chat(self, chat_id: int, thread_id: int | None) -> Table | None:
        table = self.tables.get(self._by_chat.get((chat_id, thread_id), 0))
        if table is not None and table.status in ("lobby", "active"):
            return table
        return None

    def table_of_user(self, user_id: int) -> Table | None:
        table = self.tables.get(self._by_user.get(user_id, 0))
        if table is None or table.status not in ("lobby", "active"):
            return None
        return table if table.seat_of(user_id) is not None else None

    async def resume(self) -> None:
        """After a start: load every open game, show it again, re-arm its timers."""
        for stored in await self.storage.active_games():
            try:
                self._resume_one(stored)
            except Exception:  # one bad table never keeps the others (or the bot) down
                log.exception("game %s could not be resumed", stored.id)
                self.tables.pop(stored.id, None)

    def _resume_one(self, stored: StoredGame) -> None:
        if stored.status == "quarantined":
            log.warning("game %s quarantined: %s", stored.id, stored.quarantine_reason)
            self.outbox.post(stored.chat_id, t("game.quarantined"), thread_id=stored.thread_id)
            return
        table = self._table_from_stored(stored)
        self._register(table)
        self.seq[table.id] = stored.last_seq
        log.info("resumed game %s in chat %s (%s)", table.id, table.chat_id, table.status)
        if table.status == "lobby":
            age = (datetime.now(UTC) - stored.created_at).total_seconds()
            self._arm_lobby_expiry(table, self.config.lobby_ttl_s - age)
            self._show_lobby(table)
        else:
            self._show_all(table)
            for seat, _ in table.humans():
                if seat not in table.ui.dm_message_ids:
                    self._post_dm(table, seat)  # it was on its way when the bot stopped
            self._schedule(table, resumed=True)

    def _arm_lobby_expiry(self, table: Table, delay: float) -> None:
        """A lobby nobody starts closes after `ServiceConfig.lobby_ttl_s`."""
        gid = table.id
        self.scheduler.arm(f"lobby:{gid}", max(delay, 0.0), lambda: self._expire_lobby(gid))

    async def _expire_lobby(self, game_id: int) -> None:
        async with self.lock(game_id):
            table = self.tables.get(game_id)
            if table is None or table.status != "lobby":
                return
            hours = round(self.config.lobby_ttl_s / 3600)
            log.info("lobby %s in chat %s expired", table.id, table.chat_id)
            await self._close(table, t("lobby.expired", hours=hours), None)

    # ================================================================ lobby

    async def new_table(
        self, chat_id: int, thread_id: int | None, chat_title: str, person: Person
    ) -> None:
        await self.storage.upsert_user(person.id, person.name, person.username)
        async with self._seating:
            if await self.table_in_chat(chat_id, thread_id) is not None:
                raise UserError(t("reply.table_exists"))
            table = await self._open_lobby(chat_id, thread_id, chat_title, person)
        await self._show_new_lobby(table, person)

    async def _open_lobby(
        self,
        chat_id: int,
        thread_id: int | None,
        chat_title: str,
        person: Person,
        like: Table | None = None,
    ) -> Table:
        """A new lobby, stored and indexed, its host seated if they sit nowhere else.

        With the rules and options of the chat's settings; or of `like` (a rematch), whose
        computers and free people (DM open) keep a seat too.
        """
        if like is not None:
            rules, options = like.rules, like.options
        else:
            settings = await self.storage.get_chat_settings(chat_id)
            rules = Rules.from_stored(settings.rules)
            level = settings.computer_level if settings.computer_level in LEVELS else "standard"
            options = TableOptions(
                turn_timer=self.turn_timer_of(settings),
                computer_level=level,
                track_cards=settings.track_cards,
            )
        table = Table(
            id=0,
            chat_id=chat_id,
            thread_id=thread_id,
            chat_title=chat_title,
            creator_id=person.id,
            creator_name=person.name,
            rules=rules,
            options=options,
            seats=[None] * rules.players,
            join_token=secrets.token_urlsafe(9),
        )
        other = self.table_of_user(person.id)
        if other is None:
            table.seats[0] = Seat("human", person.name, person.id)
            if not await self.storage.dm_open(person.id):
                table.seats[0] = None
                table.ui.pending[person.id] = person.name
        for s in like.seats if like is not None else []:
            if s is None or None not in table.seats:
                continue
            if s.kind == "computer":
                table.seats[table.seats.index(None)] = self._computer(table)
            elif await self._free_to_sit(s.user_id, person):
                assert s.user_id is not None
                table.seats[table.seats.index(None)] = Seat("human", s.name, s.user_id)
        table.id = await self.storage.create_lobby(
            chat_id,
            thread_id,
            person.id,
            rules,
            self._stored_seats(table),
            self._meta(table),
            join_token=table.join_token,
        )
        self._register(table)
        self.seq[table.id] = 0
        self._arm_lobby_expiry(table, self.config.lobby_ttl_s)
        return table

    async def _show_new_lobby(self, table: Table, host: Person) -> None:
        """Post a new lobby's message; ask its host to open the DM if they have not."""
        text, markup = render.lobby(table)
        message_id = await self.outbox.send(table.chat_id, text, markup, table.thread_id)
        table.ui.table_message_id = message_id
        await self.storage.set_meta(table.id, self._meta(table))
        if host.id in table.ui.pending:
            await self._ask_to_open_dm(table, host)

    def turn_timer_of(self, settings: ChatSettings) -> int:
        """The turn timer a chat's new tables get: its own choice, else the bot's default."""
        if settings.turn_timer_s is None:
            return self.config.default_turn_timer
        return settings.turn_timer_s

    async def _save_lobby(self, table: Table) -> None:
        self._index_seats(table)
        await self.storage.update_lobby(
            table.id, table.rules, self._stored_seats(table), self._meta(table)
        )
        self._show_lobby(table)

    def _show_lobby(self, table: Table) -> None:
        if table.ui.table_message_id is None:
            return
        # Shown after someone joined, left or changed something: they are looking at it.
        self._edit_table_message(table, *render.lobby(table), priority=MOVED)

    def _edit_table_message(
        self, table: Table, text: str, markup: InlineKeyboardMarkup | None, priority: int
    ) -> None:
        """Show a lobby or its rules menu in the table's message in the group."""
        assert table.ui.table_message_id is not None
        self.outbox.edit(
            table.chat_id,
            table.ui.table_message_id,
            text,
            markup,
            table.thread_id,
            priority=priority,
        )

    async def _lobby(self, game_id: int) -> Table:
        table = await self._get(game_id)
        if table.status != "lobby":
            raise UserError(t("reply.game_in_progress"))
        return table

    async def _require_host(self, table: Table, person: Person) -> None:
        if person.id == table.creator_id:
            return
        if await self.is_admin(table.chat_id, person.id):
            return
        raise UserError(t("toast.only_host", creator=table.creator_name))

    async def join(self, game_id: int, person: Person, *, in_group: bool = False) -> str:
        """Seat ``person``; `in_group`: they pressed Join in the table's own group.

        Anywhere else (a button forged in a DM) they must first prove, through Telegram,
        that they are a member of the table's group.
        """
        if not in_group:
            table = await self._lobby(game_id)
            if not await self.is_member(table.chat_id, person.id):
                raise UserError(t("reply.members_only"))
        async with self.lock(game_id), self._seating:
            table = await self._lobby(game_id)
            await self.storage.upsert_user(person.id, person.name, person.username)
            if table.seat_of(person.id) is not None:
                raise UserError(t("toast.already_seated"))
            other = self.table_of_user(person.id)
            if other is not None:
                raise UserError(t("toast.other_table"))
            if None not in table.seats:
                raise UserError(t("toast.table_full"))
            if not await self.storage.dm_open(person.id):
                table.ui.pending[person.id] = person.name
                await self._save_lobby(table)
                await self._ask_to_open_dm(table, person)
                return (
                    t("reply.open_dm_first", name=person.name)
                    .replace("<b>", "")
                    .replace("</b>", "")
                )
            table.seats[table.seats.index(None)] = Seat("human", person.name, person.id)
            table.ui.pending.pop(person.id, None)
            await self._save_lobby(table)
            return t("toast.joined")

    async def _ask_to_open_dm(self, table: Table, person: Person) -> None:
        url = f"https://t.me/{self.config.bot_username}?start=j{table.join_token}"
        markup = InlineKeyboardMarkup([[InlineKeyboardButton(t("button.open_dm"), url=url)]])
        self.outbox.post(
            table.chat_id,
            t("reply.open_dm_first", name=render.esc(person.name)),
            markup,
            table.thread_id,
        )

    async def leave(self, game_id: int, person: Person) -> str:
        async with self.lock(game_id):
            table = await self._get(game_id)
            seat = table.seat_of(person.id)
            if table.status == "lobby":
                if seat is None:
                    if table.ui.pending.pop(person.id, None) is not None:
                        await self._save_lobby(table)
                        return t("toast.left")
                    raise UserError(t("toast.not_seated"))
                table.seats[seat] = None
                await self._save_lobby(table)
                return t("toast.left")
            if table.status != "active" or seat is None:
                raise UserError(t("toast.not_seated"))
            s = table.seats[seat]
            assert s is not None
            s.away = True
            await self.storage.set_meta(table.id, self._meta(table))
            self._show_all(table)
            self._schedule(table)
            # One line in the group says it, for everyone (the /leave is answered by it).
            return t("game.left", name=render.esc(s.name))

    async def add_computer(self, game_id: int, person: Person) -> str:
        async with self.lock(game_id):
            table = await self._lobby(game_id)
            await self._require_host(table, person)
            if None not in table.seats:
                raise UserError(t("toast.no_empty_seat"))
            table.seats[table.seats.index(None)] = self._computer(table)
            await self._save_lobby(table)
            return t("toast.computer_added")

    def _computer(self, table: Table) -> Seat:
        """A computer player with a name not yet at the table (its level is in the rules)."""
        taken = {s.name for s in table.seats if s is not None}
        level = table.options.computer_level
        name = next(
            (n for n in COMPUTER_NAMES if n not in taken),
            t("computer.fallback_name", number=len(taken) + 1),
        )
        return Seat("computer", name, level=level)

    async def remove_seat(self, game_id: int, seat: int, person: Person) -> str:
        async with self.lock(game_id):
            table = await self._lobby(game_id)
            await self._require_host(table, person)
            if not 0 <= seat < len(table.seats) or table.seats[seat] is None:
                raise UserError(t("toast.unknown_button"))
            table.seats[seat] = None
            await self._save_lobby(table)
            return t("toast.removed")

    async def show_rules_menu(self, game_id: int, person: Person, show: bool) -> str:
        async with self.lock(game_id):
            table = await self._lobby(game_id)
            if table.ui.table_message_id is None:
                raise UserError(t("toast.unknown_button"))
            # Both ways, like every change to the lobby: only its host or an admin.
            await self._require_host(table, person)
            if show:
                text, markup = render.rules_menu(table)
            else:
                text, markup = render.lobby(table)
            # The press gets no toast: the menu itself is the answer.
            self._edit_table_message(table, text, markup, priority=URGENT)
            return ""

    async def set_rule(self, game_id: int, person: Person, option: str, value: str) -> str:
        async with self.lock(game_id):
            table = await self._lobby(game_id)
            await self._require_host(table, person)
            try:
                rules, options = _changed_rules(table.rules, table.options, option, value)
            except ValueError as error:
                raise UserError(t("toast.bad_rule", reason=str(error))) from None
            table.rules, table.options = rules, options
            if len(table.seats) != rules.players:
                table.resize(rules.players)
            for seat in table.seats:
                if seat is not None and seat.kind == "computer":
                    seat.level = options.computer_level
            settings = await self.storage.get_chat_settings(table.chat_id)
            await self.storage.save_chat_settings(
                type(settings)(
                    chat_id=table.chat_id,
                    rules=rules.to_dict(),
                    turn_timer_s=options.turn_timer,
                    computer_level=options.computer_level,
                    language=settings.language,
                    track_cards=options.track_cards,
                )
            )
            await self.storage.update_lobby(
                table.id, table.rules, self._stored_seats(table), self._meta(table)
            )
            self._edit_table_message(table, *render.rules_menu(table), priority=URGENT)
            return t("toast.rule_changed")

    async def start(self, game_id: int, person: Person) -> str:
        async with self.lock(game_id):
            table = await self._lobby(game_id)
            await self._require_host(table, person)
            if not table.humans():
                raise UserError(t("toast.need_human"))
            for n, seat in enumerate(table.seats):
                if seat is None:
                    table.seats[n] = self._computer(table)
            table.ui.pending.clear()
            seed, deals = self.deal_source(table)
            game = Game(table.rules, seed=seed, deals=deals)
            await self.storage.start_game(table.id, self._stored_seats(table), game)
            table.game = game
            table.status = "active"
            await self.storage.set_meta(table.id, self._meta(table))
            await self._after_move(table, [], started=True)
            return t("toast.starting")

    async def start_event_table(
        self,
        *,
        event_id: int,
        chat_id: int,
        thread_id: int | None,
        chat_title: str,
        organiser: Person,
        rules: Rules,
        options: TableOptions,
        seats: list[Seat],
        seed: int,
        deals: list[list[list[str]]] | None = None,
    ) -> Table:
        """Seat a tournament table and deal: its players get their DMs at once."""
        table = Table(
            id=0,
            chat_id=chat_id,
            thread_id=thread_id,
            chat_title=chat_title,
            creator_id=organiser.id,
            creator_name=organiser.name,
            rules=rules,
            options=options,
            seats=list(seats),
            event_id=event_id,
        )
        table.id = await self.storage.create_lobby(
            chat_id,
            thread_id,
            organiser.id,
            rules,
            self._stored_seats(table),
            self._meta(table),
            event_id=event_id,
        )
        self._register(table)
        self.seq[table.id] = 0
        async with self.lock(table.id):
            game = Game(rules, seed=seed, deals=deals)
            await self.storage.start_game(table.id, self._stored_seats(table), game)
            table.game = game
            table.status = "active"
            await self._after_move(table, [], started=True)
        return table

    async def replace_with_computer(self, game_id: int, seat: int) -> None:
        """A seat's person is gone for good (a no-show, a removed player): a computer plays."""
        async with self.lock(game_id):
            table = await self._get(game_id)
            s = table.seats[seat]
            if s is None or s.kind == "computer" or s.away:
                return
            s.away = True
            await self.storage.set_meta(table.id, self._meta(table))
            self._show_all(table)
            self._schedule(table)

    async def chat_gone(self, chat_id: int) -> None:
        """The chat removed or blocked the bot (the outbox already writes nothing to it).

        A person who blocked the bot leaves their lobby, or a computer player holds their
        seat in a game (``/rejoin`` after unblocking takes it back). A group that removed
        the bot ends its tables: the players still reachable are told in their DMs.
        """
        if chat_id > 0:
            await self.storage.set_dm_open(chat_id, False)
            table = self.table_of_user(chat_id)
            if table is None:
                return
            async with self.lock(table.id):
                seat = table.seat_of(chat_id)
                if seat is None or table.status not in ("lobby", "active"):
                    return
                s = table.seats[seat]
                assert s is not None
                if table.status == "lobby":
                    table.seats[seat] = None
                    await self._save_lobby(table)
                    return
                if not s.away:
                    s.away = True
                    await self.storage.set_meta(table.id, self._meta(table))
                    self._announce(table, t("game.blocked", name=render.esc(s.name)))
                    self._show_all(table)
                    self._schedule(table)
            return
        for game_id in sorted(self._in_chat.get(chat_id, set())):
            async with self.lock(game_id):
                table = self.tables.get(game_id)
                if table is None or table.status not in ("lobby", "active"):
                    continue
                log.info("game %s ends: chat %s removed the bot", table.id, chat_id)
                text = t("game.bot_removed", chat=render.esc(table.chat_title))
                # Its group cannot be written to: the players hear it in their DMs.
                await self._close(table, None, text, post_to_lobby=True)

    async def _timer_trouble(self, name: str, failing: bool) -> None:
        """A table's timer met a storage error (or went through again): its people are
        told once that the game waits, and once that it goes on."""
        _, _, tail = name.rpartition(":")
        table = self.tables.get(int(tail)) if tail.isdigit() else None
        if table is None or failing == (table.id in self._troubled):
            return
        if failing:
            self._troubled.add(table.id)
            text = t("game.storage_trouble")
        else:
            self._troubled.discard(table.id)
            text = t("game.storage_back")
        if table.event_id is None:
            self._announce(table, text)
        else:
            for _, s in table.humans():
                if s.user_id is not None and not s.away:
                    self.outbox.post(s.user_id, text)

    def chat_back(self, chat_id: int) -> None:
        """The bot was added back to a group, or unblocked: it may write there again."""
        self.outbox.resume_chat(chat_id)

    async def rematch(self, game_id: int, person: Person, chat_id: int | None) -> str:
        """« New game » under a finished game: a lobby in the same chat with the same rules
        and options, its host the presser; the people who played (and are free, with their
        DM open) keep their seats, computers theirs."""
        try:
            stored = await self.storage.load_game(game_id, verify=False)
        except GameNotFound:
            raise UserError(t("toast.unknown_button")) from None
        if stored.status != "finished" or stored.event_id is not None or chat_id != stored.chat_id:
            raise UserError(t("toast.unknown_button"))
        old = self._table_from_stored(stored)
        if await self.table_in_chat(old.chat_id, old.thread_id) is not None:
            raise UserError(t("reply.table_exists"))
        await self.storage.upsert_user(person.id, person.name, person.username)
        async with self._seating:
            if await self.table_in_chat(old.chat_id, old.thread_id) is not None:
                raise UserError(t("reply.table_exists"))
            table = await self._open_lobby(
                old.chat_id, old.thread_id, old.chat_title, person, like=old
            )
        await self._show_new_lobby(table, person)
        return t("toast.rematch")

    async def _free_to_sit(self, user_id: int | None, host: Person) -> bool:
        """Whether a player of the last game can be seated at its rematch now."""
        if user_id is None or user_id == host.id or self.table_of_user(user_id) is not None:
            return False
        return await self.storage.dm_open(user_id)

    async def cancel(self, chat_id: int, thread_id: int | None, person: Person) -> str:
        table = await self.table_in_chat(chat_id, thread_id)
        if table is None:
            raise UserError(t("reply.cancel_nothing"))
        return await self.cancel_game(table.id, person)

    async def cancel_game(self, game_id: int, person: Person) -> str:
        async with self.lock(game_id):
            table = await self._get(game_id)
            if table.status not in ("lobby", "active"):
                raise UserError(t("reply.cancel_nothing"))
            await self._require_host(table, person)
            said = t("game.cancelled", name=render.esc(person.name))
            # The table's message stops showing whose turn it is, and its button.
            text = t("lobby.cancelled") if table.game is None else render.cancelled(table)
            await self._close(table, text, said)
            # A started game's /cancel is answered with one line in the group (the toast of a
            # lobby's button is enough for a lobby).
            return said if table.game is not None else t("toast.cancelled")

    async def _close(
        self,
        table: Table,
        table_text: str | None,
        dm_text: str | None,
        *,
        post_to_lobby: bool = False,
    ) -> None:
        """End a lobby or game that will not finish (cancelled, expired, its group gone):
        stored as cancelled, its message edited to `table_text`, its players' screens to
        `dm_text` (people in a lobby have none: `post_to_lobby` sends it to them), and
        everything kept for it dropped. Under the table's lock."""
        await self.storage.cancel_game(table.id)
        table.status = "cancelled"
        if table_text is not None and table.ui.table_message_id is not None:
            self._edit_table_message(table, table_text, None, priority=MOVED)
        for seat, s in table.humans():
            await self._clear_nudge(table, seat)
            message_id = table.ui.dm_message_ids.get(seat)
            if dm_text is None or s.user_id is None:
                continue
            if message_id is not None:
                self.outbox.edit(s.user_id, message_id, dm_text)
            elif table.game is None and post_to_lobby:
                self.outbox.post(s.user_id, dm_text)
        self._unregister(table)

    async def open_dm(self, person: Person, payload: str) -> str:
        """``/start`` in private: the person can now get DMs; a deep link seats them."""
        await self.storage.upsert_user(person.id, person.name, person.username)
        await self.storage.set_dm_open(person.id, True)
        self.outbox.resume_chat(person.id)  # a person who writes has not blocked the bot
        hook = self.start_hooks.get(payload[:1])
        if hook is not None:
            target = parse_id(payload[1:])
            if target is None:
                return t("reply.bad_link")
            return await hook(person, target)
        if payload.startswith("j"):
            if not JOIN_TOKEN.fullmatch(payload[1:]):
                return t("reply.bad_link")
            return await self._join_from_link(person, payload[1:])
        playing = self.table_of_user(person.id)
        if playing is not None and playing.status == "active":
            return await self._resend_dm(playing, person)
        return t("reply.start_private", name=render.esc(person.name))

    async def _join_from_link(self, person: Person, token: str) -> str:
        """``/start j<token>``: seat a member of the table's group who opened their DM.

        Nothing about the table (not even that it exists) is told to someone who is not a
        member of its group.
        """
        game_id = self._by_token.get(token, 0)
        table = self.tables.get(game_id)
        if table is None or table.status != "lobby":
            playing = self.table_of_user(person.id)
            if playing is not None and playing.status == "active":
                return await self._resend_dm(playing, person)
            return t("reply.dm_link_stale")
        # Someone who pressed Join in the group (pending) has shown they are in it.
        proven = table.seat_of(person.id) is not None or person.id in table.ui.pending
        if not proven and not await self.is_member(table.chat_id, person.id):
            return t("reply.members_only")
        async with self.lock(game_id), self._seating:
            table = self.tables.get(game_id)
            if table is None or table.status != "lobby":
                return t("reply.dm_link_stale")
            table.ui.pending.pop(person.id, None)
            if table.seat_of(person.id) is None:
                if self.table_of_user(person.id) is not None:
                    await self._save_lobby(table)
                    return t("toast.other_table")
                if None not in table.seats:
                    await self._save_lobby(table)
                    return t("toast.table_full")
                table.seats[table.seats.index(None)] = Seat("human", person.name, person.id)
            await self._save_lobby(table)
            return t("reply.seat_taken_after_dm", chat=render.esc(table.chat_title))

    async def _resend_dm(self, table: Table, person: Person) -> str:
        async with self.lock(table.id):
            seat = table.seat_of(person.id)
            if seat is not None:
                table.ui.dm_message_ids.pop(seat, None)
                await self._send_dm(table, seat)
                await self.storage.set_meta(table.id, self._meta(table))
        return t("reply.seat_taken_after_dm", chat=render.esc(table.chat_title))

    # ================================================================ play

    async def _playing(self, game_id: int, stamp: int, person: Person) -> tuple[Table, int, Game]:
        table = self.tables.get(game_id)
        if table is None or table.game is None:
            raise UserError(t("toast.game_over"))
        seat = table.seat_of(person.id)
        if seat is None:
            raise UserError(t("toast.not_your_game"))
        game = table.game
        if table.status != "active" or game.phase == "over":
            raise UserError(t("toast.game_over"))
        if stamp != game.hand_number:
            raise UserError(t("toast.stale"))
        return table, seat, game

    async def press_card(self, game_id: int, stamp: int, code: str, person: Person) -> str:
        async with self.lock(game_id):
            table, seat, game = await self._playing(game_id, stamp, person)
            try:
                card = Card.parse(code)
            except ValueError:
                raise UserError(t("toast.unknown_button")) from None
            if game.phase == "pass":
                return await self._toggle_selection(table, seat, game, card)
            if game.phase == "moon":
                raise UserError(t("dm.moon_waiting", name=table.name(game.current_player or 0)))
            await self._human_move(table, seat, Move.play(seat, card))
            return t("toast.played", card=card.symbol)

    async def _toggle_selection(self, table: Table, seat: int, game: Game, card: Card) -> str:
        if game.has_passed(seat):
            raise UserError(t("toast.passed"))
        if card not in game.hand(seat):
            raise UserError(t("toast.not_in_hand", card=card.symbol))
        chosen = table.ui.selections.setdefault(seat, [])
        if card.code in chosen:
            chosen.remove(card.code)
        elif len(chosen) >= 3:
            raise UserError(t("toast.unselect_first"))
        else:
            chosen.append(card.code)
        self._save_meta_soon(table)
        self._show_dm(table, seat, MOVED)
        return t("toast.selected", count=len(chosen))

    async def press_pass(self, game_id: int, stamp: int, person: Person) -> str:
        async with self.lock(game_id):
            table, seat, game = await self._playing(game_id, stamp, person)
            if game.phase != "pass":
                raise UserError(t("toast.stale"))
            chosen = table.ui.selections.get(seat, [])
            if len(chosen) != 3:
                raise UserError(t("toast.choose_three"))
            await self._human_move(table, seat, Move.pass_cards(seat, chosen))
            return t("toast.passed")

    async def press_moon(self, game_id: int, stamp: int, arg: str, person: Person) -> str:
        async with self.lock(game_id):
            table, seat, _ = await self._playing(game_id, stamp, person)
            choice = {"s": "subtract_from_shooter", "a": "add_to_others"}.get(arg)
            if choice is None:
                raise UserError(t("toast.unknown_button"))
            await self._human_move(table, seat, Move.moon(seat, choice))
            return t("toast.moon_chosen")

    async def toggle_tracker(self, game_id: int, stamp: int, person: Person) -> str:
        async with self.lock(game_id):
            table = self.tables.get(game_id)
            seat = table.seat_of(person.id) if table is not None else None
            if table is None or seat is None or table.game is None:
                raise UserError(t("toast.not_your_game"))
            if not table.options.track_cards:
                raise UserError(t("toast.unknown_button"))
            table.ui.tracker_open[seat] = not table.ui.tracker_open.get(seat, False)
            self._save_meta_soon(table)
            self._show_dm(table, seat, MOVED)
            return ""

    async def rejoin(self, person: Person) -> str:
        table = self.table_of_user(person.id)
        if table is None or table.status != "active":
            raise UserError(t("reply.not_away"))
        async with self.lock(table.id):
            seat = table.seat_of(person.id)
            assert seat is not None
            s = table.seats[seat]
            assert s is not None
            if not s.away:
                raise UserError(t("reply.not_away"))
            s.away = False
            s.timeouts = 0
            table.ui.idle_message_ids.pop(seat, None)
            await self.storage.set_meta(table.id, self._meta(table))
            self._announce(table, t("game.rejoined", name=render.esc(s.name)))
            table.ui.dm_message_ids.pop(seat, None)
            await self._send_dm(table, seat)
            await self.storage.set_meta(table.id, self._meta(table))
            self._schedule(table)
            return t("reply.rejoined")

    async def _human_move(self, table: Table, seat: int, move: Move) -> None:
        s = table.seats[seat]
        assert s is not None
        if s.away:
            raise UserError(t("dm.away"))
        s.timeouts = 0
        table.ui.idle_message_ids.pop(seat, None)  # a next spell of timeouts gets its own
        await self._apply(table, move)

    async def _apply(self, table: Table, move: Move) -> list[Event]:
        """Make a move, durable before it is shown; an illegal one changes nothing."""
        game = table.game
        assert game is not None
        before = game.copy()
        try:
            events = move.apply(game)
        except IllegalMove as error:
            raise UserError(error.message) from None
        if move.kind == "pass":
            table.ui.selections.pop(move.seat, None)
        try:
            self.seq[table.id] = await self.storage.record_move(
                table.id, move, game, self._meta(table)
            )
        except Exception:
            table.game = before  # not stored: as if the move was never made
            raise
        await self._after_move(table, events)
        return events

    async def _after_move(self, table: Table, events: list[Event], started: bool = False) -> None:
        game = table.game
        assert game is not None
        acted = {e.seat for e in events if isinstance(e, CardPlayed | CardsPassed | MoonShot)}
        for event in events:
            if isinstance(event, HandScored):
                result = game.hand_history[event.hand_number - 1]
                self._announce(table, render.hand_result(table, result))
            if isinstance(event, GameOver):
                await self._finish(table)
        for seat in acted:
            await self._clear_nudge(table, seat)
        if started:
            for seat, _ in table.humans():
                self._post_dm(table, seat)
            self._show_table(table)
        else:
            self._show_all(table, moved=acted)
        if game.phase != "over":
            self._schedule(table)
        for listener in self.listeners:
            try:
                await listener(table, events)
            except Exception:
                log.exception("listener failed for game %s", table.id)

    async def _finish(self, table: Table) -> None:
        game = table.game
        assert game is not None
        table.status = "finished"
        self.scheduler.cancel_game(table.id)
        text = t("table.over", winners=render.winners_text(table, game.winners))
        if table.event_id is None:
            # Announced once: the chart with the result as its caption (the table's message
            # shows the final standings and the rematch button).
            try:
                png = render.score_chart_png(table)
            except Exception:
                log.exception("score chart for game %s failed", table.id)
                self._announce(table, text)
            else:
                self.outbox.post(table.chat_id, text, thread_id=table.thread_id, photo=png)
        for seat, _ in table.humans():
            await self._clear_nudge(table, seat)
        self._unregister(table)

    # ================================================================ turns

    def _schedule(self, table: Table, resumed: bool = False) -> None:
        """Arm what comes next: a computer's move, or the turn timer of a person."""
        game = table.game
        if game is None or table.status != "active" or game.phase == "over":
            return
        gid, version = table.id, self.seq.get(table.id, 0)
        self.scheduler.cancel_game(gid)
        waiting = game.waiting_for()
        computers = [s for s in waiting if self._is_computer(table, s)]
        humans = [s for s in waiting if s not in computers]
        if computers:
            delay = 0.0 if game.phase == "pass" else self.config.computer_delay
            self.scheduler.arm(f"computer:{gid}", delay, lambda: self._computer_turn(gid, version))
        if humans:
            self._arm_timer(table, version, resumed)
            for seat in humans:
                if seat not in table.ui.nudge_message_ids:
                    self.scheduler.arm(
                        f"nudge{seat}:{gid}",
                        self.config.nudge_delay,
                        functools.partial(self._nudge, gid, seat, version),
                    )
        elif not resumed:
            table.ui.deadline = None

    def _is_computer(self, table: Table, seat: int) -> bool:
        s = table.seats[seat]
        return s is None or s.is_computer_now

    def _arm_timer(self, table: Table, version: int, resumed: bool) -> None:
        timer = table.options.turn_timer
        if not timer:
            table.ui.deadline = None
            return
        now = time.time()
        if not (resumed and table.ui.deadline):
            table.ui.deadline = now + timer
            table.ui.reminded = False
        remaining = max(1.0, table.ui.deadline - now)
        gid = table.id
        self.scheduler.arm(f"turn:{gid}", remaining, lambda: self._timeout(gid, version))
        if not table.ui.reminded and remaining > timer / 2:
            self.scheduler.arm(
                f"remind:{gid}", remaining - timer / 2, lambda: self._remind(gid, version)
            )

    async def _nudge(self, gid: int, seat: int, version: int) -> None:
        """A short message that it is this person's turn, so their phone tells them.

        Sent a few seconds into the turn (someone playing with the chat open has moved by
        then and gets no buzz), and never under the table's lock: Telegram's limits must
        not hold up the game.
        """
        table = self.tables.get(gid)
        if table is None or table.game is None or self.seq.get(gid) != version:
            return
        s = table.seats[seat]
        if s is None or s.user_id is None or seat in table.ui.nudge_message_ids:
            return
        game = table.game
        key = {"pass": "dm.nudge_pass", "moon": "dm.nudge_moon"}.get(game.phase, "dm.nudge")

        def still_their_turn() -> bool:
            return self.seq.get(gid) == version and seat in game.waiting_for()

        # Under load the message may wait for its turn longer than the person takes to move:
        # then it is not sent at all.
        text = t(key, chat=render.esc(table.chat_title))
        message_id = await self.outbox.send(s.user_id, text, wanted=still_their_turn, priority=POST)
        if message_id is None:
            return
        if not still_their_turn():
            await self.outbox.delete(s.user_id, message_id)  # they moved while it was sent
            return
        table.ui.nudge_message_ids[seat] = message_id

    async def _clear_nudge(self, table: Table, seat: int) -> None:
        """The person moved (or the game ended): their "your turn" and "30 s left" DMs
        are no longer true, so they go."""
        s = table.seats[seat]
        for ids in (table.ui.nudge_message_ids, table.ui.reminder_message_ids):
            message_id = ids.pop(seat, None)
            if message_id is not None and s is not None and s.user_id is not None:
                await self.outbox.delete(s.user_id, message_id)

    async def _remind(self, gid: int, version: int) -> None:
        async with self.lock(gid):
            table = self.tables.get(gid)
            if table is None or table.game is None or self.seq.get(gid) != version:
                return
            table.ui.reminded = True
            seconds = int(table.options.turn_timer / 2)
            for seat in table.game.waiting_for():
                s = table.seats[seat]
                if s is not None and s.user_id is not None and not s.is_computer_now:
                    sent = self.outbox.post(
                        s.user_id,
                        t("dm.reminder", seconds=seconds, chat=render.esc(table.chat_title)),
                    )
                    self._spawn(self._keep_reminder(table, seat, s.user_id, version, sent))

    async def _keep_reminder(
        self,
        table: Table,
        seat: int,
        user_id: int,
        version: int,
        sent: Awaitable[int | None],
    ) -> None:
        """Keep the reminder's id to delete it when the person moves (or at once, if they
        moved while it was on its way)."""
        message_id = await sent
        if message_id is None:
            return
        if self.seq.get(table.id) == version and table.status == "active":
            table.ui.reminder_message_ids[seat] = message_id
            self._save_meta_soon(table)
        else:
            await self.outbox.delete(user_id, message_id)

    async def _timeout(self, gid: int, version: int) -> None:
        """The turn timer ran out: a `standard` computer player moves for each late person."""
        async with self.lock(gid):
            table = self.tables.get(gid)
            if table is None or table.game is None or self.seq.get(gid) != version:
                return
            game = table.game
            for seat in list(game.waiting_for()):
                if self._is_computer(table, seat) or game.phase == "over":
                    continue
                if seat not in game.waiting_for():
                    continue
                s = table.seats[seat]
                assert s is not None
                s.timeouts += 1
                move = await self._decide(table, seat, "standard")
                name = render.esc(s.name)
                if s.timeouts >= self.config.timeouts_before_away:
                    s.away = True
                    self._idle_notice(table, seat, t("game.away", name=name, times=s.timeouts))
                    if s.user_id is not None:
                        self.outbox.post(s.user_id, t("dm.away"))
                else:
                    self._idle_notice(
                        table, seat, t("game.timeout_played", name=name, times=s.timeouts)
                    )
                await self._apply(table, move)

    def _idle_notice(self, table: Table, seat: int, text: str) -> None:
        """One group message per spell of timeouts of a seat, edited as the spell goes on
        (a timeout, another, the computer taking over), instead of one message each."""
        if table.event_id is not None:
            return  # a tournament's group follows the event's status message instead
        ids = table.ui.idle_message_ids
        self._idle_text[(table.id, seat)] = text
        message_id = ids.get(seat)
        if message_id:
            self.outbox.edit(table.chat_id, message_id, text, None, table.thread_id)
            return
        if message_id == 0:
            return  # on its way: it is edited to the newest text when it arrives
        ids[seat] = 0
        sent = self.outbox.post(table.chat_id, text, thread_id=table.thread_id, notify=False)

        async def keep_id() -> None:
            new_id = await sent
            latest = self._idle_text.pop((table.id, seat), text)
            if new_id is None or ids.get(seat) != 0:
                return
            ids[seat] = new_id
            self._save_meta_soon(table)
            if latest != text:
                self.outbox.edit(table.chat_id, new_id, latest, None, table.thread_id)

        self._spawn(keep_id())

    async def _computer_turn(self, gid: int, version: int) -> None:
        async with self.lock(gid):
            table = self.tables.get(gid)
            if table is None or table.game is None or self.seq.get(gid) != version:
                return
            game = table.game
            for seat in list(game.waiting_for()):
                if not self._is_computer(table, seat) or game.phase == "over":
                    continue
                if seat not in game.waiting_for():
                    continue
                s = table.seats[seat]
                level = s.level if s is not None and s.kind == "computer" else "standard"
                move = await self._decide(table, seat, level)
                await self._apply(table, move)
                if game.phase != "pass":
                    break

    async def _decide(self, table: Table, seat: int, level: str) -> Move:
        game = table.game
        assert game is not None
        view = game.view(seat)
        seed = hash((table.id, self.seq.get(table.id, 0), seat)) & 0x7FFFFFFF
        budget = self.config.computer_budget_ms
        if game.phase == "pass":
            cards = await self.thinker.choose_pass(level, seed, view, budget)
            return Move.pass_cards(seat, cards)
        if game.phase == "moon":
            return Move.moon(seat, await self.thinker.choose_moon(level, seed, view, budget))
        return Move.play(seat, await self.thinker.choose_play(level, seed, view, budget))

    # ================================================================ screens

    def _show_all(self, table: Table, moved: Collection[int] = ()) -> None:
        """Bring the table and every DM up to date; `moved`: the seats that just moved."""
        self._show_table(table)
        acting = _must_look_now(table.game) if table.game is not None else set()
        for seat, _ in table.humans():
            priority = URGENT if seat in acting else MOVED if seat in moved else EDIT
            self._show_dm(table, seat, priority)

    def _show_table(self, table: Table) -> None:
        if table.ui.table_message_id is None or table.game is None:
            return
        url = f"https://t.me/{self.config.bot_username}"

        def screen() -> tuple[str, InlineKeyboardMarkup | None]:
            markup = None
            if table.game is not None and table.game.phase != "over":
                button = InlineKeyboardButton(t("button.open_dm"), url=url)
                markup = InlineKeyboardMarkup([[button]])
            elif table.event_id is None:
                # The game is over: the same seats and rules, one press away.
                data = cb.button(cb.REMATCH, table.id)
                button = InlineKeyboardButton(t("button.rematch"), callback_data=data)
                markup = InlineKeyboardMarkup([[button]])
            return render.table_message(table), markup

        self.outbox.edit_later(table.chat_id, table.ui.table_message_id, screen, table.thread_id)

    def _show_dm(self, table: Table, seat: int, priority: int = EDIT) -> None:
        """Bring a player's DM up to date (rendered when sent: the latest state wins)."""
        s = table.seats[seat]
        message_id = table.ui.dm_message_ids.get(seat)
        if s is None or s.user_id is None or message_id is None or table.game is None:
            return
        self.outbox.edit_later(
            s.user_id, message_id, functools.partial(render.dm, table, seat), priority=priority
        )

    def _post_dm(self, table: Table, seat: int) -> None:
        """Send a player's living DM without waiting; its id is kept when it is known."""
        s = table.seats[seat]
        if s is None or s.user_id is None or table.game is None:
            return
        user_id, name = s.user_id, s.name
        text, markup = render.dm(table, seat)
        sent = self.outbox.post(user_id, text, markup, priority=URGENT)

        async def keep_id() -> None:
            message_id = await sent
            if message_id is None:
                await self.storage.set_dm_open(user_id, False)
                await self._ask_to_open_dm(table, Person(user_id, name))
                return
            table.ui.dm_message_ids[seat] = message_id
            self._save_meta_soon(table)
            self._show_dm(table, seat)  # moves made while it was on its way

        self._spawn(keep_id())

    def _save_meta_soon(self, table: Table) -> None:
        """Store a table's screen state (message ids, selections) within a second.

        Such state is not worth a transaction per tap: under load those writes queue up
        behind the moves. Moves store it with them anyway; this catches what comes between.
        """
        if table.id in self._meta_dirty:
            return
        self._meta_dirty.add(table.id)

        async def save() -> None:
            await asyncio.sleep(1.0)
            self._meta_dirty.discard(table.id)
            if table.status in ("lobby", "active"):
                try:
                    await self.storage.set_meta(table.id, self._meta(table))
                except Exception:
                    log.exception("could not store the screen state of game %s", table.id)

        self._spawn(save())

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _send_dm(self, table: Table, seat: int) -> None:
        s = table.seats[seat]
        if s is None or s.user_id is None or table.game is None:
            return
        text, markup = render.dm(table, seat)
        message_id = await self.outbox.send(s.user_id, text, markup)
        if message_id is None:
            await self.storage.set_dm_open(s.user_id, False)
            await self._ask_to_open_dm(table, Person(s.user_id, s.name))
            return
        table.ui.dm_message_ids[seat] = message_id

    def _announce(self, table: Table, text: str) -> None:
        """Post to the group (in order, without waiting for Telegram)."""
        if table.event_id is not None:
            return  # a tournament's group follows the event's status message instead
        self.outbox.post(table.chat_id, text, thread_id=table.thread_id, notify=False)

    async def _message_replaced(self, chat_id: int, old_id: int, new_id: int) -> None:
        ids = set(self._in_chat.get(chat_id, ()))
        if chat_id in self._by_user:
            ids.add(self._by_user[chat_id])
        for table in [self.tables[i] for i in ids if i in self.tables]:
            if table.chat_id == chat_id and table.ui.table_message_id == old_id:
                table.ui.table_message_id = new_id
            for seat, message_id in list(table.ui.dm_message_ids.items()):
                s = table.seats[seat]
                if message_id == old_id and s is not None and s.user_id == chat_id:
                    table.ui.dm_message_ids[seat] = new_id
            self._save_meta_soon(table)

    # ================================================================ information

    async def scores_text(self, chat_id: int, thread_id: int | None) -> str:
        parts = []
        table = await self.table_in_chat(chat_id, thread_id)
        title = "scores.game_title"
        if table is None or table.game is None:
            # Until a new game starts, the last one finished here, hand by hand.
            stored = await self.storage.last_finished_game(chat_id, thread_id)
            if stored is not None and stored.game is not None:
                table = self._table_from_stored(stored)
                title = "scores.last_game_title"
        if table is not None and table.game is not None:
            parts.append(t(title))
            for result in table.game.hand_history:
                parts.append(render.hand_result(table, result).split("\n")[0])
            totals = " · ".join(
                f"{render.esc(table.name(s))} {render.format_total(v)}"
                for s, v in enumerate(table.game.scores)
            )
            parts.append(t("hand.standings", totals=totals))
        else:
            parts.append(t("scores.no_game"))
        parts.append("")
        parts.append(t("scores.board_title"))
        board = await self.storage.standings(chat_id, "points", limit=10)
        if not board:
            parts.append(t("scores.board_empty"))
        for rank, row in enumerate(board, start=1):
            parts.append(
                t(
                    "scores.board_row",
                    rank=rank,
                    name=render.esc(row.display_name),
                    won=row.games_won,
                    played=row.games_played,
                    rate=round(100 * row.win_rate),
                    avg=_average(row.average_per_hand),
                )
            )
        return "\n".join(parts)

    async def stats_text(self, person: Person) -> str:
        record = await self.storage.player_standing(person.id)
        if record is None or record.games_played == 0:
            return t("stats.none")
        lines = [
            t("stats.title"),
            t(
                "stats.body",
                played=record.games_played,
                won=record.games_won,
                rate=round(100 * record.win_rate),
                avg=_average(record.average_per_hand),
                moons=record.moons_shot,
                best=render.format_score(record.best_game) if record.best_game is not None else "—",
                worst=render.format_score(record.worst_game)
                if record.worst_game is not None
                else "—",
            ),
        ]
        return "\n".join(lines)

    async def rules_text(self, chat_id: int, thread_id: int | None) -> str:
        table = await self.table_in_chat(chat_id, thread_id)
        if table is not None:
            return render.rules_text(table.rules) + "\n\n" + render.esc(render.rules_summary(table))
        settings = await self.storage.get_chat_settings(chat_id)
        return render.rules_text(Rules.from_stored(settings.rules))

    async def close(self) -> None:
        await self.scheduler.close()
        for game_id in list(self._meta_dirty):
            table = self.tables.get(game_id)
            if table is not None and table.status in ("lobby", "active"):
                await self.storage.set_meta(game_id, self._meta(table))
        self._meta_dirty.clear()
        for task in list(self._background):
            task.cancel()


def _must_look_now(game: Game) -> set[int]:
    """The seats whose screen changed in a way they must see at once: who must play or
    choose a moon option, and everyone at a new deal. (Another player's pass changes only
    a mark on the others' screens.)"""
    if game.phase == "pass":
        fresh_deal = not any(game.has_passed(s) for s in range(game.players))
        return set(game.waiting_for()) if fresh_deal else set()
    return set(game.waiting_for())


def _average(value: float | complex) -> str:
    if isinstance(value, complex):
        return render.format_score(complex(round(value.real, 1), round(value.imag, 1)))
    return f"{value:.1f}"


def _changed_rules(
    rules: Rules, options: TableOptions, option: str, value: str
) -> tuple[Rules, TableOptions]:
    """Rules and options after one change in the lobby's menu; `ValueError` if impossible."""
    variants: dict[str, tuple[Variant, str | None]] = {
        "standard": ("standard", None),
        "omnibus_jd": ("standard", "JD"),
        "omnibus_td": ("standard", "TD"),
        "complex": ("complex", None),
        "two_player": ("two_player", None),
    }
    if option == "players":
        return rules.with_players(int(value)), options
    if option == "variant":
        if value not in variants:
            raise ValueError(f"unknown variant {value}")
        return rules.with_variant(*variants[value]), options
    data = rules.to_dict()
    opts = options.to_dict()
    if option == "moon":
        data["moon"] = value
    elif option in ("queen", "first"):
        key = "queen_breaks_hearts" if option == "queen" else "no_points_on_first_trick"
        data[key] = value == "on"
    elif option == "target":
        if int(value) not in TARGETS:
            raise ValueError("unknown target")
        data["target"] = int(value)
    elif option == "timer":
        if int(value) not in TIMERS:
            raise ValueError("unknown timer")
        opts["turn_timer"] = int(value)
    elif option == "level":
        if value not in LEVELS:
            raise ValueError("unknown level")
        opts["computer_level"] = value
    elif option == "tracker":
        opts["track_cards"] = value == "on"
    else:
        raise ValueError(f"unknown option {option}")
    data["pass_cycle"] = None
    return Rules.from_dict(data), TableOptions.from_dict(opts)
