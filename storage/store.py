"""`Storage`: the database opened, and its repositories, one per subject."""

from __future__ import annotations

from pathlib import Path

from .accounts import Accounts
from .daily import Daily
from .database import Database, Dialect, Synchronous
from .journal import Journal
from .ledger import Ledger
from .maintenance import Maintenance
from .people import People
from .screens import ScreenStates
from .standings import Standings
from .tournament_store import Tournaments


class Storage:
    """The repositories of one database; closing it closes the database.

    ``games`` (the game journal), ``people`` (users, chats, languages), ``standings``
    (scores and ratings), ``tournaments``, ``daily`` (the daily deal, shared by every
    account), ``ledger`` (handled updates), ``maintenance`` (backup, replay proofs) and
    ``accounts`` (which bot account serves which group), ``screens`` (what each table's
    screens keep: message ids, selections). Every write is committed
    (durable) before its coroutine returns. Open with `storage.open_storage`.

    ``account`` is the bot account this process serves (its Telegram id; 0 for tools and
    tests that serve none): the games, tournaments and handled updates it writes are its
    own, and it resumes only those; people, standings, ratings and languages are shared.
    """

    def __init__(self, database: Database, account: int = 0) -> None:
        self.database = database
        self.account = account
        self.games = Journal(database, account)
        self.people = People(database, account)
        self.standings = Standings(database)
        self.tournaments = Tournaments(database, account)
        self.daily = Daily(database, account)
        self.ledger = Ledger(database, account)
        self.accounts = Accounts(database, account)
        self.screens = ScreenStates(database)
        self.maintenance = Maintenance(database, self.games)

    @classmethod
    async def open(
        cls, where: str | Path, *, synchronous: Synchronous = "NORMAL", account: int = 0
    ) -> Storage:
        storage = cls(await Database.open(where, synchronous=synchronous), account)
        try:
            await storage.accounts.claim_unowned()
        except BaseException:
            await storage.close()
            raise
        return storage

    @property
    def path(self) -> str:
        """The SQLite file, or the PostgreSQL address without its password."""
        return self.database.path

    @property
    def dialect(self) -> Dialect:
        return self.database.dialect

    @property
    def write_failure(self) -> str | None:
        """Why the last write failed (None once a write succeeds again): `/healthz`."""
        return self.database.write_failure

    async def close(self) -> None:
        await self.database.close()

    async def __aenter__(self) -> Storage:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
