"""Compile the engine's hot modules with mypyc, beside their sources: the optional fast build.

    python deploy/compile_engine.py [--into DIR] [--clean]

`./dev build` runs it on the checkout, the Dockerfile on the installed package (``--into``
the installed ``engine`` folder). The modules listed in `engine.native.HOT_MODULES` are
compiled, unchanged, into one shared library (``engine/hot__mypyc*.so``) with a small
extension module beside each source file; Python then imports the extension first. With no
C compiler or no mypyc it says so and leaves the engine pure Python (exit 0): the engine
runs the same either way, only slower. ``--clean`` removes a build (back to pure Python).

The build runs in a scratch folder, from a copy of the sources, so the checkout gets only
the ``.so`` files (git-ignored): mypyc's C sources, and setuptools reading this project's
pyproject.toml, stay out of it.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GROUP = "engine.hot"
"""The shared library's module (mypyc's group): ``engine/hot__mypyc*.so``."""

SETUP = """\
from setuptools import setup
from mypyc.build import mypycify

setup(
    name="hearts-engine-hot",
    ext_modules=mypycify(
        ["--strict", "--python-version", "3.11", *{paths!r}],
        group_name={group!r},
        opt_level="3",
    ),
)
"""


def hot_modules() -> list[str]:
    """The modules to compile, as the engine lists them (`engine.native.HOT_MODULES`, read
    from its file alone: the Docker build runs this before the engine is installed)."""
    spec = importlib.util.spec_from_file_location("_native", ROOT / "engine" / "native.py")
    assert spec is not None and spec.loader is not None
    native = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(native)
    return list(native.HOT_MODULES)


def built_files(engine_dir: Path) -> list[Path]:
    """The extension modules a build left in ``engine_dir``."""
    return sorted(
        {
            path
            for suffix in importlib.machinery.EXTENSION_SUFFIXES
            for path in engine_dir.rglob(f"*{suffix}")
        }
    )


def why_not() -> str | None:
    """Why this machine cannot compile the engine, or None when it can."""
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypyc is not installed (pip install mypy)"
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler}) on PATH"
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").exists():
        return f"no Python headers ({include}/Python.h)"
    return None


def compile_into(engine_dir: Path) -> list[Path]:
    """Build the hot modules from this checkout's sources into ``engine_dir``; returns the
    extension modules put there. Raises `subprocess.CalledProcessError` if the build fails."""
    modules = hot_modules()
    with tempfile.TemporaryDirectory(prefix="hearts-engine-build-") as scratch:
        work = Path(scratch)
        copied = time.time()  # an edit after this is not in the build: it makes it stale
        shutil.copytree(
            ROOT / "engine",
            work / "engine",
            ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"),
        )
        paths = [m.replace(".", "/") + ".py" for m in modules]
        (work / "setup.py").write_text(SETUP.format(paths=paths, group=GROUP), encoding="utf-8")
        subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace"],
            cwd=work,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        clean(engine_dir)
        put = []
        for path in built_files(work / "engine"):
            target = engine_dir / path.relative_to(work / "engine")
            shutil.copy2(path, target)
            os.utime(target, (copied, copied))
            put.append(target)
        return put


def clean(engine_dir: Path) -> list[Path]:
    """Remove a build from ``engine_dir``: the engine is pure Python again."""
    gone = built_files(engine_dir)
    for path in gone:
        path.unlink()
    return gone


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--into", type=Path, default=ROOT / "engine", help="the engine package's folder"
    )
    parser.add_argument("--clean", action="store_true", help="remove the compiled build")
    args = parser.parse_args()
    if args.clean:
        gone = clean(args.into)
        print(f"compile_engine: removed {len(gone)} compiled files; the engine is pure Python")
        return 0
    reason = why_not()
    if reason is not None:
        print(f"compile_engine: {reason}: the engine stays pure Python (same results, slower)")
        return 0
    try:
        put = compile_into(args.into)
    except subprocess.CalledProcessError as exc:
        print(f"compile_engine: the build failed ({exc}): the engine stays pure Python")
        return 1
    print(f"compile_engine: {len(put)} compiled files in {args.into}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
