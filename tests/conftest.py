"""Options for the whole suite: ``--run-slow`` runs the tests marked ``slow``.

Slow soak, load and strength runs are skipped by default so that ``./dev test`` stays fast;
``./dev test --run-slow`` (or ``pytest --run-slow -m slow``) runs them.

Tests that measure wall-clock time (a press answered within 2 s, a takeover within its
limit) are marked ``alone``: ``./dev test`` runs the rest in two processes at once
(pytest-xdist), then these by themselves, so that a neighbour's load never fails them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox.postgres_server import PostgresServer


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow",
        action="store_true",
        default=False,
        help="also run the slow soak, load and strength tests (marked slow)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --run-slow")
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for the whole run, started on first use."""
    try:
        server = PostgresServer(fsync=False)
    except RuntimeError as error:
        pytest.fail(str(error), pytrace=False)
    try:
        yield server
    finally:
        server.stop()
