"""Every Bot API method of the double, called by a real PTB Bot over HTTP."""

import asyncio

import pytest
from telegram import (
    Bot,
    BotCommand,
    ChatMemberAdministrator,
    ChatMemberLeft,
    ChatMemberMember,
    ChatMemberOwner,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    ReplyParameters,
)
from telegram.constants import ChatAction, ParseMode
from telegram.error import BadRequest, Conflict, Forbidden, InvalidToken

from sandbox.double import BotApiDouble
from sandbox.testing import make_bot
from sandbox.views import Button

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x03\x08\x02\x00\x00\x00"
    b"\x00\x00\x00\x00\x00\x00\x00\x00"
)


def keyboard(*labels: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(x, callback_data=x.lower())] for x in labels]
    )


async def test_get_me_describes_the_bot(bot: Bot, bot_api_double: BotApiDouble) -> None:
    me = await bot.get_me()
    assert me.is_bot
    assert me.username == "hearts_test_bot"
    assert me.id == int(bot_api_double.token.split(":")[0])
    assert bot_api_double.call_count("getMe") == 2  # one more from Bot.initialize


async def test_unknown_token_is_invalid(bot_api_double: BotApiDouble) -> None:
    stranger = Bot("1:wrong", base_url=bot_api_double.base_url)
    with pytest.raises(InvalidToken):
        await stranger.get_me()


async def test_private_message_needs_start_first(bot: Bot, bot_api_double: BotApiDouble) -> None:
    alice = bot_api_double.create_user("Alice")
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await bot.send_message(alice.dm, "hello")
    await alice.start_bot()
    sent = await bot.send_message(alice.dm, "hello")
    assert sent.chat.type == "private"
    assert alice.dm_view().bot_messages[-1].text == "hello"


async def test_blocked_bot_is_forbidden(bot: Bot, bot_api_double: BotApiDouble) -> None:
    alice = bot_api_double.create_user("Alice")
    await alice.start_bot()
    alice.block_bot()
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(alice.dm, "hello")


async def test_unknown_chat_is_not_found(bot: Bot) -> None:
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(-100999, "hello")


async def test_kicked_bot_is_forbidden(bot: Bot, bot_api_double: BotApiDouble) -> None:
    group = bot_api_double.create_group("Cards")
    group.remove_bot()
    with pytest.raises(Forbidden, match="bot was kicked from the supergroup chat"):
        await bot.send_message(group.id, "hello")


async def test_message_ids_increase_per_chat(bot: Bot, bot_api_double: BotApiDouble) -> None:
    one = bot_api_double.create_group("One")
    two = bot_api_double.create_group("Two")
    ids = [(await bot.send_message(c.id, "x")).message_id for c in (one, two, one, one)]
    assert ids == [1, 1, 2, 3]


async def test_send_message_with_html_and_keyboard(bot: Bot, bot_api_double: BotApiDouble) -> None:
    group = bot_api_double.create_group("Cards")
    sent = await bot.send_message(
        group.id,
        "<b>Lobby</b> &amp; seats",
        parse_mode=ParseMode.HTML,
        reply_markup=keyboard("Join"),
    )
    assert sent.text == "Lobby & seats"
    assert sent.entities[0].type == "bold"
    assert sent.text_html == "<b>Lobby</b> &amp; seats"
    assert sent.reply_markup is not None
    assert sent.reply_markup.inline_keyboard[0][0].callback_data == "join"
    shown = group.view().last()
    assert shown is not None
    assert shown.buttons == ((Button("Join", "join"),),)
    assert shown.entities == (("bold", 0, 5),)


@pytest.mark.parametrize(
    ("text", "mode", "error"),
    [
        ("<x>hi</x>", ParseMode.HTML, 'Unsupported start tag "x" at byte offset 0'),
        ("<b>hi", ParseMode.HTML, 'Can\'t find end tag corresponding to start tag "b"'),
        ("<b>hi</i>", ParseMode.HTML, 'Unmatched end tag at byte offset 5, expected "</b>"'),
        ("hi</b>", ParseMode.HTML, "Unexpected end tag at byte offset 2"),
        ("1 < 2", ParseMode.HTML, 'Unsupported start tag "" at byte offset 2'),
        ("Version 1.0", ParseMode.MARKDOWN_V2, "Character '.' is reserved"),
        ("*bold", ParseMode.MARKDOWN_V2, "Can't find end of Bold entity at byte offset 0"),
    ],
)
async def test_bad_markup_cannot_be_parsed(
    bot: Bot, bot_api_double: BotApiDouble, text: str, mode: str, error: str
) -> None:
    group = bot_api_double.create_group("Cards")
    with pytest.raises(BadRequest, match="Can't parse entities") as info:
        await bot.send_message(group.id, text, parse_mode=mode)
    # PTB lower-cases all but the first letter; the wire text is Telegram's own.
    assert error.lower() in info.value.message.lower()
    wire = bot_api_double.errors[-1].description
    assert wire.startswith(f"Bad Request: can't parse entities: {error}")


async def test_markdown_v2_entities(bot: Bot, bot_api_double: BotApiDouble) -> None:
    alice = bot_api_double.create_user("Alice")
    await alice.start_bot()
    sent = await bot.send_message(
        alice.dm, r"*Hearts* _broken_ 1\.0 ||spoiler|| `Q♠` [x](https://t.me/a)", "MarkdownV2"
    )
    assert sent.text == "Hearts broken 1.0 spoiler Q♠ x"
    assert [e.type for e in sent.entities] == [
        "bold",
        "italic",
        "spoiler",
        "code",
        "text_link",
    ]


async def test_entity_offsets_count_utf16(bot: Bot, bot_api_double: BotApiDouble) -> None:
    group = bot_api_double.create_group("Cards")
    sent = await bot.send_message(group.id, "🂡 <b>A♠</b>", parse_mode=ParseMode.HTML)
    assert (sent.entities[0].offset, sent.entities[0].length) == (3, 2)
    assert sent.parse_entity(sent.entities[0]) == "A♠"


async def test_empty_and_long_texts(bot: Bot, bot_api_double: BotApiDouble) -> None:
    group = bot_api_double.create_group("Cards")
    with pytest.raises(BadRequest, match="Message text is empty"):
        await bot.send_message(group.id, " ")
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(group.id, "x" * 4097)


async def test_callback_data_over_64_bytes(bot: Bot, bot_api_double: BotApiDouble) -> None:
    group = bot_api_double.create_group("Cards")
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data="j" * 65)]])
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(group.id, "lobby", reply_markup=markup)
    ok = InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data="é" * 32)]])
    await bot.send_message(group.id, "lobby", reply_markup=ok)


async def test_button_without_action_and_bad_url(bot: Bot, bot_api_double: BotApiDouble) -> None:
    group = bot_api_double.create_group("Cards")
    with pytest.raises(BadRequest, match=r"(?i)text buttons are unallowed in the inline keyboard"):
        await bot.send_message(
            group.id,
            "x",
            reply_markup={"inline_keyboard": [[{"text": "plain"}]]},  # type: ignore[arg-type]
        )
    bad_url = InlineKeyboardMarkup([[InlineKeyboardButton("Open", url="ftp://x")]])
    with pytest.raises(BadRequest, match="Button_url_invalid"):
        await bot.send_message(group.id, "x", reply_markup=bad_url)


async def test_edit_text_and_markup(bot: Bot, bot_api_double: BotApiDouble) -> None:
    group = bot_api_double.create_group("Cards")
    sent = await bot.send_message(group.id, "Lobby", reply_markup=keyboard("Join"))
    edited = await bot.edit_message_text(
        "Lobby: Alice", group.id, sent.message_id, reply_markup=keyboard("Join", "Leave")
    )
    assert isinstance(edited, type(sent))
    assert edited.edit_date is not None
    with pytest.raises(BadRequest, match="Message is not modified: specified new message content"):
        await bot.edit_message_text(
            "Lobby: Alice", group.id, sent.message_id, reply_markup=keyboard("Join", "Leave")
        )
    await bot.edit_message_reply_markup(group.id, sent.message_id, reply_markup=keyboard("Start"))
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(
            group.id, sent.message_id, reply_markup=keyboard("Start")
        )
    shown = group.view().message(sent.message_id)
    assert shown is not None
    assert shown.labels == [["Start"]]
    assert shown.edits == 2
    # Telegram drops the keyboard when an edit of the text leaves reply_markup out.
    await bot.edit_message_text("Started", group.id, sent.message_id)
    shown = group.view().message(sent.message_id)
    assert shown is not None
    assert shown.buttons == ()
    kinds = [e.kind for e in bot_api_double.history(group.id)]
    assert kinds == ["sent", "edited", "edited", "edited"]
    first = bot_api_double.history(group.id)[0].message
    assert first is not None
    assert first.text == "Lobby"


async def test_edit_and_delete_missing_messages(bot: Bot, bot_api_double: BotApiDouble) -> None:
    group = bot_api_double.create_group("Cards")
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", group.id, 42)
    sent = await bot.send_message(group.id, "bye")
    assert await bot.delete_message(group.id, sent.message_id)
    assert group.view().messages[0].deleted
    assert group.view().visible == []
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await bot.delete_message(group.id, sent.message_id)
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", group.id, sent.message_id)


async def test_cannot_edit_a_persons_message(bot: Bot, bot_api_double: BotApiDouble) -> None:
    alice = bot_api_double.create_user("Alice")
    group = bot_api_double.create_group("Cards", members=[alice])
    message_id = await alice.send(group, "hi")
    with pytest.raises(BadRequest, match="Message can't be edited"):
        await bot.edit_message_text("x", group.id, message_id)
    with pytest.raises(BadRequest, match="Message can't be deleted"):
        await bot.delete_message(group.id, message_id)


async def test_forum_topics(bot: Bot, bot_api_double: BotApiDouble) -> None:
    alice = bot_api_double.create_user("Alice")
    group = bot_api_double.create_group("Club", members=[alice], forum=True)
    topic = group.create_topic("Hearts", by=alice)
    sent = await bot.send_message(group.id, "table", message_thread_id=topic)
    assert sent.message_thread_id == topic
    assert sent.is_topic_message
    assert sent.chat.is_forum
    assert [m.text for m in group.view().in_thread(topic)] == [None, "table"]
    with pytest.raises(BadRequest, match="Message thread not found"):
        await bot.send_message(group.id, "x", message_thread_id=999)


async def test_reply_parameters(bot: Bot, bot_api_double: BotApiDouble) -> None:
    alice = bot_api_double.create_user("Alice")
    group = bot_api_double.create_group("Cards", members=[alice])
    asked = await alice.send(group, "/join")
    sent = await bot.send_message(group.id, "seated", reply_parameters=ReplyParameters(asked))
    assert sent.reply_to_message is not None
    assert sent.reply_to_message.message_id == asked
    with pytest.raises(BadRequest, match="Message to be replied not found"):
        await bot.send_message(group.id, "x", reply_parameters=ReplyParameters(99))
    lenient = ReplyParameters(99, allow_sending_without_reply=True)
    assert (
        await bot.send_message(group.id, "x", reply_parameters=lenient)
    ).reply_to_message is None


async def test_send_photo_stores_bytes(bot: Bot, bot_api_double: BotApiDouble) -> None:
    group = bot_api_double.create_group("Cards")
    sent = await bot.send_photo(group.id, PNG, caption="<b>Scores</b>", parse_mode="HTML")
    assert sent.photo[-1].width == 2
    assert sent.photo[-1].height == 3
    assert sent.caption == "Scores"
    shown = group.view().last()
    assert shown is not None
    assert shown.photo == PNG
    assert shown.text == "Scores"
    file = await bot.get_file(sent.photo[-1].file_id)
    assert bytes(await file.download_as_bytearray()) == PNG
    with pytest.raises(BadRequest, match="There is no text in the message to edit"):
        await bot.edit_message_text("x", group.id, sent.message_id)
    await bot.edit_message_caption(group.id, sent.message_id, caption="Final scores")
    again = await bot.send_photo(group.id, sent.photo[-1].file_id)
    assert group.view().message(again.message_id) is not None


async def test_chat_members_and_admins(bot: Bot, bot_api_double: BotApiDouble) -> None:
    alice = bot_api_double.create_user("Alice", username="alice")
    bob = bot_api_double.create_user("Bob")
    carol = bot_api_double.create_user("Carol")
    group = bot_api_double.create_group("Cards", members=[bob], admins=[carol], creator=alice)
    assert isinstance(await bot.get_chat_member(group.id, alice.id), ChatMemberOwner)
    assert isinstance(await bot.get_chat_member(group.id, carol.id), ChatMemberAdministrator)
    assert isinstance(await bot.get_chat_member(group.id, bob.id), ChatMemberMember)
    group.remove(bob)
    assert isinstance(await bot.get_chat_member(group.id, bob.id), ChatMemberLeft)
    with pytest.raises(BadRequest, match="User not found"):
        await bot.get_chat_member(group.id, 12345)
    admins = await bot.get_chat_administrators(group.id)
    assert sorted(a.user.first_name for a in admins) == ["Alice", "Carol"]
    with pytest.raises(BadRequest, match="There are no administrators in the private chat"):
        await bot.get_chat_administrators(alice.dm)
    assert await bot.get_chat_member_count(group.id) == 3


async def test_get_chat(bot: Bot, bot_api_double: BotApiDouble) -> None:
    alice = bot_api_double.create_user("Alice", username="alice")
    group = bot_api_double.create_group("Club", forum=True, username="club")
    info = await bot.get_chat(group.id)
    assert (info.type, info.title, info.is_forum) == ("supergroup", "Club", True)
    assert (await bot.get_chat("@club")).id == group.id
    private = await bot.get_chat(alice.dm)
    assert (private.type, private.username) == ("private", "alice")


async def test_commands_webhook_and_chat_action(bot: Bot, bot_api_double: BotApiDouble) -> None:
    group = bot_api_double.create_group("Cards")
    assert await bot.set_my_commands([BotCommand("newgame", "Open a table")])
    assert await bot.get_my_commands() == (BotCommand("newgame", "Open a table"),)
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await bot.set_my_commands([BotCommand("NewGame", "x")])
    assert await bot.send_chat_action(group.id, ChatAction.TYPING)
    assert await bot.set_webhook("https://example.invalid/hook")
    assert (await bot.get_webhook_info()).url == "https://example.invalid/hook"
    with pytest.raises(Conflict, match="can't use getUpdates method while webhook is active"):
        await bot.get_updates()
    assert await bot.delete_webhook()
    assert await bot.get_updates() == ()


async def test_pin_needs_rights(bot: Bot, bot_api_double: BotApiDouble) -> None:
    plain = bot_api_double.create_group("Plain")
    sent = await bot.send_message(plain.id, "table")
    with pytest.raises(BadRequest, match="Not enough rights"):
        await bot.pin_chat_message(plain.id, sent.message_id)
    admin = bot_api_double.create_group("Admin", bot_admin=True)
    sent = await bot.send_message(admin.id, "table")
    assert await bot.pin_chat_message(admin.id, sent.message_id)
    pinned = (await bot.get_chat(admin.id)).pinned_message
    assert pinned is not None
    assert pinned.message_id == sent.message_id


async def test_get_updates_offset_confirms(bot: Bot, bot_api_double: BotApiDouble) -> None:
    alice = bot_api_double.create_user("Alice")
    group = bot_api_double.create_group("Cards", members=[alice])
    await alice.send(group, "/newgame@hearts_test_bot")
    await alice.send(group, "hello")
    first = await bot.get_updates()
    assert [u.message.text for u in first if u.message] == ["/newgame@hearts_test_bot", "hello"]
    assert first[0].message is not None
    assert first[0].message.entities[0].type == "bot_command"
    assert first[0].effective_user is not None
    assert first[0].effective_user.id == alice.id
    again = await bot.get_updates()
    assert [u.update_id for u in again] == [u.update_id for u in first]
    assert await bot.get_updates(offset=first[-1].update_id + 1) == ()
    assert bot_api_double.pending_updates == 0


async def test_get_updates_long_polls(bot: Bot, bot_api_double: BotApiDouble) -> None:
    alice = bot_api_double.create_user("Alice")
    waiting = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    await alice.start_bot("join-7")
    updates = await asyncio.wait_for(waiting, 2)
    assert updates[0].message is not None
    assert updates[0].message.text == "/start join-7"
    assert updates[0].message.chat.type == "private"
    empty = await bot.get_updates(offset=updates[-1].update_id + 1, timeout=0)
    assert empty == ()


async def test_allowed_updates_filter(bot: Bot, bot_api_double: BotApiDouble) -> None:
    alice = bot_api_double.create_user("Alice")
    await alice.start_bot()
    sent = await bot.send_message(alice.dm, "hand", reply_markup=keyboard("Q♠"))
    await alice.press(alice.dm, sent.message_id, "Q♠", wait=False)
    only = await bot.get_updates(allowed_updates=["callback_query"])
    assert [u.callback_query.data for u in only if u.callback_query] == ["q♠"]


async def test_second_poller_conflicts_the_first(bot_api_double: BotApiDouble) -> None:
    async with make_bot(bot_api_double) as one, make_bot(bot_api_double) as two:
        first = asyncio.create_task(one.get_updates(timeout=5))
        await asyncio.sleep(0.05)
        second = asyncio.create_task(two.get_updates(timeout=0))
        with pytest.raises(Conflict, match="terminated by other getUpdates request"):
            await first
        assert await second == ()


async def test_answer_callback_query(bot: Bot, bot_api_double: BotApiDouble) -> None:
    alice = bot_api_double.create_user("Alice")
    group = bot_api_double.create_group("Cards", members=[alice])
    sent = await bot.send_message(group.id, "lobby", reply_markup=keyboard("Join"))
    await alice.press(group, None, "Join", wait=False)
    (update,) = await bot.get_updates()
    query = update.callback_query
    assert query is not None
    assert query.from_user.id == alice.id
    assert query.message is not None
    assert query.message.message_id == sent.message_id
    assert query.data == "join"
    assert await bot.answer_callback_query(query.id, "Seated", show_alert=True)
    (toast,) = bot_api_double.toasts
    assert (toast.text, toast.show_alert, toast.user_id) == ("Seated", True, alice.id)
    with pytest.raises(BadRequest, match="Query is too old and response timeout expired"):
        await bot.answer_callback_query(query.id)
    with pytest.raises(BadRequest, match=r"(?i)query ID is invalid"):
        await bot.answer_callback_query("123")
    assert bot_api_double.unanswered_callbacks() == []
    assert bot_api_double.calls_in_chat(group.id)["answerCallbackQuery"] == 2


async def test_callback_query_expires(bot_api_double: BotApiDouble) -> None:
    now = [0.0]
    async with BotApiDouble(clock=lambda: now[0], callback_timeout=10) as double:
        alice = double.create_user("Alice")
        group = double.create_group("Cards", members=[alice])
        async with make_bot(double) as bot:
            await bot.send_message(group.id, "lobby", reply_markup=keyboard("Join"))
            await alice.press(group, None, "Join", wait=False)
            (update,) = await bot.get_updates()
            assert update.callback_query is not None
            now[0] = 11.0
            with pytest.raises(BadRequest, match="Query is too old"):
                await update.callback_query.answer()


async def test_unknown_method_is_not_found(bot: Bot) -> None:
    from telegram.error import EndPointNotFound

    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("sendNothingAtAll", api_kwargs={"chat_id": 1})


async def test_json_bodies_are_accepted(bot_api_double: BotApiDouble) -> None:
    import httpx

    alice = bot_api_double.create_user("Alice")
    await alice.start_bot()
    url = f"{bot_api_double.base_url}{bot_api_double.token}/sendMessage"
    async with httpx.AsyncClient() as client:
        answer = await client.post(
            url, json={"chat_id": alice.id, "text": "*x*", "parse_mode": "MarkdownV2"}
        )
        assert answer.json()["result"]["entities"] == [{"type": "bold", "offset": 0, "length": 1}]
        bad = await client.post(url, json={"chat_id": 5, "text": "x"})
        assert bad.status_code == 400
        assert bad.json() == {
            "ok": False,
            "error_code": 400,
            "description": "Bad Request: chat not found",
        }
