"""Options for the whole suite: ``--run-slow`` runs the tests marked ``slow``.

Slow soak, load and strength runs are skipped by default so that ``./dev test`` stays fast;
``./dev test --run-slow`` (or ``pytest --run-slow -m slow``) runs them.

Tests that measure wall-clock time (a press answered within 2 s, a takeover within its
limit) are marked ``alone``: ``./dev test`` runs the rest in two processes at once
(pytest-xdist), then these by themselves, so that a neighbour's load never fails them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from patience import PATIENCE
from system_packages import NEEDS, need_system_package

from sandbox.double import BotApiDouble
from sandbox.postgres_server import PostgresServer

BotApiDouble.patience = PATIENCE  # a busy machine makes the bot slow, not wrong


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow",
        action="store_true",
        default=False,
        help="also run the slow soak, load and strength tests (marked slow)",
    )


LONGEST = (
    "test_sandbox_browser.py::test_a_person_plays_in_the_browser",
    "test_e2e_failover.py::",
    "test_e2e_tournaments.py::test_thirteen_players",
    "test_e2e_crash.py::test_sigkill_in_the_middle_of_a_trick",
    "test_e2e_ratings.py::test_two_games_rate_everyone",
    "test_storage_standings.py::test_standings_match_the_games",
    "test_live_browser.py::",
    "test_properties.py::test_random_games_follow_the_rules_to_the_end",
    "test_hardening_memory.py::",
    "test_storage_copy.py::",
    "test_e2e_crash.py::",
)
"""The longest tests (10 s to a minute each), first: the two test processes take tests
in the order collected, and one of these started last kept the run going on one process
while the other had nothing left."""


def _longest_first(item: pytest.Item) -> int:
    return next((i for i, name in enumerate(LONGEST) if name in item.nodeid), len(LONGEST))


BESIDE_THE_ALONE = "test_coach_fairness.py::"
"""The one test marked alone that runs beside the others marked so, in a second process
(``./dev test``): a table of computers at a card a second, mostly waiting, whose every
limit is measured against its own baseline taken right before each attack. The others
marked alone run one at a time, in one process."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_longest_first)  # stable: the others keep their order
    for item in items:
        if item.get_closest_marker("alone") is not None:
            beside = BESIDE_THE_ALONE in item.nodeid
            item.add_marker(pytest.mark.xdist_group("beside" if beside else "one at a time"))
    if config.getoption("--run-slow"):
        for item in items:
            if item.get_closest_marker("slow") is not None:
                item.add_marker(pytest.mark.timeout(0))  # a soak or strength run takes long
        return
    skip = pytest.mark.skip(reason="slow: run with --run-slow")
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line for every test skipped for a missing system package: what to install."""
    packages: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        if NEEDS in reason:
            package = reason.split(NEEDS, 1)[1].split(" ", 1)[0]
            packages[package] = packages.get(package, 0) + 1
    if packages:
        count = sum(packages.values())
        terminalreporter.write_line(
            f"{count} tests skipped for want of system packages; to run them: "
            f"apt-get install -y {' '.join(sorted(packages))}",
            yellow=True,
            bold=True,
        )


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for the whole run, started on first use."""
    try:
        server = PostgresServer(fsync=False)
    except RuntimeError:
        need_system_package("postgresql", "the PostgreSQL storage tests")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pass_clock_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `expert`'s searched pass plays all its deals: its safety net (`PASS_LIMIT_S`, a
    pass under a second on a slow or busy machine) would otherwise stop the second round
    wherever the clock says, and two searches of one view compared in a test would differ
    (seen on a slower 2-core machine under the whole suite)."""
    monkeypatch.setattr("engine.players.expert.PASS_LIMIT_S", math.inf)
