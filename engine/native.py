"""Which build of the engine runs: its hot modules compiled, or pure Python.

The computer players spend their time in a few modules (`HOT_MODULES`: the rules of a
card to a trick, scoring, the playouts and their policies, the sampling of deals).
`./dev build` (``deploy/compile_engine.py``) compiles them, unchanged, with mypyc, and
Python then imports the compiled modules first; without a build, or on a machine with no
C compiler, the same sources run as they are. Both give the same decisions
(tests/engine/test_native.py); the compiled build is only faster (`bench engine`).

``HEARTS_ENGINE=pure`` makes a process load the sources even where a build is present:
how the test and the benchmark run both in one sitting, and a way to rule the build out.
A build older than any of the engine's sources (edited, or another branch checked out
since) is not loaded either: the sources run, and `describe` says the build is stale.

This module imports only the standard library, and nothing of the engine: the build
script reads `HOT_MODULES` from it before the engine is installed.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Final, Literal

HOT_MODULES: Final = (
    "engine.play_rules",
    "engine.scoring",
    "engine.players.moon",
    "engine.players.standard",
    "engine.players.smart",
    "engine.players.playout",
    "engine.players.shooting",
    "engine.players.knowledge",
    "engine.players.sampling",
    "engine.players.pass_rule",
)
"""What the compiled build compiles. Not `players.passing` and `players.expert`: their
tests swap their globals (a playout counted, a clock stopped), which calls between
compiled modules would not see."""
LIBRARY: Final = "hot__mypyc"
"""The compiled build's shared library, in the engine's folder (mypyc's group)."""
ENVIRONMENT: Final = "HEARTS_ENGINE"
"""``pure``: load the hot modules from their sources (`prefer_source`)."""

Build = Literal["compiled", "pure", "mixed"]


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Finds a hot module's source file before the path's own finder sees its extension."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in HOT_MODULES or path is None:
            return None
        leaf = fullname.rpartition(".")[2]
        for folder in path:
            source = os.path.join(folder, leaf + ".py")
            if os.path.isfile(source):
                return importlib.util.spec_from_file_location(fullname, source)
        return None


def prefer_source() -> None:
    """Load the hot modules from their sources in this process, a build present or not.
    Effective only for modules not yet imported (`engine/__init__.py` calls it first)."""
    if not any(isinstance(finder, _SourceFirst) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst())


def stale(folder: str = os.path.dirname(__file__)) -> bool:
    """Whether a compiled build is in the engine's ``folder`` and older than one of the
    engine's sources: it could run code that is not the sources'. Any module counts, not
    only the hot ones: the compiled code was type-checked against all of them."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    built = [
        os.path.getmtime(os.path.join(folder, name))
        for name in os.listdir(folder)
        if name.startswith(LIBRARY) and name.endswith(suffixes)
    ]
    if not built:
        return False
    newest = max(
        os.path.getmtime(os.path.join(where, name))
        for where, _, names in os.walk(folder)
        for name in names
        if name.endswith(".py")
    )
    return newest > min(built)


def pure_wanted(environ: Mapping[str, str]) -> bool:
    return environ.get(ENVIRONMENT, "").strip().lower() == "pure"


def follow_environment(environ: Mapping[str, str] = os.environ) -> None:
    """`prefer_source` when ``HEARTS_ENGINE=pure`` or the build is `stale`."""
    if pure_wanted(environ) or stale():
        prefer_source()


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from an extension (a compiled build)."""
    origin = getattr(module, "__file__", None) or ""
    return origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def build() -> Build:
    """``compiled`` when every hot module runs compiled, ``pure`` when none does, ``mixed``
    otherwise (a build older than the list of hot modules: `./dev build` again)."""
    compiled = [is_compiled(importlib.import_module(name)) for name in HOT_MODULES]
    if all(compiled):
        return "compiled"
    return "mixed" if any(compiled) else "pure"


def describe() -> str:
    """One line for a log: which build runs."""
    kind = build()
    if kind == "compiled":
        return "engine: compiled build (mypyc) of its hot modules"
    if kind == "mixed":
        return "engine: partly compiled (a stale build: ./dev build again)"
    if pure_wanted(os.environ):
        return "engine: pure Python (HEARTS_ENGINE=pure)"
    if stale():
        return "engine: pure Python (the compiled build is older than the sources: ./dev build)"
    return "engine: pure Python (no compiled build; ./dev build compiles one)"


# At the engine's first import, before its hot modules are imported (`engine/__init__.py`
# imports this module first): later is too late to choose their build.
follow_environment()
