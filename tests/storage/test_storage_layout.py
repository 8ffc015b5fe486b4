"""How storage is cut (issue 32): no SQL rewritten by a regular expression, no backend a
subclass of another, and in `bot/` only the wiring holds the whole `Storage`: every other
collaborator is given the repositories it uses."""

from __future__ import annotations

import ast
from pathlib import Path

import storage
from storage import Journal, Ledger, Maintenance, People, Standings, Storage, Tournaments

ROOT = Path(__file__).resolve().parent.parent.parent
WIRING = {"bot/rooms.py", "bot/app.py"}
"""Where the whole `Storage` may be held: the rooms are built from it, the app opens it."""


def _sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def test_no_regular_expression_in_storage() -> None:
    for path in _sources("storage"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert "re" not in names, f"{path.relative_to(ROOT)} imports re"


def test_each_repository_holds_one_subject() -> None:
    repositories = (Journal, People, Standings, Tournaments, Ledger, Maintenance)
    for repository in repositories:
        public = [name for name in vars(repository) if not name.startswith("_")]
        assert len(public) <= 16, (repository.__name__, public)
        # No repository is built on another one, nor on a backend class.
        assert repository.__bases__ == (object,), repository
    store = [name for name in vars(Storage) if not name.startswith("_")]
    assert len(store) <= 8, store  # the repositories' holder, not their methods
    assert not hasattr(storage, "SqliteStorage") and not hasattr(storage, "PostgresStorage")


def test_only_the_wiring_holds_the_whole_storage() -> None:
    for path in _sources("bot"):
        name = str(path.relative_to(ROOT))
        if name in WIRING:
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in ("storage", "storage.store"):
                imported = {a.name for a in node.names}
                assert "Storage" not in imported, f"{name} takes the whole Storage"
