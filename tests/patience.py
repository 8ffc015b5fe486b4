"""How long the tests wait for a thing before they call it a failure.

Every wait in a test is for something the bot will do (a press answered, a process
polling, a page served); the time-out only reports a bot that never gets there. On a
machine busy with other work (two cores shared with other test runs, a build) the bot is
slow, not wrong: a wait of "5 s" there can take 30. So the tests wait `PATIENCE` times
what each asks (``HEARTS_TEST_PATIENCE``, 6 by default): the double's `wait_for` and
`idle` and its Telegram answer window (tests/conftest.py sets `BotApiDouble.patience`),
and the helpers that poll a process or a port (`patient`). A passing test never waits
for its time-out, so this costs nothing; only a failing one reports later. The tests
that measure wall-clock time on purpose (marked ``alone``) keep their limits as they are.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

PATIENCE = float(os.environ.get("HEARTS_TEST_PATIENCE", "6"))


def patient(seconds: float) -> float:
    """`seconds` of waiting for a thing, as long as the tests are patient."""
    return seconds * PATIENCE


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Poll `condition` until it holds; `what` names it when it never does (`patient`)."""
    deadline = time.monotonic() + patient(timeout)
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)
