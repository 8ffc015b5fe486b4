"""The rooms of the bot, wired in one place: the tables' collaborators, the tournaments
beside them, and the two adapters' entry points, each given what it uses.

`open_rooms` builds everything once storage and the outbox are open (`bot.app` calls it in
the Application's ``post_init``), the effect runner with who carries out each effect
(`effect_handlers`: the one map, never changed after); `wire_handlers` gives each class of
Telegram handlers the entry points it calls, and `Rooms.page_server` the table page's
server the same; no handler sees `Rooms`. `Rooms.resume` shows every stored table again
and re-arms its timers; `Rooms.close` stores what is pending at shutdown.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from bot.computers.coach import Coach
from bot.computers.thinker import Thinker
from bot.config import Settings
from bot.core import effects
from bot.core.commands import Command, Outcome
from bot.core.phases import Phase
from bot.core.runner import Entered, Handler, Runner
from bot.daily.daily import DailyDesk
from bot.language_menu import LanguageMenu
from bot.languages import Languages
from bot.live.hub import LiveHub
from bot.live.membership import Membership
from bot.live.replay import PageReplays
from bot.live.server import LiveServer
from bot.lobby.links import DirectChats
from bot.lobby.lobby import Lobby
from bot.lobby.rules_menu import RulesMenu
from bot.logs import log_fields
from bot.metrics import Metrics, Watched
from bot.replays.replays import Replays
from bot.screens.kept import KeptScreens
from bot.screens.screens import Screens
from bot.standings.rating import Ratings
from bot.standings.standings import Standings
from bot.tables.clock import TimerTrouble, TurnClock
from bot.tables.closing import Closer
from bot.tables.config import AdminCheck, MemberCheck, TablesConfig, random_deal
from bot.tables.desk import TableDesk
from bot.tables.model import Table
from bot.tables.play import Moves
from bot.tables.presence import Presence
from bot.tables.registry import TableRegistry
from bot.telegram.chats import TelegramChats
from bot.telegram.daily_command import DailyCommand
from bot.telegram.display import TelegramDisplay
from bot.telegram.handlers import (
    Buttons,
    Errors,
    EventCommand,
    PeopleCommands,
    Replies,
    TableCommands,
    Targets,
)
from bot.telegram.outbox import Outbox
from bot.telegram.replaying import ReplayChat
from bot.timers import Background, Clock, Scheduler
from bot.tournaments.board import Board
from bot.tournaments.commands import TournamentCommands
from bot.tournaments.entries import Entries, MemberStatus
from bot.tournaments.rounds import Rounds
from bot.tournaments.timeline import Timeline
from domain.games import StoredGame
from storage import Journal, Storage
from storage.errors import StorageError

log = logging.getLogger(__name__)


@dataclass
class Rooms:
    storage: Storage
    outbox: Outbox
    languages: Languages
    language_menu: LanguageMenu
    registry: TableRegistry
    screens: Screens
    moves: Moves
    clock: TurnClock
    lobby: Lobby
    rules_menu: RulesMenu
    presence: Presence
    closer: Closer
    links: DirectChats
    standings: Standings
    ratings: Ratings
    coach: Coach
    board: Board
    """The tournaments' shared part; `entries`, `rounds`, `timeline` and `tournaments`
    (the ``/event`` commands) are theirs."""
    entries: Entries
    rounds: Rounds
    timeline: Timeline
    tournaments: TournamentCommands
    scheduler: Scheduler
    background: Background
    runner: Runner
    """The core's effect runner: every command of a table goes through it."""
    daily: DailyDesk
    """``/daily``: the daily deal's games and boards."""
    live: LiveHub | None = None
    """The open table pages, when the table page is served (``WEBAPP_URL``): told of
    each seat's screen change and, last of a move's effects, of each move."""
    metrics: Metrics | None = None
    """What an operator watches (`bot.metrics`), when measured."""

    def page_server(self, settings: Settings, is_member: MemberCheck) -> LiveServer:
        """The table page's server (``WEBAPP_URL``), given the pages it serves, the live
        tables, the journal for a game that ended, the moves and hints a seat makes, and
        who is a member of a group (a watcher; Telegram asked once in a while)."""
        assert settings.bot_token is not None and settings.webapp_url is not None
        assert self.live is not None  # built with the rooms when ``WEBAPP_URL`` is set
        return LiveServer(
            settings.bot_token,
            urlsplit(settings.webapp_url).path,
            settings.webapp_auth_max_age,
            self.live,
            self.languages,
            self.registry,
            self.storage.games,
            self.moves,
            self.coach,
            settings.webapp_trusted_proxies,
            PageReplays(
                Replays(self.storage.games, self.storage.standings, self.daily.last_closed),
                self.coach,
            ),
            Membership(is_member),
            self.event_watching,
        )

    async def event_watching(self, tournament_id: int) -> bool:
        """Whether an event lets the group watch its tables now (``/event watch``); no
        when storage cannot say."""
        try:
            stored = await self.storage.tournaments.get_tournament(tournament_id)
        except StorageError:
            return False
        return stored is None or stored.options.watching

    async def resume(self) -> None:
        """After a start: load every open game, show it again, re-arm its timers; then the
        tournaments go on where they were."""
        active = await self.storage.games.active_games()
        screens = await self.storage.screens.of_games([stored.id for stored in active])
        for stored in active:
            try:
                self._resume_one(stored, screens.get(stored.id))
            except Exception:  # one bad table never keeps the others (or the bot) down
                log.exception("game %s could not be resumed", stored.id)
                table = self.registry.get(stored.id)
                if table is not None:
                    self.registry.forget(table)
        await self.timeline.resume()
        try:
            await self.daily.close_days()  # a day that closed while the bot was stopped
        except Exception:  # the next /daily or the next close tries again
            log.exception("the daily deal's closed days could not be closed")
        self.daily.arm()

    def _resume_one(self, stored: StoredGame, screens: dict[str, Any] | None) -> None:
        """Resume one stored game, its screens' state (`screens`) as they stored it."""
        if stored.status == "quarantined":
            log.warning("game %s quarantined: %s", stored.id, stored.quarantine_reason)
            tr = self.languages.chat(stored.chat_id)
            text = tr(
                "⚠ This game's saved state could not be read, so it was set aside. Sorry! "
                "Start a new one with /newgame."
            )
            self.outbox.post(stored.chat_id, text, thread_id=stored.thread_id)
            return
        table = Table.from_stored(stored, screens)
        self.registry.add(table, stored.last_seq)
        log.info("resumed game %s in chat %s (%s)", table.id, table.chat_id, table.status)
        if table.phase is Phase.LOBBY:
            age = (datetime.now(UTC) - stored.created_at).total_seconds()
            self.lobby.arm_expiry(table, self.lobby.config.lobby_ttl_s - age)
            self.screens.show_lobby(table)
        else:
            self.screens.show_all(table)
            for seat, _ in table.humans():
                if seat not in table.ui.dm_message_ids:
                    self.screens.post_dm(table, seat)  # it was on its way when the bot stopped
            self.clock.schedule(table, resumed=True)

    async def close(self) -> None:
        """Stop the timers and store the table and screen state not stored yet."""
        await self.scheduler.close()
        await self.board.scheduler.close()
        await self.registry.flush()
        await self.screens.kept.flush()
        self.background.cancel_all()

    def kept_sizes(self) -> dict[str, int]:
        """How much is held per table, chat or person (memory tests)."""
        return {
            **self.registry.kept_sizes(),
            **self.screens.kept.kept_sizes(),
            "timers": len(self.scheduler),
        }


def open_rooms(
    storage: Storage,
    outbox: Outbox,
    thinker: Thinker,
    config: TablesConfig,
    is_admin: AdminCheck,
    is_member: MemberCheck,
    member_status: MemberStatus,
    clock: Clock,
    languages: Languages,
    metrics: Metrics | None = None,
) -> Rooms:
    """Every collaborator, each given what it works with; `metrics` told what it counts
    and given what it reads when scraped."""
    background = Background()
    games, people = storage.games, storage.people
    registry = TableRegistry(games, background)
    display = TelegramDisplay(outbox, config.bot_username, config.webapp_url)
    hub = None
    if config.webapp_url is not None:  # the table page is served
        # A cycle, so called late: the screens push each seat's state to the hub, and the
        # hub, when a seat's last page closes, has the screens show that seat's DM again.
        hub = LiveHub(registry.version, on_last_closed=lambda t, seat: screens.show_dm(t, seat))
    kept = KeptScreens(storage.screens, registry, background)
    screens = Screens(
        registry, display, background, languages, people, kept, hub, config.lean_edits
    )
    # A table's timer that meets a storage error is told to its people.
    trouble = TimerTrouble(registry, screens)
    scheduler = Scheduler(on_trouble=trouble.tell)
    ratings = Ratings(storage.standings)
    entered: list[Entered] = [log_ended]
    if metrics is not None:
        entered.append(metrics.entered)
    # The runner and the collaborators that run commands need each other (a move arms the
    # turn clock, whose timer makes the next move): the map reaches those through `crew`,
    # built below, when an effect first comes.
    handlers = effect_handlers(lambda: crew, registry, games, screens, hub, metrics)
    runner = LoggedRunner(handlers, entered)
    moves = Moves(registry, screens, ratings, runner, games)
    chats = TelegramChats(outbox)
    turns = TurnClock(registry, screens, moves, scheduler, thinker, config, chats, trouble)
    if metrics is not None:
        pacer = outbox.pacer
        metrics.watch(
            Watched(
                tables=registry.__iter__,
                outbox_line=pacer.waiting_by_priority if pacer is not None else dict,
                outbox_pending=outbox.state_sizes,
                thinker_line=thinker.waiting_by_line,
            )
        )
    closer = Closer(registry, screens, turns, is_admin, ratings, games, runner)
    lobby = Lobby(
        registry,
        screens,
        moves,
        closer,
        scheduler,
        config,
        is_admin,
        is_member,
        random_deal,
        games,
        people,
    )
    presence = Presence(registry, screens, lobby, closer, people, runner, chats)
    links = DirectChats(registry, screens, lobby, people, chats)
    desk = TableDesk(registry, moves, lobby, presence, closer, links, games)
    board = Board(
        desk,
        storage.tournaments,
        people,
        games,
        storage.standings,
        chats,
        is_admin,
        clock,
        languages,
        # A cycle, so called late: the tick starts rounds (`Timeline` is built on the board
        # and its `Rounds`), and starting a round or opening a tournament asks the board
        # for a tick at once (`Board.arm_tick`). `timeline` is assigned just below.
        ticker=lambda: timeline.tick(),
    )
    rounds = Rounds(board)
    timeline = Timeline(board, rounds)
    daily_desk = DailyDesk(registry, moves, screens, games, storage.daily, clock, closer, scheduler)
    coach = Coach(registry, screens, moves, thinker, games)
    crew = Crew(moves, turns, closer, lobby, coach, daily_desk, desk)
    entries = Entries(board, member_status, config.bot_username)

    async def redraw(chat_id: int) -> None:
        """A chat's open screens in its new language: tables, and a group's open event."""
        screens.redraw_in_language(chat_id)
        event = await board.open_in(chat_id) if chat_id < 0 else None
        if event is not None:
            tournament_id = event.id

            async def refresh() -> None:
                await board.refresh_message(await board.get(tournament_id))

            await board.send(tournament_id, refresh)

    return Rooms(
        storage=storage,
        outbox=outbox,
        languages=languages,
        language_menu=LanguageMenu(languages, is_admin, redraw),
        registry=registry,
        screens=screens,
        moves=moves,
        clock=turns,
        lobby=lobby,
        rules_menu=RulesMenu(registry, screens, is_admin, people, runner),
        presence=presence,
        closer=closer,
        links=links,
        standings=Standings(registry, games, storage.standings, people),
        ratings=ratings,
        coach=coach,
        board=board,
        entries=entries,
        rounds=rounds,
        timeline=timeline,
        tournaments=TournamentCommands(board, entries, rounds, timeline),
        scheduler=scheduler,
        background=background,
        runner=runner,
        daily=daily_desk,
        live=hub,
        metrics=metrics,
    )


class LoggedRunner(Runner):
    """The core's runner, with what is logged while a command runs naming its table's game
    and chat (`bot.logs.log_fields`): the turn clock's, the lobby's, every effect's."""

    async def run(self, table: Table, command: Command) -> Outcome:
        with log_fields(game_id=table.id, chat_id=table.chat_id):
            return await super().run(table, command)


def log_ended(table: Table, phase: Phase) -> None:
    """A game's end, an event an operator's log collector keeps (with its game and chat)."""
    if not phase.live:
        log.info("game %s %s", table.id, phase.value)


@dataclass(frozen=True)
class Crew:
    """The collaborators that carry out effects and run commands themselves (through the
    runner, which is built before them)."""

    moves: Moves
    turns: TurnClock
    closer: Closer
    lobby: Lobby
    coach: Coach
    daily: DailyDesk
    desk: TableDesk


def effect_handlers(
    crew: Callable[[], Crew],
    registry: TableRegistry,
    games: Journal,
    screens: Screens,
    hub: LiveHub | None,
    metrics: Metrics | None = None,
) -> dict[type, Handler]:
    """Who carries out each effect of the core, every kind once (the order they run in is
    the core's own, `bot.core.effects.ORDER`); a move's commit timed for `metrics`.
    `crew`: the collaborators built after the runner, reached when an effect comes."""

    async def create_lobby(table: Table, effect: effects.CreateLobby) -> None:
        await crew().lobby.store_new(table, effect)

    async def store_lobby(table: Table, _: effects.StoreLobby) -> None:
        await games.update_lobby(table.id, table.rules, table.stored_seats(), table.stored_meta())
        registry.reseat(table)  # who sits where now (fewer seats may have left someone out)

    async def store_deal(table: Table, effect: effects.StoreDeal) -> None:
        await crew().moves.store_deal(table, effect)

    async def store_move(table: Table, effect: effects.StoreMove) -> None:
        began = time.monotonic()
        await crew().moves.store_move(table, effect)
        if metrics is not None:
            metrics.stored(table, effect, time.monotonic() - began)

    async def store_cancel(table: Table, effect: effects.StoreCancel) -> None:
        await crew().closer.store_cancel(table, effect)

    async def store_table(table: Table, _: effects.StoreTable) -> None:
        await registry.save(table)

    async def save_now(table: Table, effect: effects.SaveNow) -> None:
        await crew().coach.save_now(table, effect)

    async def announce_hand(table: Table, effect: effects.AnnounceHand) -> None:
        await crew().moves.announce_hand(table, effect)
        await crew().daily.hand_scored(table, effect)

    async def finish_game(table: Table, effect: effects.FinishGame) -> None:
        await crew().moves.finish(table, effect)
        await crew().daily.finished(table, effect)

    async def tell_group(table: Table, effect: effects.TellGroup) -> None:
        screens.announce(table, effect.said)

    async def clear_nudges(table: Table, effect: effects.ClearNudges) -> None:
        await screens.clear_nudges(table, effect.seat)

    async def show_lobby(table: Table, _: effects.ShowLobby) -> None:
        screens.show_lobby(table)

    async def show_deal(table: Table, _: effects.ShowDeal) -> None:
        for seat, _person in table.humans():
            screens.post_dm(table, seat)
        screens.show_table(table)

    async def show_all(table: Table, effect: effects.ShowAll) -> None:
        screens.show_all(table, moved=effect.moved)

    async def show_seat(table: Table, effect: effects.ShowSeat) -> None:
        screens.show_dm(table, effect.seat, effect.urgency)

    async def show_end(table: Table, effect: effects.ShowEnd) -> None:
        await crew().closer.show_end(table, effect)

    async def resend(table: Table, effect: effects.ResendScreen) -> None:
        await screens.send_dm_again(table, effect.seat)
        await screens.kept.save(table)

    async def save_soon(table: Table, _: effects.SaveSoon) -> None:
        screens.kept.save_soon(table)

    async def ask_coach(table: Table, effect: effects.AskCoach) -> object:
        return await crew().coach.ask(table, effect)

    async def ask_for_review(table: Table, effect: effects.AskForReview) -> object:
        return await crew().coach.start_review(table, effect)

    async def forget(table: Table, effect: effects.Forget) -> None:
        await crew().closer.forget(table, effect)

    async def arm_next(table: Table, effect: effects.ArmNext) -> None:
        await crew().turns.arm_next(table, effect)

    async def tell_tournament(table: Table, effect: effects.TellTournament) -> None:
        await crew().desk.told(table, effect)

    async def push_pages(table: Table, effect: effects.PushPages) -> None:
        if hub is not None:
            await hub.on_move(table, list(effect.events))

    return {
        effects.CreateLobby: create_lobby,
        effects.StoreLobby: store_lobby,
        effects.StoreDeal: store_deal,
        effects.StoreMove: store_move,
        effects.StoreCancel: store_cancel,
        effects.StoreTable: store_table,
        effects.SaveNow: save_now,
        effects.AnnounceHand: announce_hand,
        effects.FinishGame: finish_game,
        effects.TellGroup: tell_group,
        effects.ClearNudges: clear_nudges,
        effects.ShowLobby: show_lobby,
        effects.ShowDeal: show_deal,
        effects.ShowAll: show_all,
        effects.ShowSeat: show_seat,
        effects.ShowEnd: show_end,
        effects.ResendScreen: resend,
        effects.SaveSoon: save_soon,
        effects.AskCoach: ask_coach,
        effects.AskForReview: ask_for_review,
        effects.Forget: forget,
        effects.ArmNext: arm_next,
        effects.TellTournament: tell_tournament,
        effects.PushPages: push_pages,
    }


@dataclass(frozen=True)
class Handlers:
    """The Telegram handlers, by subject, each given only what it calls (`bot.app`
    registers their methods with the Application)."""

    tables: TableCommands
    people: PeopleCommands
    events: EventCommand
    daily: DailyCommand
    buttons: Buttons
    errors: Errors
    replays: ReplayChat


def wire_handlers(rooms: Rooms) -> Handlers:
    """Each class of handlers, given the entry points it calls and what it answers with."""
    replies = Replies(rooms.outbox, rooms.languages)
    replays = ReplayChat(
        replies,
        Replays(rooms.storage.games, rooms.storage.standings, rooms.daily.last_closed),
        rooms.languages,
        rooms.outbox,
        rooms.lobby.config.bot_username,
        rooms.lobby.config.webapp_url,
    )
    targets = Targets(
        lobby=rooms.lobby,
        presence=rooms.presence,
        rules_menu=rooms.rules_menu,
        closer=rooms.closer,
        moves=rooms.moves,
        coach=rooms.coach,
        entries=rooms.entries,
        language_menu=rooms.language_menu,
        outbox=rooms.outbox,
        replays=replays,
        daily=rooms.daily,
    )
    return Handlers(
        tables=TableCommands(
            replies,
            rooms.registry,
            rooms.lobby,
            rooms.presence,
            rooms.closer,
            rooms.links,
            rooms.outbox,
        ),
        people=PeopleCommands(
            replies,
            rooms.languages,
            rooms.standings,
            rooms.ratings,
            rooms.tournaments.scores_text,
            rooms.language_menu,
            rooms.outbox,
            replays.scores_button,
        ),
        events=EventCommand(replies, rooms.tournaments),
        daily=DailyCommand(replies, rooms.daily),
        buttons=Buttons(
            targets,
            rooms.registry,
            rooms.languages,
            rooms.outbox,
            rooms.storage.ledger,
            rooms.storage.games,
            rooms.metrics.toasted if rooms.metrics is not None else None,
        ),
        errors=Errors(rooms.languages, rooms.metrics.failed if rooms.metrics is not None else None),
        replays=replays,
    )
