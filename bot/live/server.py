"""The table page's server: the page itself, and one WebSocket per open page.

``GET <path of WEBAPP_URL>/`` serves the page (`static/`), ``GET …/ws`` its connection.
Nothing is told or done before the connection's first message proves who opened the page:
Telegram's signed ``initData`` (`bot.live.initdata`), checked against the bot's token and
refused when older than ``WEBAPP_AUTH_MAX_AGE``. The page then sees only its person's seat
at the table it names (``?g=`` or the Mini App's ``start_param``), and what it does there
comes as a typed command (`bot.live.commands`) that goes to the table's own entry points,
the ones a DM button's press reaches.

Refusals are logged as one line with the reason and the address, never the data; a
malformed message (not a JSON object, nested too deep, a game that is not a number) closes
its connection with `MALFORMED`, logged the same way.

A connection that has not said who it is holds a place among `MAX_SILENT` (and
`MAX_SILENT_PER_ADDRESS` of one address) for at most `HELLO_TIMEOUT`; a new one that finds
no place takes the oldest silent one's, which is dropped without waiting for a close reply.
A genuine page says hello the moment it connects, so a flood of silent connections only
ever pushes out its own. A connection's address is its peer's, or, when the peer is one of
the trusted proxies (``WEBAPP_TRUSTED_PROXIES``), the right-most address of its
``X-Forwarded-For`` that is not itself a trusted proxy: behind the TLS proxy every page
would otherwise share the proxy's address, and a flood from one place would push out all.

A person's hellos are paced (`HELLOS_PER_SECOND`), and a person who does not sit at the
game a hello names is refused after a cheap seat lookup, before any game is loaded.

Watchers: a person who does not sit at a live table its page names (the group's 🃏 Open
table, ``g<id>``, or 👀 Watch, ``w<id>``: the same answer to both) watches it
(`bot.live.watchers`), if they are a member of its group (`bot.live.membership`: asked of
Telegram on the hello, remembered a while), the table lets the group watch (an event's
organiser may say no), and their address has fewer than `MAX_WATCHING_PER_ADDRESS`
watchers' pages open. A player who opens either link gets their own seat: a player's page
is never a watcher's. A watcher's page presses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from bot.basics import Person, UserError
from bot.config import IPNetwork
from bot.core import accepts, decode
from bot.i18n import ENGLISH, Msg, Tr, msg, translator
from bot.languages import Languages
from bot.live import commands, view
from bot.live.hub import MAX_WATCHING_PER_ADDRESS, LiveHub, Page
from bot.live.initdata import InitDataError, WebAppUser, validate
from bot.live.membership import MEMBER_TTL, Membership
from bot.live.replay import PageReplays
from bot.live.watchers import NOT_A_MEMBER, TOO_MANY, WATCHING_OFF
from bot.screens.parts import PLAIN, say
from bot.tables.model import Table
from bot.tables.registry import TableRegistry
from storage import Journal
from storage.errors import StorageError

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
FILES = {
    "": "table.html",
    "table.js": "table.js",
    "table.css": "table.css",
    "replay.js": "replay.js",
    "replay.css": "replay.css",
}
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}

HELLO_TIMEOUT = 3.0
"""Seconds a new connection has to say who it is (a page says it as soon as it connects)."""
MAX_SILENT = 200
"""Connections at once that have not yet said who they are; a further one takes the place
of the oldest."""
MAX_SILENT_PER_ADDRESS = 16
"""The same, from one address."""
CLOSE_TIMEOUT = 2.0
"""Seconds to wait for a page's reply to our closing the connection."""
MAX_MESSAGE = 8192
PRESSES_PER_SECOND, PRESS_BURST = 8.0, 16
"""A page's presses, paced like a fast tapper; beyond them a press is answered "slow down",
and a page that goes on regardless is closed."""
HELLOS_PER_SECOND, HELLO_BURST = 0.5, 8
"""A person's hellos (pages opened, reconnections): beyond them a hello is refused "slow
down" (`FLOOD`: the page does not reconnect by itself)."""
LOOPBACK: tuple[IPNetwork, ...] = (
    ipaddress.ip_network("127.0.0.0/8"),
    ipaddress.ip_network("::1"),
)

# Close codes the page reads: it reconnects by itself after any other.
REFUSED, ELSEWHERE, FLOOD, MALFORMED = 4401, 4409, 4429, 4400
_GAME_ID = re.compile(r"[1-9][0-9]{0,17}")

NOT_PROVEN = msg("This page could not prove who you are. Open the table again from your DM.")
OPENED_ELSEWHERE = msg("This table is open on another screen.")
NOT_SEATED = msg("You're not sitting at this table.")
GAME_OVER = msg("That game is over.")
TOO_FAST = msg("Slow down a little.")


class Bucket:
    """A token bucket: `take` says whether one more press may go now."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.at = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            self.tokens -= 0.5  # pressing on regardless digs deeper
            return False
        self.tokens -= 1
        return True


class LiveServer:
    """Serves the page at `path` and its connections: given the open pages (`hub`), the
    languages, the live tables, the journal (a seat's lookup, a game that ended) and the
    moves and hints a seat makes, nothing else of the bot."""

    def __init__(
        self,
        token: str,
        path: str,
        max_age: float,
        hub: LiveHub,
        languages: Languages,
        registry: TableRegistry,
        games: Journal,
        moves: decode.SeatMoves,
        coach: decode.SeatHints,
        trusted_proxies: tuple[IPNetwork, ...] = LOOPBACK,
        replays: PageReplays | None = None,
        membership: Membership | None = None,
        event_watching: Callable[[int], Awaitable[bool]] | None = None,
    ) -> None:
        self._token = token
        self.membership = membership
        """Who is a member of a table's group (None: nobody may watch)."""
        self.event_watching = event_watching
        """Whether an event lets the group watch its tables now (``/event watch``); None:
        an event's table is watched as its own options say."""
        self.trusted_proxies = trusted_proxies
        self.path = "/" + path.strip("/")
        self.max_age = max_age
        self.hub = hub
        self.languages = languages
        self.registry = registry
        self.games = games
        self.moves = moves
        self.coach = coach
        self.replays = replays
        """The ▶ Replay of a finished hand (`bot.live.replay`)."""
        self._silent: OrderedDict[int, tuple[web.Request, str]] = OrderedDict()
        """Connections that have not said hello yet, oldest first: by the id of their
        request, the request and its address."""
        self._hellos: OrderedDict[int, Bucket] = OrderedDict()
        """Each person's pace of hellos, the least recent first (dropped once full again)."""
        self._runner: web.AppRunner | None = None
        self._rechecking: asyncio.Task[None] | None = None
        self.port: int | None = None

    def make_app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_MESSAGE)
        base = self.path.rstrip("/")
        app.router.add_get(f"{base}/ws", self.socket)
        app.router.add_get(
            f"{base}/{{name:(table\\.js|table\\.css|replay\\.js|replay\\.css)?}}", self.file
        )
        if base:

            async def slash(_: web.Request) -> web.StreamResponse:
                raise web.HTTPFound(f"{base}/")

            app.router.add_get(base, slash)
        return app

    async def start(self, listen: str, port: int) -> None:
        self._runner = web.AppRunner(self.make_app(), access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, listen, port).start()
        self.port = int(self._runner.addresses[0][1])
        self._rechecking = asyncio.create_task(self._recheck_often(), name="watchers-recheck")
        log.info("table page listening on port %s", self.port)

    async def stop(self) -> None:
        if self._rechecking is not None:
            self._rechecking.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._rechecking
            self._rechecking = None
        await self.hub.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ------------------------------------------------------------------ the page

    async def file(self, request: web.Request) -> web.StreamResponse:
        name = FILES[request.match_info.get("name", "")]
        path = STATIC / name
        host = request.host
        headers = {
            "Cache-Control": "no-cache",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            "Content-Security-Policy": (
                "default-src 'self'; script-src 'self' https://telegram.org; "
                f"connect-src 'self' wss://{host} ws://{host}; img-src 'self' data:; "
                "style-src 'self'; base-uri 'none'; form-action 'none'"
            ),
        }
        return web.Response(
            body=path.read_bytes(),
            content_type=TYPES[path.suffix],
            charset="utf-8",
            headers=headers,
        )

    # ------------------------------------------------------------------ connections

    async def socket(self, request: web.Request) -> web.StreamResponse:
        remote = self.address(request)
        socket = web.WebSocketResponse(
            heartbeat=25.0, max_msg_size=MAX_MESSAGE, timeout=CLOSE_TIMEOUT
        )
        await socket.prepare(request)
        self._make_room(remote)
        key = id(request)
        self._silent[key] = (request, remote)
        try:
            hello = await socket.receive(timeout=HELLO_TIMEOUT)
        except TimeoutError:
            log.info("table page connection from %s dropped: no hello", remote)
            _drop(request)
            return socket
        finally:
            dropped = self._silent.pop(key, None) is None
        if dropped:
            return socket  # its place went to a newer connection (logged there)
        if hello.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
            return socket  # gone before saying anything
        text = hello.data if hello.type == WSMsgType.TEXT else None
        page = await self._welcome(socket, text, remote)
        if page is None:
            return socket
        try:
            await self._serve(socket, page)
        finally:
            self.hub.remove(page)
        return socket

    def address(self, request: web.Request) -> str:
        """Where a connection comes from: its peer, or the client a trusted proxy names."""
        peer = request.remote or "?"
        if not self._trusted(peer):
            return peer
        forwarded = ",".join(request.headers.getall("X-Forwarded-For", []))
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        for hop in reversed(hops):
            if not self._trusted(hop):
                return hop[:64]
        return hops[0][:64] if hops else peer

    def _trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip in network for network in self.trusted_proxies)

    def _hello_paced(self, user_id: int) -> bool:
        """Whether one more hello of this person may go now."""
        now = time.monotonic()
        full = HELLO_BURST / HELLOS_PER_SECOND
        while self._hellos:
            oldest = next(iter(self._hellos.values()))
            if now - oldest.at < full:
                break
            self._hellos.popitem(last=False)
        bucket = self._hellos.pop(user_id, None) or Bucket(HELLOS_PER_SECOND, HELLO_BURST)
        self._hellos[user_id] = bucket
        return bucket.take()

    def silent(self) -> int:
        """Connections that have not said who they are yet."""
        return len(self._silent)

    def _make_room(self, remote: str) -> None:
        """Drop the oldest silent connection of `remote` if it has too many, and the oldest
        of all if there are too many: a new connection always gets a place."""
        mine = [key for key, (_, address) in self._silent.items() if address == remote]
        if len(mine) >= MAX_SILENT_PER_ADDRESS:
            self._drop_silent(mine[0], "too many silent connections from this address")
        if len(self._silent) >= MAX_SILENT:
            self._drop_silent(next(iter(self._silent)), "too many silent connections")

    def _drop_silent(self, key: int, why: str) -> None:
        request, remote = self._silent.pop(key)
        log.info("table page connection from %s dropped: %s", remote, why)
        _drop(request)

    async def _welcome(self, socket: web.WebSocketResponse, hello: Any, remote: str) -> Page | None:
        """Check who opened the page and which table; keep and greet it, or refuse."""
        english = translator(ENGLISH)
        said = _parse(hello)
        if said is None:
            log.warning("table page refused from %s: malformed hello", remote)
            await self._refuse(socket, english, NOT_PROVEN, MALFORMED)
            return None
        try:
            init = said.get("init")
            user = validate(init if isinstance(init, str) else "", self._token, self.max_age)
        except InitDataError as error:
            log.warning("table page refused from %s: initData %s", remote, error)
            await self._refuse(socket, english, NOT_PROVEN, REFUSED)
            return None
        if not self._hello_paced(user.id):
            log.warning("table page refused from %s: user %s says hello too often", remote, user.id)
            await self._refuse(socket, self.languages.person(user.id), TOO_FAST, FLOOD)
            return None
        try:
            game_id = _game_asked(said, user)
        except ValueError:
            log.warning("table page refused from %s: malformed game", remote)
            await self._refuse(socket, english, NOT_PROVEN, MALFORMED)
            return None
        tr = self.languages.person(user.id)
        table = (
            self.registry.get(game_id) if game_id is not None else self.registry.of_user(user.id)
        )
        if (table is None or table.game is None) and game_id is not None:
            if not await _sits_at(self.games, game_id, user.id):
                log.warning(
                    "table page refused from %s: user %s has no seat at game %s",
                    remote,
                    user.id,
                    game_id,
                )
                await self._refuse(socket, tr, NOT_SEATED, REFUSED)
                return None
            table = await _ended_table(self.games, game_id)
        if table is None or table.game is None:
            await self._refuse(socket, tr, GAME_OVER, REFUSED)
            return None
        seat = table.seat_of(user.id)
        if seat is None:
            refusal = await self._may_watch(table, user.id, remote)
            if refusal is not None:
                await self._refuse(socket, tr, *refusal)
                return None
            page = Page(socket, user.id, table, -1, tr, watching=True, address=remote)
        else:
            page = Page(socket, user.id, table, seat, tr)
        oldest = self.hub.add(page)
        if oldest is not None:
            await self._refuse(oldest.socket, oldest.tr, OPENED_ELSEWHERE, ELSEWHERE)
        hello_back = {"t": "hello", "words": view.words(tr), "lang": tr.language, "rtl": tr.rtl}
        await socket.send_str(json.dumps(hello_back, ensure_ascii=False))
        self.hub.push(page, full=True)
        return page

    # ------------------------------------------------------------------ watchers

    async def member_left(self, chat_id: int, user_id: int) -> None:
        """Telegram said the person left the group or was removed (``chat_member``): a
        "no" from now on, and their watchers' pages of its tables close at once."""
        if self.membership is not None:
            self.membership.left(chat_id, user_id)
        for page in self.hub.pages_of(user_id):
            if page.watching and page.table.chat_id == chat_id:
                await self._stop_watching(page, "left the group")

    def member_joined(self, chat_id: int, user_id: int) -> None:
        """Telegram said the person is a member (again): a "yes" from now on."""
        if self.membership is not None:
            self.membership.joined(chat_id, user_id)

    async def recheck(self) -> None:
        """Ask again whether each open watcher's page is still its group's member (the
        answer is remembered `MEMBER_TTL`, so Telegram is asked once a person in that
        while), and close those that are not: where Telegram does not say who leaves (the
        bot is no admin of the group), a removed member stops watching within that."""
        for page in self.hub.watching_pages():
            chat_id = page.table.chat_id
            if self.membership is None or not await self.membership.is_member(
                chat_id, page.user_id
            ):
                await self._stop_watching(page, "no longer a member of the group")

    async def _recheck_often(self) -> None:
        while True:
            await asyncio.sleep(MEMBER_TTL)
            try:
                await self.recheck()
            except Exception:
                log.exception("checking the watchers' membership failed")

    async def _stop_watching(self, page: Page, why: str) -> None:
        log.warning(
            "table page of user %s stops watching game %s: %s", page.user_id, page.table.id, why
        )
        self.hub.remove(page)
        await self._refuse(page.socket, page.tr, NOT_A_MEMBER, REFUSED)

    async def _may_watch(self, table: Table, user_id: int, remote: str) -> tuple[Msg, int] | None:
        """Why this person may not watch the table (and the close code), or None. A daily
        deal's table is never watched, whatever Telegram says of its chat (a DM): its
        frames would be the day's deal, the same for everyone."""
        why = None
        if table.daily is not None:
            why, said, code = "a daily deal is never watched", NOT_SEATED, REFUSED
        elif not await self._watching_allowed(table):
            why, said, code = "watching is off", WATCHING_OFF, REFUSED
        elif self.membership is None or not await self.membership.is_member(table.chat_id, user_id):
            why, said, code = "not a member of the group", NOT_A_MEMBER, REFUSED
        elif self.hub.watching_from(remote) >= MAX_WATCHING_PER_ADDRESS:
            # Counted after the last wait: the caller keeps the page before anything else runs.
            why, said, code = "too many watchers from this address", TOO_MANY, FLOOD
        if why is None:
            return None
        log.warning(
            "table page refused from %s: user %s may not watch game %s: %s",
            remote,
            user_id,
            table.id,
            why,
        )
        return said, code

    async def _watching_allowed(self, table: Table) -> bool:
        """An event's table as its event says now (its organiser may have changed it since
        the table was dealt); any other as its own options say."""
        if table.tournament_id is None or self.event_watching is None:
            return table.options.watching
        return await self.event_watching(table.tournament_id)

    async def _serve(self, socket: web.WebSocketResponse, page: Page) -> None:
        bucket = Bucket(PRESSES_PER_SECOND, PRESS_BURST)
        async for message in socket:
            said = _parse(message.data) if message.type == WSMsgType.TEXT else None
            if said is None:
                log.warning("table page of user %s closed: malformed message", page.user_id)
                await self._refuse(socket, page.tr, NOT_PROVEN, MALFORMED)
                return
            kind = said.get("t")
            if kind == "ping":
                await socket.send_str('{"t":"pong"}')
            elif kind == "state" and bucket.take():
                self.hub.push(page, full=True)  # asked again (after waking up, or a gap)
            elif kind == "press":
                if not bucket.take():
                    if bucket.tokens < -PRESS_BURST:
                        log.warning("table page of user %s closed: too many presses", page.user_id)
                        await self._refuse(socket, page.tr, TOO_FAST, FLOOD)
                        return
                    await self._answer(socket, page, said.get("id"), TOO_FAST)
                    continue
                toast = await self._press(page, said.get("command"))
                await self._answer(socket, page, said.get("id"), toast)
            elif kind == "replay" and self.replays is not None:
                if bucket.take():
                    await self.replays.serve(page, said)
                else:
                    await self._answer(socket, page, said.get("id"), TOO_FAST)

    async def _press(self, page: Page, said: Any) -> Msg:
        """A command from the page, as its person, on the page's own table only."""
        if page.watching:
            return NOT_SEATED  # a watcher presses nothing
        command = decode.from_page(said)
        if isinstance(command, decode.Refused):
            return command.said
        if command.game != page.table.id:
            return decode.FORGED
        try:  # only what that kind of table offers at its stage (issue 50.2)
            accepts.admit(accepts.of_table(page.table), accepts.SEAT_ASKS[type(command)])
        except UserError as error:
            return error.said
        seat = page.table.seats[page.seat]
        name = seat.name if seat is not None else str(page.user_id)
        person = Person(page.user_id, name, on_page=True)
        return await commands.carry_out(command, person, self.moves, self.coach)

    async def _answer(
        self, socket: web.WebSocketResponse, page: Page, press_id: Any, said: Msg
    ) -> None:
        answer = {
            "t": "answer",
            "id": press_id if isinstance(press_id, int) else None,
            "text": say(self.languages.person(page.user_id), said, PLAIN),
        }
        await socket.send_str(json.dumps(answer, ensure_ascii=False))

    @staticmethod
    async def _refuse(socket: Any, tr: Tr, said: Msg, code: int) -> None:
        if socket.closed:
            return
        try:
            await socket.send_str(json.dumps({"t": "refused", "text": say(tr, said, PLAIN)}))
            await socket.close(code=code, message=b"refused")
        except (ConnectionError, RuntimeError):
            pass


async def _sits_at(games: Journal, game_id: int, user_id: int) -> bool:
    """Whether the person has a seat at the stored game: one row by the seats' key, before
    the game itself (its journal replayed) is loaded for them."""
    try:
        return await games.seat_of(game_id, user_id) is not None
    except StorageError:
        return False


async def _ended_table(games: Journal, game_id: int) -> Table | None:
    """A game that finished or was cancelled, as stored: its page shows how it ended (the
    final chart, or that it was cancelled)."""
    try:
        stored = await games.load_game(game_id, verify=False)
    except StorageError:
        return None
    if stored.status not in ("finished", "cancelled") or stored.game is None:
        return None
    return Table.from_stored(stored)


def _parse(text: Any) -> dict[str, Any] | None:
    """A message as the JSON object it must be; None for anything else (not text, not
    JSON, nested deeper than the parser goes, a number too long to read)."""
    if not isinstance(text, str):
        return None
    try:
        said = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return said if isinstance(said, dict) else None


def _drop(request: web.Request) -> None:
    """End a connection that never spoke, without waiting for a close reply."""
    if request.transport is not None:
        request.transport.close()


def _game_asked(said: dict[str, Any], user: WebAppUser) -> int | None:
    """The game the page names: ``?g=`` of the DM's button, or ``g<id>`` (🃏 Open table) or
    ``w<id>`` (👀 Watch) of the group's links (the Mini App's ``start_param``, signed with
    the rest); raises ValueError for a `game` that is neither absent nor a game's number."""
    asked = said.get("game")
    if isinstance(asked, int) and not isinstance(asked, bool) and 0 < asked < 10**18:
        return asked
    if isinstance(asked, str) and _GAME_ID.fullmatch(asked):
        return int(asked)
    if asked not in (None, ""):
        raise ValueError(f"game {str(asked)[:20]!r}")
    # ``g<game>``, ``g<game>r<hand>`` (a hand's replay, which the page opens itself), or
    # ``w<game>`` (a watcher's link).
    game, _, _ = (user.start_param or "").partition("r")
    if game.startswith(("g", "w")) and _GAME_ID.fullmatch(game[1:]):
        return int(game[1:])
    return None
