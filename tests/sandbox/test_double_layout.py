"""The double stands apart from the bot so the bot can be run by it, not the other way."""

import ast
from pathlib import Path

import sandbox


def test_sandbox_does_not_import_bot() -> None:
    for path in Path(sandbox.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(n == "bot" or n.startswith("bot.") for n in names), path
