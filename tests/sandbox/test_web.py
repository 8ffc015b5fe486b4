"""The sandbox page's JSON API, over the double, without the bot.

A bare python-telegram-bot `Bot` plays the bot's part (sending, editing, answering);
the aiohttp test client plays the page's.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer
from telegram import (
    Bot,
    CopyTextButton,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
)

from sandbox.double import BotApiDouble
from sandbox.people import Group, SandboxUser
from sandbox.web import SandboxWeb

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81"
    b"\x84\x00\x00\x00\x00IEND\xaeB`\x82"
)


@dataclass
class World:
    double: BotApiDouble
    group: Group
    you: SandboxUser
    bob: SandboxUser
    web: SandboxWeb
    client: TestClient  # type: ignore[type-arg]
    bot: Bot

    async def state(self, **query: Any) -> dict[str, Any]:
        response = await self.client.get("/api/state", params={k: str(v) for k, v in query.items()})
        assert response.status == 200
        data: dict[str, Any] = await response.json()
        return data

    async def post(self, path: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
        response = await self.client.post(path, json=body)
        assert response.status == status, await response.text()
        data: dict[str, Any] = await response.json()
        return data


def chat_in(state: dict[str, Any], chat_id: int) -> dict[str, Any]:
    return next(c for c in state["chats"] if c["id"] == chat_id)


@pytest_asyncio.fixture
async def world(bot: Bot, bot_api_double: BotApiDouble) -> AsyncIterator[World]:
    double = bot_api_double
    you = double.create_user("Ana", username="ana")
    bob = double.create_user("Bob", username="bob")
    group = double.create_group("Hearts sandbox", members=[you, bob], creator=you)
    web = SandboxWeb(double, group, [you, bob], port=0, press_timeout=1.0)
    async with TestClient(TestServer(web.make_app())) as client:
        yield World(double, group, you, bob, web, client, bot)


async def test_the_page_is_one_self_contained_html_document(world: World) -> None:
    response = await world.client.get("/")
    assert response.status == 200
    assert response.content_type == "text/html"
    page = await response.text()
    assert page.startswith("<!doctype html>") and "</html>" in page
    for external in ("<script src", "<link", "@import", "url(http", 'src="http'):
        assert external not in page  # no CDN: the sandbox works offline
    assert "/api/state" in page and "/api/press" in page


async def test_state_lists_the_group_and_every_dm(world: World) -> None:
    state = await world.state()
    assert [c["kind"] for c in state["chats"]] == ["group", "dm", "dm"]
    group = chat_in(state, world.group.id)
    assert group["title"] == "Hearts sandbox"
    assert group["members"] == [world.you.id, world.bob.id]
    assert chat_in(state, world.you.dm)["person_id"] == world.you.id
    assert [p["name"] for p in state["people"]] == ["Ana", "Bob"]
    assert state["bot"]["username"] == world.double.bot_username
    assert not chat_in(state, world.bob.dm)["dm_open"]


async def test_messages_carry_entities_buttons_edits_and_photos(world: World) -> None:
    await world.you.start_bot()
    keyboard = InlineKeyboardMarkup(
        [
            [InlineKeyboardButton("Q♠", callback_data="c:1:1:QS")],
            [InlineKeyboardButton("Open", url=f"https://t.me/{world.double.bot_username}")],
        ]
    )
    sent = await world.bot.send_message(
        world.you.dm, "<b>Hand</b> 1 &amp; <i>you</i>", parse_mode="HTML", reply_markup=keyboard
    )
    photo = await world.bot.send_photo(
        world.group.id, PNG, caption="<b>Scores</b>", parse_mode="HTML"
    )
    await world.bot.edit_message_text(
        "<b>Hand</b> 2",
        world.you.dm,
        sent.message_id,
        parse_mode="HTML",
        reply_markup=keyboard,  # an edit without it removes the keyboard, as in Telegram
    )

    state = await world.state()
    dm = chat_in(state, world.you.dm)
    assert dm["dm_open"]
    user_message, bot_message = dm["messages"]
    assert user_message["text"] == "/start" and not user_message["from_bot"]
    assert user_message["entities"] == [{"type": "bot_command", "offset": 0, "length": 6}]
    assert bot_message["text"] == "Hand 2" and bot_message["edited"]
    assert bot_message["entities"] == [{"type": "bold", "offset": 0, "length": 4}]
    none = {"copy_text": None, "inline": None}
    assert bot_message["buttons"] == [
        [{"label": "Q♠", "data": "c:1:1:QS", "url": None, **none}],
        [
            {
                "label": "Open",
                "data": None,
                "url": f"https://t.me/{world.double.bot_username}",
                **none,
            }
        ],
    ]
    (shown,) = chat_in(state, world.group.id)["messages"]
    assert shown["text"] == "Scores" and shown["photo_size"] == [1, 1]
    image = await world.client.get(shown["photo"])
    assert image.status == 200 and image.content_type == "image/png"
    assert await image.read() == PNG
    assert (await world.client.get("/api/photo/1/99")).status == 404

    await world.bot.delete_message(world.group.id, photo.message_id)
    assert chat_in(await world.state(), world.group.id)["messages"] == []


async def test_state_long_polls_until_something_changes(world: World) -> None:
    version = (await world.state())["version"]
    waiting = asyncio.create_task(world.state(since=version, wait=5))
    await asyncio.sleep(0.2)
    assert not waiting.done()
    await world.post(
        "/api/send", {"person_id": world.you.id, "chat_id": world.group.id, "text": "hi"}
    )
    state = await asyncio.wait_for(waiting, 2)
    assert state["version"] > version
    assert chat_in(state, world.group.id)["messages"][-1]["text"] == "hi"
    quiet = await world.state(since=state["version"], wait=0)
    assert quiet["version"] == state["version"]


async def test_send_types_as_the_person_and_the_bot_receives_it(world: World) -> None:
    answer = await world.post(
        "/api/send", {"person_id": world.bob.id, "chat_id": world.group.id, "text": "/newgame"}
    )
    assert answer["ok"] and answer["message_id"] >= 1
    (update,) = await world.bot.get_updates(timeout=0)
    assert update.message is not None and update.message.text == "/newgame"
    assert update.message.from_user is not None and update.message.from_user.id == world.bob.id
    assert update.message.entities[0].type == "bot_command"


async def test_a_persons_app_language_is_offered_and_goes_with_their_next_update(
    world: World,
) -> None:
    state = await world.state()
    codes = [language["code"] for language in state["languages"]]
    assert codes == ["en", "es", "pt-br", "ru", "fa", "hi"]
    assert chat_in(state, world.bob.dm)["language_code"] == "en"
    answer = await world.post("/api/language", {"person_id": world.bob.id, "language_code": "fa"})
    assert answer["ok"]
    assert chat_in(await world.state(), world.bob.dm)["language_code"] == "fa"
    await world.post(
        "/api/send", {"person_id": world.bob.id, "chat_id": world.bob.dm, "text": "/start"}
    )
    (update,) = await world.bot.get_updates(timeout=0)
    assert update.effective_user is not None and update.effective_user.language_code == "fa"
    refused = await world.post(
        "/api/language", {"person_id": world.bob.id, "language_code": "xx"}, status=400
    )
    assert "not one of" in refused["error"]


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"person_id": 1, "chat_id": 1, "text": "x"}, "no person"),
        ({"person_id": "you", "chat_id": "group", "text": "   "}, "type something"),
        ({"person_id": "you", "chat_id": "bob_dm", "text": "hi"}, "cannot write"),
    ],
)
async def test_send_refuses_what_telegram_would_not_allow(
    world: World, body: dict[str, Any], error: str
) -> None:
    names = {
        "you": world.you.id,
        "group": world.group.id,
        "bob_dm": world.bob.dm,
    }
    body = {k: names.get(v, v) if isinstance(v, str) else v for k, v in body.items()}
    answer = await world.post("/api/send", body, status=400)
    assert not answer["ok"] and error in answer["error"]


async def test_press_returns_the_bots_toast(world: World) -> None:
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("✋ Join", callback_data="j:1")]])
    message = await world.bot.send_message(world.group.id, "Lobby", reply_markup=keyboard)
    await world.bot.get_updates(timeout=0)
    body = {
        "person_id": world.bob.id,
        "chat_id": world.group.id,
        "message_id": message.message_id,
        "data": "j:1",
    }
    pressing = asyncio.create_task(world.post("/api/press", body))
    updates = await world.bot.get_updates(offset=-1, timeout=2)
    query = updates[-1].callback_query
    assert query is not None and query.data == "j:1" and query.from_user.id == world.bob.id
    await world.bot.answer_callback_query(query.id, "You're in!")
    answer = await pressing
    assert answer == {"ok": True, "answered": True, "toast": "You're in!", "show_alert": False}


async def test_press_reports_an_unanswered_press_and_a_vanished_button(world: World) -> None:
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("7♥", callback_data="c:1:1:7H")]])
    message = await world.bot.send_message(world.group.id, "Cards", reply_markup=keyboard)
    body = {
        "person_id": world.you.id,
        "chat_id": world.group.id,
        "message_id": message.message_id,
        "data": "c:1:1:7H",
    }
    answer = await world.post("/api/press", body)
    assert answer["ok"] and not answer["answered"]
    gone = await world.post("/api/press", {**body, "data": "c:1:1:8H"}, status=409)
    assert "gone" in gone["error"]


async def test_a_deep_link_starts_the_bot_with_its_payload(world: World) -> None:
    url = f"https://t.me/{world.double.bot_username}?start=j42"
    answer = await world.post("/api/open_link", {"person_id": world.bob.id, "url": url})
    assert answer == {"ok": True, "chat_id": world.bob.dm}
    assert world.bob.has_started_bot
    assert world.double.chat_view(world.bob.dm).texts == ["/start j42"]

    plain = f"https://t.me/{world.double.bot_username}"
    assert await world.post("/api/open_link", {"person_id": world.bob.id, "url": plain}) == {
        "ok": True,
        "chat_id": world.bob.dm,
    }
    assert world.double.chat_view(world.bob.dm).texts == ["/start j42"]  # already open

    other = await world.post(
        "/api/open_link", {"person_id": world.bob.id, "url": "https://example.org/rules"}
    )
    assert other == {"ok": True, "external": "https://example.org/rules"}


async def test_copy_and_inline_buttons_work_as_in_telegram(world: World) -> None:
    """Issue 51, item 13: 📋 Copy commitment (copy_text) and 📣 Share my result
    (switch_inline_query) do in the sandbox what they do in Telegram."""
    keyboard = InlineKeyboardMarkup(
        [
            [InlineKeyboardButton("📋 Copy", copy_text=CopyTextButton("9f3c0a71be42"))],
            [InlineKeyboardButton("📣 Share", switch_inline_query="daily")],
        ]
    )
    world.double.user(world.bob.id).dm_open = True
    await world.bot.send_message(world.bob.dm, "Your result", reply_markup=keyboard)
    await world.bot.get_updates(timeout=0)
    [copy], [share] = chat_in(await world.state(), world.bob.dm)["messages"][-1]["buttons"]
    assert copy["copy_text"] == "9f3c0a71be42" and copy["data"] is None
    assert share["inline"] == "daily" and share["data"] is None

    async def answer_the_query() -> None:
        updates = await world.bot.get_updates(offset=-1, timeout=2)
        query = updates[-1].inline_query
        assert query is not None and query.query == "daily"
        card = InputTextMessageContent("<b>Daily 7</b>: 81 %", parse_mode="HTML")
        reply = InlineKeyboardMarkup([[InlineKeyboardButton("Play", url="https://t.me/b")]])
        article = InlineQueryResultArticle("r1", "My result", card, reply_markup=reply)
        await world.bot.answer_inline_query(query.id, [article])

    answering = asyncio.create_task(answer_the_query())
    offered = await world.post("/api/inline", {"person_id": world.bob.id, "query": "daily"})
    await answering
    assert offered["results"] == [{"id": "r1", "title": "My result", "description": ""}]

    answering = asyncio.create_task(answer_the_query())
    sent = await world.post(
        "/api/inline_send",
        {"person_id": world.bob.id, "chat_id": world.group.id, "query": "daily", "result_id": "r1"},
    )
    await answering
    [message] = chat_in(await world.state(), world.group.id)["messages"]
    assert message["id"] == sent["message_id"] and message["sender_id"] == world.bob.id
    assert message["text"] == "Daily 7: 81 %" and message["entities"]
    assert message["buttons"][0][0]["url"] == "https://t.me/b"


async def test_the_page_answers_the_browsers_icon_request(world: World) -> None:
    response = await world.client.get("/favicon.ico")
    assert response.status == 204


async def test_bad_requests_are_refused_plainly(world: World) -> None:
    response = await world.client.post("/api/send", data=b"not json")
    assert response.status == 400
    response = await world.client.get("/api/state", params={"since": "soon"})
    assert response.status == 400


async def test_the_page_serves_on_a_real_port_and_stops(world: World) -> None:
    page = SandboxWeb(world.double, world.group, [world.you], port=0)
    async with page:
        assert page.url.startswith("http://127.0.0.1:")
    assert page.url
