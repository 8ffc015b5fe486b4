"""A table's mailbox: its jobs run one at a time in the order they were sent, each table's
apart from the others', and a job's end (a result, an exception, a cancelled sender)
reaches its sender and nobody else."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from test_live_view import table_for

from bot.mailbox import Mailbox
from bot.tables.registry import TableRegistry
from bot.timers import Background
from engine import Game, Rules


def _registry() -> TableRegistry:
    return TableRegistry(games=None, background=Background())  # type: ignore[arg-type]


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def test_senders_to_one_table_run_in_arrival_order_one_at_a_time() -> None:
    registry = _registry()
    running: list[int] = []
    log: list[tuple[str, int]] = []

    def job(n: int) -> Callable[[], Awaitable[int]]:
        async def run() -> int:
            running.append(n)
            assert running == [n], f"{running} at once"
            log.append(("start", n))
            for _ in range(3):  # hand the loop to everyone else a few times
                await asyncio.sleep(0)
            log.append(("end", n))
            running.remove(n)
            return n * 10

        return run

    senders = [asyncio.create_task(registry.send(7, job(n))) for n in range(20)]
    assert await asyncio.gather(*senders) == [n * 10 for n in range(20)]
    assert log == [(what, n) for n in range(20) for what in ("start", "end")]
    assert registry.kept_sizes()["mailboxes"] == 0


async def test_different_tables_interleave() -> None:
    registry = _registry()
    log: list[tuple[int, str]] = []
    both_started = asyncio.Event()

    async def job(table_id: int) -> None:
        log.append((table_id, "start"))
        if len(log) == 2:
            both_started.set()
        await asyncio.wait_for(both_started.wait(), 1.0)
        log.append((table_id, "end"))

    await asyncio.gather(registry.send(1, lambda: job(1)), registry.send(2, lambda: job(2)))
    assert log[:2] == [(1, "start"), (2, "start")]


async def test_a_job_that_raises_answers_its_sender_and_the_mailbox_goes_on() -> None:
    registry = _registry()
    done: list[int] = []

    async def fails() -> int:
        await asyncio.sleep(0)
        raise ValueError("refused")

    async def works(n: int) -> int:
        done.append(n)
        return n

    first = asyncio.create_task(registry.send(3, lambda: works(1)))
    failing = asyncio.create_task(registry.send(3, fails))
    last = asyncio.create_task(registry.send(3, lambda: works(2)))
    with pytest.raises(ValueError, match="refused"):
        await failing
    assert (await first, await last) == (1, 2)
    assert done == [1, 2]
    assert registry.kept_sizes()["mailboxes"] == 0


async def test_a_sender_cancelled_before_its_turn_drops_its_job() -> None:
    mailbox = Mailbox()
    release = asyncio.Event()
    ran: list[str] = []

    async def holds() -> None:
        ran.append("first")
        await release.wait()

    async def note(name: str) -> None:
        ran.append(name)

    first = asyncio.create_task(mailbox.ask(holds))
    cancelled = asyncio.create_task(mailbox.ask(lambda: note("cancelled")))
    after = asyncio.create_task(mailbox.ask(lambda: note("after")))
    await _settle()
    assert len(mailbox) == 3
    cancelled.cancel()
    await _settle()
    assert len(mailbox) == 2
    release.set()
    await asyncio.gather(first, after)
    assert cancelled.cancelled()
    assert ran == ["first", "after"]
    assert not mailbox.busy


async def test_a_sender_cancelled_as_its_turn_comes_hands_the_turn_on() -> None:
    mailbox = Mailbox()
    ran: list[str] = []

    async def note(name: str) -> None:
        ran.append(name)

    queued = asyncio.Event()

    async def first_job() -> None:
        await queued.wait()
        ran.append("first")

    async def first_sender() -> None:
        await mailbox.ask(first_job)
        # The turn was handed to the second as the first job ended; it has not woken yet.
        second.cancel()

    first = asyncio.create_task(first_sender())
    second = asyncio.create_task(mailbox.ask(lambda: note("second")))
    third = asyncio.create_task(mailbox.ask(lambda: note("third")))
    await _settle()
    assert len(mailbox) == 3
    queued.set()
    await asyncio.wait_for(asyncio.gather(first, third), 1.0)
    with pytest.raises(asyncio.CancelledError):
        await second
    assert ran == ["first", "third"]
    assert not mailbox.busy


async def test_a_sender_cancelled_while_its_job_runs_cancels_the_job_and_frees_the_table() -> None:
    mailbox = Mailbox()
    started = asyncio.Event()
    unwound: list[str] = []

    async def long_job() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        finally:
            unwound.append("long")

    async def next_job() -> str:
        return "next"

    sender = asyncio.create_task(mailbox.ask(long_job))
    waiting = asyncio.create_task(mailbox.ask(next_job))
    await started.wait()
    sender.cancel()
    assert await asyncio.wait_for(waiting, 1.0) == "next"
    assert sender.cancelled() and unwound == ["long"]
    assert not mailbox.busy


async def test_a_job_that_sends_to_its_own_table_runs_that_inside_itself() -> None:
    registry = _registry()

    async def inner() -> str:
        return "inner"

    async def outer() -> str:
        return "outer+" + await registry.send(5, inner)

    assert await asyncio.wait_for(registry.send(5, outer), 1.0) == "outer+inner"


async def test_a_mailbox_is_kept_only_while_a_job_runs_or_waits_in_it() -> None:
    """So a forgotten table's, or a forged id's, ends with its last job."""
    registry = _registry()
    gate = asyncio.Event()

    async def wait() -> None:
        await gate.wait()

    senders = [asyncio.create_task(registry.send(9, wait)) for _ in range(3)]
    await _settle()
    assert registry.kept_sizes()["mailboxes"] == 1
    gate.set()
    await asyncio.gather(*senders)
    assert registry.kept_sizes()["mailboxes"] == 0
    # A job sent afterwards gets a fresh mailbox, and it too ends.
    assert await registry.send(9, lambda: asyncio.sleep(0, "again")) == "again"
    assert registry.kept_sizes()["mailboxes"] == 0


async def test_jobs_queued_behind_the_one_that_forgets_a_table_find_it_gone() -> None:
    """A table ends (finished, cancelled) in a job; the presses queued behind it look it up
    in their turn, find nothing, and the mailbox ends with the last of them."""
    registry = _registry()
    rules = Rules()
    table = table_for(rules, Game(rules, seed=1))
    registry.add(table, 0)
    release = asyncio.Event()

    async def ends() -> None:
        await release.wait()
        registry.forget(table)

    async def press() -> bool:
        return registry.get(table.id) is not None

    ending = asyncio.create_task(registry.send(table.id, ends))
    presses = [asyncio.create_task(registry.send(table.id, press)) for _ in range(3)]
    await _settle()
    release.set()
    await ending
    assert await asyncio.gather(*presses) == [False, False, False]
    assert registry.kept_sizes()["mailboxes"] == 0 and registry.kept_sizes()["tables"] == 0
