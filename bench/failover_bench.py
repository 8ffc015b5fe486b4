"""Failover: how long a standby takes to serve after the leader is killed.

    python -m bench failover [--runs 20]

Each run: a fresh database on a real PostgreSQL server started here, the Bot API double in
this process, two ``python -m bot`` processes (the real entry point) against both. The first
leads and polls; the second waits as the standby. The leader is killed with SIGKILL and a
person presses /help meanwhile; measured are kill → the standby's first ``getUpdates`` and
kill → the reply to that /help. Printed: median, p95 and the slowest, over the runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import sys
import time
from pathlib import Path

from sandbox.double import BotApiDouble
from sandbox.postgres_server import PostgresServer
from sandbox.testing import running_double

ROOT = Path(__file__).resolve().parent.parent


async def start(double: BotApiDouble, database: str, log: Path) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "TELEGRAM_"))}
    env.update(
        BOT_TOKEN=double.token,
        TELEGRAM_API_BASE_URL=double.base_url,
        TELEGRAM_API_FILE_URL=double.base_file_url,
        DATABASE_URL=database,
        LOG_LEVEL="INFO",
        PYTHONPATH=str(ROOT),
    )
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        env=env,
        cwd=log.parent,
        stdout=log.open("wb"),
        stderr=asyncio.subprocess.STDOUT,
    )


async def one_run(
    server: PostgresServer, folder: Path, n: int, hang: bool = False
) -> tuple[float, float]:
    database = await server.database()
    async with running_double() as double:
        person = double.create_user("Ana", username="ana")
        polls = double.call_count("getUpdates")
        leader = await start(double, database, folder / f"leader-{n}.log")
        await double.wait_for(lambda: double.call_count("getUpdates") > polls, 30)
        standby_log = folder / f"standby-{n}.log"
        standby = await start(double, database, standby_log)
        await double.wait_for(lambda: "standby:" in standby_log.read_text(errors="ignore"), 30)
        await person.start_bot()
        await double.wait_for(lambda: person.dm_view().last() is not None, 10)
        replies = len(person.dm_view().bot_messages)
        polls = double.call_count("getUpdates")
        killed = time.monotonic()
        leader.send_signal(signal.SIGSTOP if hang else signal.SIGKILL)
        if not hang:
            await leader.wait()
        await person.send(person.dm, "/help")
        await double.wait_for(lambda: double.call_count("getUpdates") > polls, 30)
        polled = time.monotonic() - killed
        await double.wait_for(lambda: len(person.dm_view().bot_messages) > replies, 30)
        answered = time.monotonic() - killed
        standby.send_signal(signal.SIGTERM)
        await standby.wait()
        if hang:  # it wakes up without its lock, and stops (exit 1)
            leader.send_signal(signal.SIGCONT)
            woke = await asyncio.wait_for(leader.wait(), 30)
            assert woke == 1, f"the hung leader woke up and exited with {woke}"
    return polled, answered


async def run(runs: int, folder: Path, hang: bool) -> None:
    server = PostgresServer()
    try:
        polled, answered = [], []
        for n in range(runs):
            p, a = await one_run(server, folder, n, hang)
            polled.append(p)
            answered.append(a)
            print(
                f"  run {n + 1}: polling after {p:.2f} s, the /help answered after {a:.2f} s",
                file=sys.stderr,
                flush=True,
            )
    finally:
        server.stop()

    def figures(values: list[float]) -> str:
        p95 = (
            statistics.quantiles(values, n=20, method="inclusive")[18]
            if len(values) > 1
            else values[0]
        )
        return (
            f"median {statistics.median(values):.2f} s, p95 {p95:.2f} s, "
            f"slowest {max(values):.2f} s"
        )

    how = "SIGSTOP: the leader hangs" if hang else "SIGKILL of the leader"
    print(f"failover over {runs} runs ({how}; PostgreSQL on this machine):")
    print(f"  kill → the standby polls Telegram: {figures(polled)}")
    print(f"  kill → a message sent meanwhile is answered: {figures(answered)}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench failover")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument(
        "--hang", action="store_true", help="SIGSTOP the leader instead (it hangs, alive)"
    )
    args = parser.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory(prefix="hearts-failover-") as folder:
        asyncio.run(run(args.runs, Path(folder), args.hang))


if __name__ == "__main__":
    main()
