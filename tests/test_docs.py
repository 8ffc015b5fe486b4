"""The documents' links lead somewhere: every relative link in a Markdown file of the
repository names a file that exists (and the README stays a front door)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)\)")


def documents() -> list[Path]:
    pages = sorted([*(ROOT / "docs").glob("*.md"), *(ROOT / "deploy").glob("*.md")])
    return [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "CONTRIBUTING.md", *pages]


def test_every_relative_link_names_a_file_that_exists() -> None:
    broken = []
    for document in documents():
        for target in LINK.findall(document.read_text(encoding="utf-8")):
            if "://" in target or target.startswith(("#", "mailto:")):
                continue
            path = target.split("#", 1)[0]
            if not (document.parent / path).exists():
                broken.append(f"{document.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_readme_is_a_front_door() -> None:
    """Issue 52, item 6: what it is, the two commands, how to play, links; at most 250
    lines, the rest in docs/."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    assert "./dev run" in readme and "./dev test" in readme
