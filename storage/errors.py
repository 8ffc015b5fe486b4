"""The errors storage raises, one type per kind of failure."""

from __future__ import annotations


class StorageError(Exception):
    """Base class of every error raised by `storage`."""


class SchemaTooNew(StorageError):
    """The database was written by a newer version of the bot than this one."""

    def __init__(self, path: str, found: int, known: int) -> None:
        super().__init__(
            f"The database {path} is at schema version {found}, but this version of the bot "
            f"only knows versions up to {known}. Upgrade the bot, or restore a backup made "
            "by this version."
        )
        self.path = path
        self.found = found
        self.known = known


class GameNotFound(StorageError, LookupError):
    """No game has this id."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"There is no game {game_id}.")
        self.game_id = game_id


class WrongGameStatus(StorageError):
    """The operation needs the game in another status (e.g. a move for a finished game)."""

    def __init__(self, game_id: int, status: str, wanted: str) -> None:
        super().__init__(f"Game {game_id} is {status}; this needs it {wanted}.")
        self.game_id = game_id
        self.status = status
        self.wanted = wanted


class SeatTaken(StorageError):
    """A person already sits at another live table (`schema.live_seats`): nobody holds two
    live seats. ``game_id`` is that table's (None if it ended since)."""

    def __init__(self, user_id: int, game_id: int | None) -> None:
        where = "another table" if game_id is None else f"game {game_id}"
        super().__init__(f"User {user_id} already sits at {where}.")
        self.user_id = user_id
        self.game_id = game_id


class DatabaseInUse(StorageError):
    """A restore was refused because something has the target database open."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"The database {path} is in use (the bot or another program has it open). "
            "Stop it before restoring over it."
        )
        self.path = path


class StorageUnavailable(StorageError):
    """The database could not be written or read just now (disk full, an I/O error, a
    lock held too long). Nothing was changed; the same step may succeed when tried again."""
