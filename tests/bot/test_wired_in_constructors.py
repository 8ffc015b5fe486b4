"""Objects get their collaborators in their constructors (issue 52, item 5): nothing in the
bot hands another object a callback by assigning it afterwards (``outbox.on_turn = …``,
``board.ticker = …``, ``app.dropping = lambda …``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

DATA = {"record.account = self._account"}
"""Assignments that look like a hook and are data: a log record's field (`bot.logs`)."""


def _hooked(node: ast.AST) -> list[str]:
    """Assignments in `node` of a callback (a lambda, a bound method, or anything to a hook
    named ``on_…``) to an attribute of another object than ``self``."""
    found = []
    for child in ast.walk(node):
        if isinstance(child, ast.Assign):
            targets, value = child.targets, child.value
        elif isinstance(child, ast.AnnAssign) and child.value is not None:
            targets, value = [child.target], child.value
        else:
            continue
        for target in targets:
            if not isinstance(target, ast.Attribute):
                continue
            owner = ast.unparse(target.value)
            if owner in ("self", "cls"):
                continue
            hook = _callable(value) or target.attr.startswith("on_")
            if hook and ast.unparse(child) not in DATA:
                found.append(f"{child.lineno} {ast.unparse(child)}")
    return found


def _callable(value: ast.expr) -> bool:
    """A lambda or a method looked up on an object (``metrics.shown``), either way round
    a conditional: what an assigned hook looks like."""
    if isinstance(value, ast.IfExp):
        return _callable(value.body) or _callable(value.orelse)
    return isinstance(value, ast.Lambda) or (
        isinstance(value, ast.Attribute) and value.attr.islower()
    )


def test_no_callback_is_given_by_assignment_after_construction() -> None:
    found = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(ROOT)}:{line}" for line in _hooked(tree)]
    assert found == []
