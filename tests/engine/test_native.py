"""The compiled build of the engine's hot modules (`engine.native`, `./dev build`) decides
exactly as the pure Python it is compiled from, and the pure sources run wherever no build
is, or should not be, loaded."""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from system_packages import need_system_package

from engine import native

ROOT = Path(__file__).resolve().parents[2]
DIGEST = (
    "import hashlib, sys; sys.path.insert(0, 'tests/engine');"
    "from engine import native; from test_players_identity import decisions;"
    "print(native.build(), hashlib.sha256(repr(decisions()).encode()).hexdigest())"
)
"""A process's build and the digest of `test_players_identity`'s decisions (every level,
every variant, the `expert`'s costs to the last bit, its pass search, raw playouts)."""


def run(code: str, cwd: Path = ROOT, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k != native.ENVIRONMENT}
    environ.update(env)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout.strip()


def test_the_compiled_build_decides_as_the_pure_sources() -> None:
    if native.build() != "compiled":
        pytest.skip(f"not built: {native.describe()}")
    from test_players_identity import decisions

    compiled = hashlib.sha256(repr(decisions()).encode()).hexdigest()
    assert run(DIGEST, HEARTS_ENGINE="pure") == f"pure {compiled}"


def test_hearts_engine_pure_loads_the_sources() -> None:
    said = run(
        "from engine import native; from engine.players import smart;"
        "print(native.build(), smart.__file__.endswith('.py'), native.describe())",
        HEARTS_ENGINE="pure",
    )
    assert said == "pure True engine: pure Python (HEARTS_ENGINE=pure)"


def test_a_build_older_than_a_source_of_the_engine_is_stale(tmp_path: Path) -> None:
    folder = tmp_path / "engine"
    for name in native.HOT_MODULES:
        path = tmp_path.joinpath(*name.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
        os.utime(path, (1000, 1000))
    assert not native.stale(str(folder))  # no build at all
    library = folder / (native.LIBRARY + importlib.machinery.EXTENSION_SUFFIXES[0])
    library.write_bytes(b"")
    os.utime(library, (2000, 2000))
    assert not native.stale(str(folder))
    os.utime(folder / "players" / "smart.py", (3000, 3000))  # edited since the build
    assert native.stale(str(folder))
    os.utime(folder / "players" / "smart.py", (1000, 1000))
    (folder / "rules.py").write_text("")  # not compiled, but the build was checked against it
    os.utime(folder / "rules.py", (3000, 3000))
    assert native.stale(str(folder))


def test_without_a_compiler_the_build_leaves_the_engine_pure(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "deploy/compile_engine.py", "--into", str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "CC": "/no/such/compiler"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "stays pure Python" in done.stdout
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_fresh_build_decides_as_the_pure_sources(tmp_path: Path) -> None:
    """Builds a scratch copy (about ten seconds of a C compiler), then compares."""
    if shutil.which(os.environ.get("CC", "cc")) is None:
        need_system_package("gcc", "a C compiler for the engine's compiled build")
    for part in ("engine", "deploy", "tests/engine"):
        shutil.copytree(
            ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__", "*.so")
        )
    subprocess.run(
        [sys.executable, "deploy/compile_engine.py"], cwd=tmp_path, check=True, timeout=600
    )
    compiled = run(DIGEST, cwd=tmp_path)
    pure = run(DIGEST, cwd=tmp_path, HEARTS_ENGINE="pure")
    assert compiled.startswith("compiled ") and pure.startswith("pure ")
    assert compiled.split()[1] == pure.split()[1]
