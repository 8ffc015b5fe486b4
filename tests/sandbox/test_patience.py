"""The tests' patience (tests/patience.py): the double's waits last `patience` times what
each asks, so that a machine busy with other work makes a test slow, not failed; a long
poll's wait (`exact`) stays as asked."""

from __future__ import annotations

import asyncio

import pytest
from patience import PATIENCE

from sandbox.double import BotApiDouble
from sandbox.testing import running_double


def test_the_tests_wait_patiently() -> None:
    assert PATIENCE >= 1 and BotApiDouble.patience == PATIENCE


async def test_a_wait_lasts_patience_times_what_it_asks_unless_exact() -> None:
    async with running_double() as double:
        double.patience = 20
        loop = asyncio.get_running_loop()
        later = loop.time() + 0.3  # three times what each wait below asks
        assert await double.wait_for(lambda: loop.time() >= later, 0.1)
        with pytest.raises(TimeoutError):
            await double.wait_for(lambda: False, 0.1, exact=True)
