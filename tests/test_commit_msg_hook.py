"""The repository's commit-msg hook (CONTRIBUTING.md): a subject of at most 72 characters
and a blank second line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

HOOK = Path(__file__).resolve().parent.parent / ".githooks" / "commit-msg"


def run_hook(tmp_path: Path, message: str) -> int:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message, encoding="utf-8")
    return subprocess.run(["bash", str(HOOK), str(path)], capture_output=True).returncode


@pytest.mark.parametrize(
    "message",
    [
        "coach: the review reuses the hint's search\n\nWhy, at length.\n",
        "x" * 72 + "\n",
        "Merge branch 'a-very-long-branch-name-" + "x" * 60 + "'\n",
        "♠" * 72 + "\n# a comment git strips\n",
    ],
)
def test_a_short_subject_passes(tmp_path: Path, message: str) -> None:
    assert run_hook(tmp_path, message) == 0


@pytest.mark.parametrize(
    "message",
    ["x" * 73 + "\n", "\n\nbody only\n", "subject\nno blank line before the body\n"],
)
def test_a_long_subject_or_a_missing_blank_line_is_refused(tmp_path: Path, message: str) -> None:
    assert run_hook(tmp_path, message) == 1
