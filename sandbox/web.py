"""The sandbox web page: a pretend Telegram in the browser, over the Bot API double.

`SandboxWeb` serves one HTML page (`sandbox.web_page`) and a small JSON API on top of the
double's state and its simulated people. It knows nothing about the bot: whatever talks to
the double (the real bot, in `bot.sandbox_runner`) shows up here.

    GET  /                      the page
    GET  /api/state?since=V     the world (chats, messages, buttons); with `since`, waits
                                (long poll, up to `wait` seconds) until the version passes V
    GET  /api/photo/{chat}/{id} a photo message's image
    POST /api/send              {"person_id", "chat_id", "text"}: type a message as a person
    POST /api/press             {"person_id", "chat_id", "message_id", "data"}: press a
                                button; answers with the bot's toast
    POST /api/inline            {"person_id", "query"}: the bot's inline results for
                                ``@bot query`` (a switch_inline_query button)
    POST /api/inline_send       {"person_id", "chat_id", "query", "result_id"}: send one
    POST /api/open_link         {"person_id", "url"}: open a URL button; a t.me/<bot> link
                                (with ?start=<payload>) starts the bot in that person's DM
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qs, urlsplit

from aiohttp import web

from sandbox import webapp
from sandbox.double import BotApiDouble
from sandbox.markup import utf16_len
from sandbox.people import Group, NotAnswered, SandboxUser
from sandbox.records import StoredMessage
from sandbox.web_page import PAGE_HTML

Json = dict[str, Any]

APP_LANGUAGES = (
    ("en", "English"),
    ("es", "Español"),
    ("pt-br", "Português (Brasil)"),
    ("ru", "Русский"),
    ("fa", "فارسی"),
    ("hi", "हिन्दी"),
)
"""The languages a person's Telegram app can speak on the page (Telegram's codes): the bot
follows a person's app language in their DM, until they choose one with /language."""

MAX_MESSAGES_PER_CHAT = 300
"""Older messages are left out of the state (the page is for playing, not archiving)."""
MAX_WAIT = 25.0


class SandboxWeb:
    """The web page and its JSON API for one group and the people who play in it.

    Use as `async with SandboxWeb(double, group, people, port=0) as page:`; `page.url` is
    then the address to open. `make_app()` gives the bare aiohttp application (for tests).
    """

    def __init__(
        self,
        double: BotApiDouble,
        group: Group,
        people: Sequence[SandboxUser],
        *,
        host: str = "127.0.0.1",
        port: int = 8080,
        press_timeout: float = 10.0,
        webapp_url: str | None = None,
    ) -> None:
        """`webapp_url`: the bot's table page, opened as Telegram would open its Mini App
        (with ``initData`` signed by the double's token)."""
        self.double = double
        self.webapp_url = webapp_url
        self.group = group
        self.people = list(people)
        self.press_timeout = press_timeout
        self._host = host
        self._port = port
        self._runner: web.AppRunner | None = None
        self._closing = False
        self.url = ""

    # ----------------------------------------------------------------- lifecycle

    def make_app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/", self._page)
        # Browsers ask for an icon on every load: answered, not a 404 in the console.
        app.router.add_get("/favicon.ico", self._no_icon)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/photo/{chat_id}/{message_id}", self._photo)
        app.router.add_post("/api/send", self._send)
        app.router.add_post("/api/press", self._press)
        app.router.add_post("/api/open_link", self._open_link)
        app.router.add_post("/api/inline", self._inline)
        app.router.add_post("/api/inline_send", self._inline_send)
        app.router.add_post("/api/language", self._language)
        app.on_shutdown.append(self._on_shutdown)
        return app

    async def start(self) -> None:
        """Listen on host:port (0: a free port) and set `url`; OSError if the port is taken."""
        self._closing = False
        self._runner = web.AppRunner(self.make_app(), access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        try:
            await site.start()
        except OSError:
            await self._runner.cleanup()
            self._runner = None
            raise
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}/"

    async def stop(self) -> None:
        """Stop serving; open long polls return at once."""
        self._closing = True
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> SandboxWeb:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _on_shutdown(self, app: web.Application) -> None:
        self._closing = True

    # ----------------------------------------------------------------- the world as JSON

    def version(self) -> int:
        """Grows whenever anything a person could see changes (every double event)."""
        events = self.double.events
        return events[-1].seq if events else 0

    def person(self, person_id: Any) -> SandboxUser:
        """One of this page's people; LookupError for anyone else."""
        for person in self.people:
            if str(person.id) == str(person_id):
                return person
        raise LookupError(f"no person {person_id!r} in the sandbox")

    def state(self) -> Json:
        """Everything the page shows: the group, each person's DM, their messages."""
        double = self.double
        group_chat = double.chat(self.group.id)
        chats: list[Json] = [
            {
                "id": self.group.id,
                "kind": "group",
                "title": group_chat.title or "",
                "person_id": None,
                "members": [p.id for p in self.people if p.id in group_chat.members],
                "messages": self._messages(self.group.id),
            }
        ]
        for person in self.people:
            chats.append(
                {
                    "id": person.dm,
                    "kind": "dm",
                    "title": person.name,
                    "person_id": person.id,
                    "dm_open": person.has_started_bot,
                    "language_code": double.user(person.id).language_code or "en",
                    "messages": self._messages(person.dm),
                }
            )
        return {
            "version": self.version(),
            "bot": {"name": double.bot.first_name, "username": double.bot_username},
            "people": [
                {"id": p.id, "name": p.name, "dm_open": p.has_started_bot} for p in self.people
            ],
            "languages": [{"code": code, "name": name} for code, name in APP_LANGUAGES],
            "chats": chats,
        }

    def _messages(self, chat_id: int) -> list[Json]:
        shown: list[Json] = []
        for view in self.double.chat_view(chat_id).visible[-MAX_MESSAGES_PER_CHAT:]:
            stored = self.double.stored_message(chat_id, view.message_id)
            if stored is not None:
                shown.append(self._message(stored))
        return shown

    def _message(self, message: StoredMessage) -> Json:
        is_photo = message.photo_file_id is not None
        text = (message.caption if is_photo else message.text) or ""
        entities = message.caption_entities if is_photo else message.entities
        if message.from_bot:
            sender = self.double.bot.first_name
        else:
            user = self.double.users.get(message.sender_id)
            sender = user.first_name if user else str(message.sender_id)
        rows = ((message.reply_markup or {}).get("inline_keyboard")) or []
        return {
            "id": message.message_id,
            "from_bot": message.from_bot,
            "sender_id": message.sender_id,
            "sender": sender,
            "text": text,
            "entities": [_entity(e) for e in entities],
            "buttons": [
                [
                    {
                        "label": str(b.get("text", "")),
                        "data": b.get("callback_data"),
                        "url": b.get("url") or self._web_app(message.chat_id, b.get("web_app")),
                        "copy_text": (b.get("copy_text") or {}).get("text"),
                        "inline": b.get("switch_inline_query"),
                    }
                    for b in row
                ]
                for row in rows
            ],
            "photo": (
                f"/api/photo/{message.chat_id}/{message.message_id}?v={message.photo_file_id}"
                if is_photo
                else None
            ),
            "photo_size": list(message.photo_size) if is_photo else None,
            "edited": message.edits > 0,
            "date": message.date,
            "reply_to": message.reply_to,
            "service": _service_text(message.service),
        }

    def _web_app(self, chat_id: int, web_app: Any) -> str | None:
        """A DM's ``web_app`` button as the address its person's client would open."""
        if not isinstance(web_app, dict) or chat_id not in self.double.users:
            return None
        return self.open_page(chat_id, str(web_app.get("url", "")))

    def open_page(self, user_id: int, url: str, start_param: str | None = None) -> str:
        """`url` opened as a Mini App by the user: signed ``initData`` after ``#``."""
        user = self.double.user(user_id)
        data = webapp.init_data(
            self.double.token,
            {
                "id": user.id,
                "first_name": user.first_name,
                "username": user.username,
                "language_code": user.language_code or "en",
            },
            start_param=start_param,
        )
        return webapp.page_address(url, data)

    # ----------------------------------------------------------------- handlers

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(
            text=PAGE_HTML,
            content_type="text/html",
            charset="utf-8",
            headers={"Cache-Control": "no-store"},
        )

    async def _state(self, request: web.Request) -> web.Response:
        since = _query_int(request, "since")
        asked = _query_int(request, "wait")
        wait = min(float(20 if asked is None else max(asked, 0)), MAX_WAIT)
        if since is not None and self.version() <= since and not self._closing:
            with contextlib.suppress(TimeoutError):
                await self.double.wait_for(
                    lambda: self.version() > since or self._closing, timeout=wait, exact=True
                )
        return web.json_response(self.state(), headers={"Cache-Control": "no-store"})

    async def _photo(self, request: web.Request) -> web.Response:
        try:
            chat_id = int(request.match_info["chat_id"])
            message_id = int(request.match_info["message_id"])
        except ValueError as exc:
            raise web.HTTPNotFound() from exc
        message = self.double.stored_message(chat_id, message_id)
        if message is None or not message.photo:
            raise web.HTTPNotFound()
        content_type = "image/png" if message.photo.startswith(b"\x89PNG") else "image/jpeg"
        return web.Response(
            body=message.photo,
            content_type=content_type,
            headers={"Cache-Control": "max-age=3600"},
        )

    async def _send(self, request: web.Request) -> web.Response:
        body = await _body(request)
        try:
            person = self.person(body.get("person_id"))
            chat_id = int(body.get("chat_id", ""))
        except (LookupError, ValueError) as exc:
            return _error(400, str(exc))
        text = str(body.get("text") or "").strip()
        if not text:
            return _error(400, "type something first")
        if utf16_len(text) > 4096:
            return _error(400, "a message can have at most 4096 characters")
        if chat_id not in (self.group.id, person.dm):
            return _error(400, f"{person.name} cannot write in chat {chat_id}")
        try:
            message_id = await person.send(chat_id, text)
        except (LookupError, ValueError) as exc:
            return _error(400, str(exc))
        return web.json_response({"ok": True, "message_id": message_id})

    async def _language(self, request: web.Request) -> web.Response:
        """A person's Telegram app speaks another language from now on (their updates say it)."""
        body = await _body(request)
        try:
            person = self.person(body.get("person_id"))
        except LookupError as exc:
            return _error(400, str(exc))
        code = str(body.get("language_code") or "")
        if code not in dict(APP_LANGUAGES):
            return _error(400, f"not one of the page's languages: {code!r}")
        self.double.user(person.id).language_code = code
        return web.json_response({"ok": True})

    async def _press(self, request: web.Request) -> web.Response:
        body = await _body(request)
        try:
            person = self.person(body.get("person_id"))
            chat_id = int(body.get("chat_id", ""))
            message_id = int(body.get("message_id", ""))
        except (LookupError, ValueError) as exc:
            return _error(400, str(exc))
        data = body.get("data")
        if not isinstance(data, str) or not data:
            return _error(400, "which button? give its callback data")
        if chat_id not in (self.group.id, person.dm):
            return _error(400, f"{person.name} cannot press buttons in chat {chat_id}")
        try:
            toast = await person.press(chat_id, message_id, data=data, timeout=self.press_timeout)
        except NotAnswered:
            return web.json_response(
                {"ok": True, "answered": False, "toast": None, "show_alert": False}
            )
        except LookupError:
            return _error(409, "That button is gone: the message has changed.")
        except ValueError as exc:
            return _error(400, str(exc))
        answers = [
            t for t in self.double.toasts_for(person.id, chat_id) if t.message_id == message_id
        ]
        alert = bool(answers) and answers[-1].show_alert
        return web.json_response(
            {"ok": True, "answered": True, "toast": toast, "show_alert": alert}
        )

    async def _no_icon(self, request: web.Request) -> web.Response:
        return web.Response(status=204)

    async def _inline(self, request: web.Request) -> web.Response:
        """``@bot query`` typed by a person: what the bot offers, as the picker lists it."""
        body = await _body(request)
        try:
            person = self.person(body.get("person_id"))
            results = await person.inline_query(
                str(body.get("query") or ""), timeout=self.press_timeout
            )
        except LookupError as exc:
            return _error(400, str(exc))
        except TimeoutError:
            return _error(504, "The bot did not answer the inline query in time.")
        offered = [
            {
                "id": str(r.get("id")),
                "title": str(r.get("title") or ""),
                "description": str(r.get("description") or ""),
            }
            for r in results
        ]
        return web.json_response({"ok": True, "results": offered})

    async def _inline_send(self, request: web.Request) -> web.Response:
        body = await _body(request)
        try:
            person = self.person(body.get("person_id"))
            chat_id = int(body.get("chat_id", ""))
            message_id = await person.send_inline_result(
                chat_id,
                str(body.get("query") or ""),
                str(body.get("result_id") or ""),
                timeout=self.press_timeout,
            )
        except (LookupError, ValueError) as exc:
            return _error(400, str(exc))
        except TimeoutError:
            return _error(504, "The bot did not answer the inline query in time.")
        return web.json_response({"ok": True, "message_id": message_id})

    async def _open_link(self, request: web.Request) -> web.Response:
        body = await _body(request)
        try:
            person = self.person(body.get("person_id"))
        except LookupError as exc:
            return _error(400, str(exc))
        url = str(body.get("url") or "")
        start_app = self.start_app(url)
        if start_app is not None and self.webapp_url is not None:
            # t.me/<bot>?startapp=…: the bot's main Mini App, at what the link names.
            page = self.open_page(person.id, self.webapp_url, start_app or None)
            return web.json_response({"ok": True, "external": page})
        payload = self.start_payload(url)
        if payload is None:
            return web.json_response({"ok": True, "external": url})
        if payload or not person.has_started_bot:
            await person.start_bot(payload or None)
        return web.json_response({"ok": True, "chat_id": person.dm})

    def start_app(self, url: str) -> str | None:
        """For a link to the bot's main Mini App (t.me/<bot>?startapp=…): its parameter."""
        if self.start_payload(url) is None:
            return None
        return parse_qs(urlsplit(url).query, keep_blank_values=True).get("startapp", [None])[0]

    def start_payload(self, url: str) -> str | None:
        """For a link to the bot (t.me/<bot>, ?start=<payload>): the payload ("" for none).

        None when the URL leads anywhere else.
        """
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or parts.netloc.lower() not in (
            "t.me",
            "telegram.me",
        ):
            return None
        if parts.path.strip("/").lower() != self.double.bot_username.lower():
            return None
        return parse_qs(parts.query).get("start", [""])[0]


def _entity(entity: Json) -> Json:
    shown: Json = {
        "type": entity.get("type"),
        "offset": entity.get("offset", 0),
        "length": entity.get("length", 0),
    }
    for key in ("url", "language"):
        if key in entity:
            shown[key] = entity[key]
    return shown


def _service_text(service: Json | None) -> str | None:
    if not service:
        return None
    topic = service.get("forum_topic_created")
    if isinstance(topic, dict):
        return f"Topic “{topic.get('name', '')}” created"
    return next(iter(service), "service message").replace("_", " ")


def _query_int(request: web.Request, key: str) -> int | None:
    raw = request.query.get(key)
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError as exc:
        raise web.HTTPBadRequest(text=f"{key} must be a whole number") from exc


async def _body(request: web.Request) -> Json:
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise web.HTTPBadRequest(text="send a JSON object") from exc
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="send a JSON object")
    return body


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"ok": False, "error": message}, status=status)
