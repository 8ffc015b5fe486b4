"""The bot's HTTP client for the Bot API: python-telegram-bot's `BaseRequest` on aiohttp.

PTB's own client (`HTTPXRequest`, on httpx, httpcore, anyio and h11) spent about 2.5 ms of
CPU on each request to a local server, where aiohttp's client spends under 0.4 ms (client
and server together, measured side by side): every card played costs a few requests (the
toast, the screens, the group's table), so that was the largest part of a bot's CPU
after the game itself. aiohttp is already the table page's server. PTB documents this as
the way to bring one's own networking backend (`ApplicationBuilder.request`).

What it keeps of PTB's client: the same four timeouts with the same defaults (a pool
timeout only for waiting for a free connection), the same errors (`TimedOut`, with PTB's
words for a full pool; `NetworkError` naming the cause, never the token its URL carries:
`without_token`), the same body (the parameters as
a form, or multipart with the files), the process's one TLS context, and every response
handed back as it came, status and bytes, for PTB to read.
"""

from __future__ import annotations

import asyncio
import functools
import re
import ssl
import time
from collections.abc import Callable
from typing import Final
from urllib.parse import quote, unquote

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

POOL_FULL = (
    "Pool timeout: All connections in the connection pool are occupied. Request was *not* "
    "sent to Telegram. Consider adjusting the connection pool size or the pool timeout."
)
"""PTB's own words for a request that found no free connection in time."""


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The process's one TLS context for Telegram's connections: reading the system's
    certificate authorities takes about 80 ms of CPU, and each client would otherwise do it
    (two per bot built; tests and the sandbox build hundreds)."""
    return ssl.create_default_context()


Observe = Callable[[str, int | str, float], None]
"""Told a request's URL, its outcome (the HTTP status, or ``timeout`` or ``network``) and
its seconds from sent to answered. The URL holds the token: an observer keeps only the
method it names (`bot.metrics.method_of`)."""


class AiohttpRequest(BaseRequest):
    """`pool_size` connections at most; the timeouts in seconds (None: wait for ever), as
    `telegram.request.HTTPXRequest`'s, whose defaults these are. aiohttp has no timeout of
    its own for writing a request: `write_timeout` bounds the whole exchange instead,
    together with the others (connect, write, read)."""

    def __init__(
        self,
        pool_size: int = 1,
        *,
        tls: ssl.SSLContext | None = None,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = 20.0,
        observe: Observe | None = None,
    ) -> None:
        """`observe`: told of each request sent, as it is answered or fails (`bot.metrics`)."""
        self._observe = observe
        self._tls = tls if tls is not None else tls_context()
        self._read = read_timeout
        self._write = write_timeout
        self._connect = connect_timeout
        self._pool = pool_timeout
        self._media_write = media_write_timeout
        self._session: aiohttp.ClientSession | None = None
        self._free = asyncio.Semaphore(pool_size)
        """The pool: a request waits here (the pool timeout) for one of its connections."""

    @property
    def read_timeout(self) -> float | None:
        return self._read

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(
                limit=0,  # `_free` keeps the count, so that its wait is the pool timeout
                ssl=self._tls,
            )
            self._session = aiohttp.ClientSession(
                connector=connector, headers={"User-Agent": self.USER_AGENT}
            )

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data else None
        fields = request_data.json_parameters if request_data else None
        read = self._read if isinstance(read_timeout, DefaultValue) else read_timeout
        connect = self._connect if isinstance(connect_timeout, DefaultValue) else connect_timeout
        pool = self._pool if isinstance(pool_timeout, DefaultValue) else pool_timeout
        write: float | None
        if isinstance(write_timeout, DefaultValue):
            write = self._media_write if files else self._write
        else:
            write = write_timeout
        # Making a connection is the connect timeout; each wait for the answer's bytes, the
        # read timeout; the whole exchange is bounded by the three (aiohttp has no timeout
        # for writing alone).
        timeout = aiohttp.ClientTimeout(
            total=_sum(connect, write, read), sock_connect=connect, sock_read=read
        )
        body: aiohttp.FormData | dict[str, str] | None = fields
        if files:
            form = aiohttp.FormData(fields or {})
            for name, upload in files.items():
                if isinstance(upload, tuple):
                    filename, content, *mime = upload
                    form.add_field(
                        name,
                        content,
                        filename=filename,
                        content_type=mime[0] if mime else "application/octet-stream",
                    )
                else:
                    form.add_field(name, upload)
            body = form
        try:
            async with asyncio.timeout(pool):
                await self._free.acquire()
        except TimeoutError:
            raise TimedOut(POOL_FULL) from None
        began = time.monotonic()
        outcome: int | str | None = None  # None: cancelled, not counted
        said = ""
        try:
            async with session.request(method, url, data=body, timeout=timeout) as response:
                answer = response.status, await response.read()
                outcome = response.status
                return answer
        except (TimeoutError, aiohttp.ServerTimeoutError):
            outcome = "timeout"
        except aiohttp.ClientError as error:
            outcome = "network"
            said = without_token(f"aiohttp.{type(error).__name__}: {error}", url)
        finally:
            self._free.release()
            if self._observe is not None and outcome is not None:
                self._observe(url, outcome, time.monotonic() - began)
        # Raised here, outside the handlers, so that neither error chains to aiohttp's
        # (whose text and request hold the URL, and so the token).
        if outcome == "timeout":
            raise TimedOut
        raise NetworkError(said)


TOKEN_IN_URL: Final = re.compile(r"/bot([^/?#]+)")
"""The token in a Bot API URL: ``…/bot<token>/sendMessage``, ``…/file/bot<token>/…``."""


def without_token(text: str, url: str) -> str:
    """`text` (an error's, which may quote `url`) with the token `url` carries, and its
    secret half, replaced wherever they appear, raw or URL-quoted: no error the bot's
    client raises carries the token, whatever later says it (a log, a message, a page)."""
    found = TOKEN_IN_URL.search(url)
    if found is None:
        return text
    token = unquote(found.group(1))
    secret = token.partition(":")[2]
    for needle in sorted(
        {token, quote(token, safe=""), secret, quote(secret, safe="")}, key=len, reverse=True
    ):
        if len(needle) >= 8:
            text = text.replace(needle, "<token>")
    return text


def _sum(*timeouts: float | None) -> float | None:
    """The timeouts added up, or None (no bound) if any of them is None."""
    if any(t is None for t in timeouts):
        return None
    return sum(t for t in timeouts if t is not None)
