"""The bot's Bot API client (`bot.telegram.request.AiohttpRequest`) against a real HTTP
server on 127.0.0.1: what PTB's own client did, it does (bodies, files, statuses, the
errors PTB expects for each way a request can fail)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from aiohttp import BodyPartReader, web
from telegram import Bot, InputFile
from telegram.error import NetworkError, RetryAfter, TimedOut
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter

from bot.sandbox_runner import free_port
from bot.telegram.request import POOL_FULL, AiohttpRequest


class Server:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str, dict[str, str], dict[str, bytes]]] = []
        self.delay = 0.0
        self.status = 200
        self.port = 0

    async def handle(self, request: web.Request) -> web.Response:
        fields: dict[str, str] = {}
        files: dict[str, bytes] = {}
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            async for part in reader:
                assert isinstance(part, BodyPartReader)
                data = await part.read()
                if part.filename:
                    files[part.name or ""] = bytes(data)
                else:
                    fields[part.name or ""] = bytes(data).decode()
        else:
            fields = {k: v for k, v in (await request.post()).items() if isinstance(v, str)}
        self.seen.append((request.path, request.headers.get("User-Agent", ""), fields, files))
        if request.path.endswith("/getMe") and self.status != 200:
            me = {"id": 1, "is_bot": True, "first_name": "Hearts", "username": "hearts_bot"}
            return web.json_response({"ok": True, "result": me})
        await asyncio.sleep(self.delay)
        if self.status == 429:
            body = {
                "ok": False,
                "error_code": 429,
                "description": "Too Many Requests: retry after 7",
                "parameters": {"retry_after": 7},
            }
            return web.json_response(body, status=429)
        return web.json_response({"ok": True, "result": True}, status=self.status)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    served = Server()
    app = web.Application()
    app.router.add_post("/{tail:.*}", served.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    served.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield served
    finally:
        await runner.cleanup()


def _data(**values: object) -> RequestData:
    return RequestData([RequestParameter.from_input(k, v) for k, v in values.items()])


async def test_the_parameters_go_as_a_form_and_the_answer_comes_back_as_it_was(
    server: Server,
) -> None:
    async with AiohttpRequest(4) as request:
        url = f"http://127.0.0.1:{server.port}/botTOKEN/sendMessage"
        status, body = await request.do_request(
            url, "POST", _data(chat_id=5, text="Hi ♥", reply_markup={"a": [1, 2]})
        )
    assert status == 200 and json.loads(body) == {"ok": True, "result": True}
    path, agent, fields, files = server.seen[0]
    assert path == "/botTOKEN/sendMessage"
    assert agent == AiohttpRequest.USER_AGENT
    assert fields == {"chat_id": "5", "text": "Hi ♥", "reply_markup": '{"a": [1, 2]}'}
    assert files == {}


async def test_a_file_goes_as_multipart_with_the_other_parameters(server: Server) -> None:
    photo = InputFile(b"\x89PNG fake", filename="chart.png")
    async with AiohttpRequest(4) as request:
        url = f"http://127.0.0.1:{server.port}/botTOKEN/sendPhoto"
        status, _ = await request.do_request(url, "POST", _data(chat_id=5, photo=photo))
    assert status == 200
    _, _, fields, files = server.seen[0]
    assert fields == {"chat_id": "5"}
    assert files == {"photo": b"\x89PNG fake"}


async def test_an_error_status_is_handed_to_ptb_which_reads_it(server: Server) -> None:
    server.status = 429
    async with AiohttpRequest(4) as request:
        status, body = await request.do_request(
            f"http://127.0.0.1:{server.port}/botTOKEN/sendMessage", "POST", _data(chat_id=1)
        )
    assert status == 429 and json.loads(body)["parameters"] == {"retry_after": 7}
    # Through PTB: its own error, with the wait Telegram asked for.
    bot = Bot("1:TOKEN", base_url=f"http://127.0.0.1:{server.port}/bot", request=AiohttpRequest(4))
    async with bot:
        with pytest.raises(RetryAfter) as raised:
            await bot.send_message(1, "x")
    assert raised.value.retry_after in (7, timedelta(seconds=7))


async def test_a_slow_answer_times_out(server: Server) -> None:
    server.delay = 1.0
    async with AiohttpRequest(4, read_timeout=0.2) as request:
        with pytest.raises(TimedOut):
            await request.do_request(
                f"http://127.0.0.1:{server.port}/botTOKEN/getMe", "POST", _data()
            )
        # A request's own read timeout wins over the default.
        status, _ = await request.do_request(
            f"http://127.0.0.1:{server.port}/botTOKEN/getMe", "POST", _data(), read_timeout=3
        )
        assert status == 200


async def test_a_full_pool_times_out_with_ptbs_words_and_sends_nothing(server: Server) -> None:
    server.delay = 0.6
    async with AiohttpRequest(1, pool_timeout=0.1) as request:
        url = f"http://127.0.0.1:{server.port}/botTOKEN/getMe"
        first = asyncio.ensure_future(request.do_request(url, "POST", _data()))
        await asyncio.sleep(0.1)
        with pytest.raises(TimedOut, match="Pool timeout"):
            await request.do_request(url, "POST", _data())
        assert (await first)[0] == 200
    assert len(server.seen) == 1
    assert POOL_FULL.startswith("Pool timeout")


async def test_nobody_listening_is_a_network_error() -> None:
    async with AiohttpRequest(1) as request:
        with pytest.raises(NetworkError) as raised:
            await request.do_request(f"http://127.0.0.1:{free_port()}/botTOKEN/getMe", "POST")
    assert not isinstance(raised.value, TimedOut)
    assert "aiohttp." in str(raised.value)


async def test_a_request_before_initialize_or_after_shutdown_is_refused() -> None:
    request = AiohttpRequest(1)
    with pytest.raises(RuntimeError, match="not initialized"):
        await request.do_request("http://127.0.0.1:1/x", "POST")
    await request.initialize()
    await request.shutdown()
    with pytest.raises(RuntimeError, match="not initialized"):
        await request.do_request("http://127.0.0.1:1/x", "POST")


FAULTS = ("500", "502", "401", "html", "bad_json", "redirect", "reset", "timeout")


async def test_no_error_of_any_failure_carries_the_token() -> None:
    """Every way the double can make the Bot API fail, through PTB's `Bot` on our client:
    no error's text (nor anything it chains to) holds the token. A redirect loop's error
    (aiohttp's, which quotes the URL) did."""
    from sandbox.testing import running_double

    async with running_double() as double:
        secret = double.token.partition(":")[2]
        request = AiohttpRequest(4, read_timeout=0.5)
        bot = Bot(double.token, base_url=double.base_url, request=request)
        async with bot:
            for how in FAULTS:
                double.fail("sendMessage", how)
                with pytest.raises(Exception) as raised:
                    await bot.send_message(1, "hi")
                error: BaseException | None = raised.value
                said = []
                while error is not None:
                    said.append(f"{type(error).__name__}: {error} {error!r}")
                    error = error.__cause__ or error.__context__
                assert secret not in " ".join(said), (how, said)
                assert double.token not in " ".join(said), (how, said)
