"""Online backup and a guarded restore, with SQLite's backup API.

`backup_database` copies a live database consistently (one read transaction; in WAL mode
writers carry on meanwhile). `restore_database` copies a backup over a database only when
nothing has that database open.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from .errors import DatabaseInUse, SchemaTooNew, StorageError
from .upgrade import latest_version, sqlite_recorded


def _open_read_only(path: str) -> sqlite3.Connection:
    if not Path(path).is_file():
        raise StorageError(f"There is no database at {path}.")
    return sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True, timeout=5)


def _fsync_directory(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def backup_database(src: str, dest: str) -> None:
    """Copy the database ``src`` (possibly in use) to the file ``dest``, atomically.

    ``dest`` is a self-contained file (rollback-journal mode, no ``-wal`` beside it); it
    appears only once complete, so a crash mid-way leaves no half-written backup.
    """
    target = Path(dest)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    source = _open_read_only(src)
    try:
        copy = sqlite3.connect(partial, isolation_level=None)
        try:
            # pages=-1: the whole database in one step, so one consistent snapshot.
            source.backup(copy, pages=-1)
            copy.execute("PRAGMA journal_mode = DELETE")
            check = copy.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise StorageError(f"The backup of {src} failed its integrity check: {check}.")
        finally:
            copy.close()
    finally:
        source.close()
    with open(partial, "rb+") as handle:
        os.fsync(handle.fileno())
    os.replace(partial, target)
    _fsync_directory(target.parent)


def restore_database(src: str, dest: str) -> None:
    """Replace the database ``dest`` with the backup ``src``.

    Raises `DatabaseInUse` if any connection has ``dest`` open (the bot must be stopped),
    `SchemaTooNew` if the backup is newer than this code, `StorageError` if it is damaged.
    """
    source = _open_read_only(src)
    try:
        check = source.execute("PRAGMA quick_check").fetchone()
        if check is None or check[0] != "ok":
            raise StorageError(f"{src} is damaged ({check}); it was not restored.")
        found = sqlite_recorded(source)
        if found.too_new:
            raise SchemaTooNew(src, found.version, latest_version())
        Path(dest).parent.mkdir(parents=True, exist_ok=True)
        target = sqlite3.connect(dest, isolation_level=None, timeout=0)
        try:
            # Exclusive locking mode keeps the lock from the first write until we close.
            # In WAL mode every open connection holds a shared lock on the WAL index, so
            # this fails at once ("database is locked") while anything has dest open.
            target.execute("PRAGMA locking_mode = EXCLUSIVE")
            try:
                target.execute("BEGIN EXCLUSIVE")
                target.execute("COMMIT")
            except sqlite3.OperationalError as error:
                if "locked" in str(error) or "busy" in str(error):
                    raise DatabaseInUse(dest) from None
                raise
            source.backup(target, pages=-1)
            target.execute("PRAGMA journal_mode = WAL")
        finally:
            target.close()
    finally:
        source.close()
