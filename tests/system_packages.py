"""Tests that need a program from Debian (chromium, a font, PostgreSQL): skipped with what
to install on a developer's machine, failed where every test is required (``.ci/run``)."""

from __future__ import annotations

import os

import pytest

NEEDS = "needs Debian's "
"""How a skip for a missing system package starts, so the run's last lines can gather them."""


def need_system_package(package: str, what: str) -> None:
    """Stop the test that needs `package` (a Debian package) for `what`: a skip on a
    developer's machine, which the run's summary turns into one line saying what to
    install; a failure where every test is required (``.ci/run`` sets
    HEARTS_REQUIRE_SYSTEM=1)."""
    reason = f"{NEEDS}{package} ({what}): apt-get install -y {package}"
    if os.environ.get("HEARTS_REQUIRE_SYSTEM"):
        pytest.fail(reason + " (HEARTS_REQUIRE_SYSTEM is set)", pytrace=False)
    pytest.skip(reason)
