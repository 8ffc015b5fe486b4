"""STYLE.md layout: engine/ imports only the standard library; nothing imports bot."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def test_engine_imports_only_the_standard_library_and_itself() -> None:
    assert sources("engine")
    for path in sources("engine"):
        for module in imported_modules(path):
            top = module.split(".")[0]
            assert top == "engine" or top in sys.stdlib_module_names, f"{path}: imports {module}"


def test_engine_and_storage_never_import_bot() -> None:
    for package in ("engine", "storage"):
        for path in sources(package):
            for module in imported_modules(path):
                assert module.split(".")[0] != "bot", f"{path}: imports {module}"


def test_engine_never_imports_storage() -> None:
    for path in sources("engine"):
        for module in imported_modules(path):
            assert module.split(".")[0] != "storage", f"{path}: imports {module}"
