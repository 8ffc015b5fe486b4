"""The path a reader follows: the effect runner's map, given once and complete.

Issue 52, item 4: effects go to their handlers through one map built at start, never
changed afterwards (no handler registered later, none given for one run).
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Any, get_args

import pytest

from bot.core import effects
from bot.core.runner import EFFECTS, MissingHandler, Runner, nothing
from bot.rooms import effect_handlers

ROOT = Path(__file__).resolve().parents[2]


def test_every_kind_of_effect_has_one_handler_in_the_rooms_map() -> None:
    handlers = effect_handlers(lambda: None, None, None, None, None)  # type: ignore[arg-type, return-value]
    assert set(handlers) == set(get_args(effects.Effect)) == EFFECTS
    assert set(effects.ORDER) == EFFECTS  # and each has its place in the order


def test_a_runner_refuses_a_map_with_a_kind_missing() -> None:
    handlers: dict[type, Any] = {kind: nothing for kind in EFFECTS}
    del handlers[effects.PushPages]
    with pytest.raises(MissingHandler, match="PushPages"):
        Runner(handlers)


def test_the_runners_map_is_frozen_once_built() -> None:
    given: dict[type, Any] = {kind: nothing for kind in EFFECTS}
    runner = Runner(given)
    given[effects.PushPages] = None  # the caller's dict: the runner kept its own copy
    assert runner.handlers[effects.PushPages] is nothing
    with pytest.raises(TypeError):
        runner.handlers[effects.PushPages] = nothing  # type: ignore[index]
    assert not hasattr(runner, "on")
    assert list(inspect.signature(Runner.run).parameters) == ["self", "table", "command"]


def test_nothing_registers_an_effect_handler_after_the_runner_is_built() -> None:
    """No `runner.on(...)` and no per-run handlers (`here=`) anywhere in the bot."""
    found = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            name = node.func.attr
            on_runner = "runner" in ast.unparse(node.func.value)
            if on_runner and (name in ("on", "on_enter") or (name == "run" and len(node.args) > 2)):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)}")
    assert found == []
