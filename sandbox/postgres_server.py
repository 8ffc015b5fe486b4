"""A real PostgreSQL server for the tests and benchmarks: Debian's ``postgresql`` package,
``initdb`` into a temporary folder, ``pg_ctl`` on a free port of 127.0.0.1, removed
afterwards. (Its own programs only: the database driver stays in `storage`.)

Run as root (CI, containers), the server runs as the ``postgres`` user, as PostgreSQL
requires. Without the package the tests that need it fail with a sentence saying how to
install it: no test ever stands in a mock for the database.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

USER = "hearts"
PASSWORD = "table-stakes"
"""The server asks for it over TCP (scram-sha-256), so a wrong one is refused for real."""


def pg_bin(name: str) -> str | None:
    """Where the server's program `name` is (Debian keeps them out of PATH)."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)
    return found[0] if found else shutil.which(name)


class PostgresServer:
    """One throwaway server; `database` gives each test a database of its own."""

    def __init__(self, *, fsync: bool = True) -> None:
        """``fsync=False`` (the tests' server): a commit is written to the system before it
        is acknowledged, as always, but not forced to the disk. A killed server or a killed
        client loses nothing acknowledged, which is what the tests check; only a power cut
        could, which no test makes. It saves the disk's flush on every commit."""
        initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
        if initdb is None or pg_ctl is None:
            raise RuntimeError(
                "These tests need a PostgreSQL server: apt-get install -y postgresql "
                "(.ci/run installs it). No database is mocked."
            )
        self.pg_ctl = pg_ctl
        self.root = Path(tempfile.mkdtemp(prefix="hearts-pg-"))
        self.run_as: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self.run_as = ["runuser", "-u", "postgres", "--"]
        self.data = self.root / "data"
        self.fsync = fsync
        self.port = _free_port()
        self._names = itertools.count(1)
        secret = self.root / "password"
        secret.write_text(PASSWORD)
        if self.run_as:
            os.chown(secret, owner.pw_uid, owner.pw_gid)
        self._run(
            initdb,
            "-D",
            str(self.data),
            "-U",
            USER,
            f"--pwfile={secret}",
            "--auth-host=scram-sha-256",
            "--auth-local=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        self.start()

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
        if not self.fsync:
            options += " -c fsync=off"
        log = str(self.root / "log")
        self._run(self.pg_ctl, "-D", str(self.data), "-o", options, "-l", log, "-w", "start")

    def crash(self) -> None:
        """Stop the server as a power cut would: no checkpoint, no clean shutdown."""
        self._run(self.pg_ctl, "-D", str(self.data), "-m", "immediate", "stop")

    def _run(self, *command: str) -> None:
        subprocess.run([*self.run_as, *command], check=True, capture_output=True)

    @property
    def url(self) -> str:
        return f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/postgres"

    async def database(self, template: str | None = None) -> str:
        """A new database on this server, its URL: empty, or a copy of the database at
        ``template`` (a URL this method gave, with nobody connected to it)."""
        name = f"test_{os.getpid()}_{next(self._names)}"
        createdb = pg_bin("createdb")
        assert createdb is not None
        copy = ["--template", template.rsplit("/", 1)[1]] if template else []
        self._run(createdb, "-h", str(self.root), "-p", str(self.port), "-U", USER, *copy, name)
        return f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        """Stop the server at once, and remove its folder in the background: after a test
        run it holds hundreds of MB (a database per test), whose removal took 30 s of the
        run's end on a busy two-core machine."""
        subprocess.run(
            [*self.run_as, self.pg_ctl, "-D", str(self.data), "-m", "immediate", "stop"],
            capture_output=True,
        )
        gone = self.root.with_name(self.root.name + "-removed")
        try:
            self.root.rename(gone)
        except OSError:
            shutil.rmtree(self.root, ignore_errors=True)
            return
        subprocess.Popen(
            ["rm", "-rf", "--", str(gone)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # outlives this process: nobody waits for it
        )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
