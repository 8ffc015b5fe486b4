"""A small real PTB Application polling the double, driven by simulated people."""

import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import RetryAfter
from telegram.ext import (
    AIORateLimiter,
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from sandbox.double import BotApiDouble
from sandbox.limits import Limit, RateLimits
from sandbox.people import NotAnswered
from sandbox.testing import application_builder, make_bot, polling, running_double


async def new_game(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Post a lobby with a Join button, in the topic the command came from."""
    message = update.effective_message
    assert message is not None
    keyboard = [[InlineKeyboardButton("Join", callback_data="join:1")]]
    await message.reply_text("Lobby: nobody yet", reply_markup=InlineKeyboardMarkup(keyboard))


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Greet a person opening the DM, echoing the deep-link payload."""
    message = update.effective_message
    assert message is not None
    await message.reply_text(f"Welcome ({' '.join(context.args or []) or 'no payload'})")


async def join(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Seat the presser and edit the lobby in place."""
    query = update.callback_query
    assert query is not None
    await query.answer(f"Seated, {query.from_user.first_name}")
    await query.edit_message_text(
        f"Lobby: {query.from_user.first_name}",
        reply_markup=query.message.reply_markup,  # type: ignore[union-attr]
    )


async def silent(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A handler that forgets to answer."""


async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Echo text."""
    message = update.effective_message
    assert message is not None and message.text is not None
    await message.reply_text(message.text)


@pytest_asyncio.fixture
async def app(bot_api_double: BotApiDouble) -> AsyncIterator[Application]:  # type: ignore[type-arg]
    application = application_builder(bot_api_double).build()
    application.add_handler(CommandHandler("newgame", new_game))
    application.add_handler(CommandHandler("start", start))
    application.add_handler(CallbackQueryHandler(join, pattern="^join:"))
    application.add_handler(CallbackQueryHandler(silent, pattern="^silent$"))
    application.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, echo))
    async with polling(application):
        yield application


async def test_people_drive_a_polling_application(
    bot_api_double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
) -> None:
    alice = bot_api_double.create_user("Alice")
    bob = bot_api_double.create_user("Bob")
    group = bot_api_double.create_group("Friday", members=[alice, bob], admins=[alice])

    await alice.send(group, "/newgame")
    lobby = await bot_api_double.wait_for(lambda: group.view().find("Lobby"))
    assert lobby.reply_to is not None
    assert lobby.labels == [["Join"]]

    assert await bob.press(group, None, "Join") == "Seated, Bob"
    await bot_api_double.wait_for(lambda: group.view().find("Lobby: Bob"))
    await bot_api_double.idle()
    assert bot_api_double.unanswered_callbacks() == []
    assert bot_api_double.calls_in_chat(group.id) == {
        "sendMessage": 1,
        "answerCallbackQuery": 1,
        "editMessageText": 1,
    }

    await alice.start_bot("table-1")
    await bot_api_double.wait_for(lambda: alice.dm_view().find("Welcome (table-1)"))
    await alice.send(alice.dm, "hello")
    await bot_api_double.wait_for(lambda: alice.dm_view().find("hello") and alice.dm_view().last())
    await bot_api_double.idle()
    assert [m.text for m in alice.dm_view().bot_messages] == ["Welcome (table-1)", "hello"]


async def test_pressing_same_state_twice_hits_not_modified(
    bot_api_double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
) -> None:
    alice = bot_api_double.create_user("Alice")
    group = bot_api_double.create_group("Friday", members=[alice])
    await alice.send(group, "/newgame")
    await bot_api_double.wait_for(lambda: group.view().find("Lobby"))
    await alice.press(group, None, "Join")
    await alice.press(group, None, "Join")
    # The handler edits after it answers: wait for the refused edit, not for a quiet moment.
    await bot_api_double.wait_for(lambda: bot_api_double.errors)
    assert bot_api_double.errors[-1].description.startswith("Bad Request: message is not modified")


async def test_forum_topic_reply_stays_in_topic(
    bot_api_double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
) -> None:
    alice = bot_api_double.create_user("Alice")
    group = bot_api_double.create_group("Club", members=[alice], forum=True)
    topic = group.create_topic("Hearts")
    await alice.send(group, "/newgame@hearts_test_bot", thread_id=topic)
    lobby = await bot_api_double.wait_for(lambda: group.view().find("Lobby"))
    assert lobby.thread_id == topic


async def test_unanswered_press_is_reported(
    bot_api_double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
) -> None:
    alice = bot_api_double.create_user("Alice")
    await alice.start_bot()
    await bot_api_double.wait_for(lambda: alice.dm_view().bot_messages)
    async with make_bot(bot_api_double) as bot:
        markup = InlineKeyboardMarkup([[InlineKeyboardButton("Mute", callback_data="silent")]])
        await bot.send_message(alice.dm, "x", reply_markup=markup)
    with pytest.raises(NotAnswered):
        await alice.press(alice.dm, None, "Mute", timeout=0.3)
    assert [c.data for c in bot_api_double.unanswered_callbacks()] == ["silent"]


async def test_press_by_data_and_forged(
    bot_api_double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
) -> None:
    alice = bot_api_double.create_user("Alice")
    group = bot_api_double.create_group("Friday", members=[alice])
    await alice.send(group, "/newgame")
    lobby = await bot_api_double.wait_for(lambda: group.view().find("Lobby"))
    assert await alice.press(group, lobby.message_id, data="join:1") == "Seated, Alice"
    with pytest.raises(LookupError, match="no button 'Leave'"):
        await alice.press(group, None, "Leave")
    with pytest.raises(NotAnswered):
        await alice.press_forged(group, lobby.message_id, "forged", timeout=0.2)


async def test_group_flood_limit_gives_retry_after() -> None:
    limits = RateLimits(group=Limit(per_second=1.0, burst=2), private=None, overall=None)
    async with running_double(limits) as double, make_bot(double) as bot:
        group = double.create_group("Busy")
        await bot.send_message(group.id, "1")
        await bot.send_message(group.id, "2")
        with pytest.raises(RetryAfter) as info:
            await bot.send_message(group.id, "3")
        assert info.value.retry_after in (1, __import__("datetime").timedelta(seconds=1))
        (error,) = double.errors
        assert (error.error_code, error.description) == (429, "Too Many Requests: retry after 1")
        other = double.create_group("Quiet")
        await bot.send_message(other.id, "fine")


async def test_private_and_overall_limits() -> None:
    now = [0.0]
    limits = RateLimits(
        group=None, private=Limit(per_second=1.0, burst=1), overall=Limit(per_second=3, burst=3)
    )
    async with running_double(limits, clock=lambda: now[0]) as double, make_bot(double) as bot:
        people = [double.create_user(name) for name in ("A", "B", "C", "D")]
        for person in people:
            await person.start_bot()
        await bot.send_message(people[0].dm, "1")
        with pytest.raises(RetryAfter):
            await bot.send_message(people[0].dm, "2")
        await bot.send_message(people[1].dm, "1")
        await bot.send_message(people[2].dm, "1")
        with pytest.raises(RetryAfter):
            await bot.send_message(people[3].dm, "1")
        now[0] = 1.0
        await bot.send_message(people[3].dm, "1")
        assert double.error_count(429) == 2


async def test_rate_limiter_waits_out_429() -> None:
    limits = RateLimits(group=Limit(per_second=2.0, burst=2), private=None, overall=None)
    async with running_double(limits) as double:
        group = double.create_group("Busy")
        # AIORateLimiter's own group limit is set loose on purpose so the double's 429 shows.
        limiter = AIORateLimiter(group_max_rate=100, group_time_period=1, max_retries=3)
        application = application_builder(double).rate_limiter(limiter).build()
        async with application:
            started = time.monotonic()
            for n in range(4):
                await application.bot.send_message(group.id, str(n))
            elapsed = time.monotonic() - started
        assert group.view().texts == ["0", "1", "2", "3"]
        assert double.error_count(429) >= 1
        assert elapsed >= 0.9
