"""Bot accounts on one database (issue 35): several bots, each its own process with its own
leader lock, serve from one PostgreSQL database. A group's games and tournaments belong to
the account that serves the group; people, standings, ratings and languages are shared.

- `Accounts.claim_unowned`: rows written before accounts (``account`` 0: games,
  tournaments, handled updates) belong to the first account that opens the upgraded
  database, and so do the groups they were played in. One transaction: two accounts
  starting at once cannot split them.
- `Accounts.serving`: which account serves a group, claimed by the first account used
  there; `Accounts.tell_once`: another account says so there only once.
- `Accounts.introduce`: each account's @username as it last started, so that another
  account can name it.

With one account (SQLite, the default) there is nothing to share: the account is still
written on every row, and resume reads that account's rows only.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, select

from .database import Database, now_ms, rows_changed
from .schema import (
    accounts,
    games,
    handled_updates,
    open_dms,
    served_chats,
    served_chats_told,
    tournaments,
)

UNCLAIMED = 0
"""The ``account`` of a row written before accounts: claimed by the first account."""


@dataclass(frozen=True)
class Serving:
    """The account that serves a chat, and its @username if it has ever started here."""

    account: int
    username: str | None


class Accounts:
    """This account's claims on the shared database: its old rows, its groups, its name."""

    def __init__(self, database: Database, account: int) -> None:
        self._db = database
        self.account = account
        self._served: dict[int, None] = {}
        """Groups this account serves (only its own release changes that); whether
        another serves a group is read each time, as that one may give it up."""

    async def claim_unowned(self) -> int:
        """Claim every row written before accounts, and the groups their games are in;
        returns how many games were claimed (0 once claimed, or with account 0)."""
        if self.account == UNCLAIMED:
            return 0
        now = now_ms()
        account = self.account
        served = self._db.insert(served_chats).on_conflict_do_nothing()

        def claim(db: Connection) -> int:
            groups = db.execute(
                select(games.c.chat_id)
                .where(games.c.account == UNCLAIMED, games.c.chat_id < 0)
                .union(
                    select(tournaments.c.chat_id).where(
                        tournaments.c.account == UNCLAIMED, tournaments.c.chat_id < 0
                    )
                )
            ).all()
            claimed = db.execute(
                games.update().where(games.c.account == UNCLAIMED).values(account=account)
            ).rowcount
            for table in (tournaments, handled_updates, open_dms):
                db.execute(
                    table.update().where(table.c.account == UNCLAIMED).values(account=account)
                )
            if groups:
                db.execute(
                    served,
                    [
                        {"chat_id": int(chat), "account": account, "claimed_at": now}
                        for (chat,) in groups
                    ],
                )
            return int(claimed)

        return await self._db.transact(claim)

    async def introduce(self, username: str) -> None:
        """Record this account's @username (as getMe gives it), for others to name it."""
        insert = self._db.insert(accounts)
        statement = insert.on_conflict_do_update(
            index_elements=[accounts.c.account],
            set_={"username": insert.excluded.username, "seen_at": insert.excluded.seen_at},
        )
        row = {"account": self.account, "username": username, "seen_at": now_ms()}
        await self._db.transact(rows_changed, statement, row)

    async def serving(self, chat_id: int) -> int:
        """The account that serves the group `chat_id`: this one, if none did before
        (the claim is made now, and lasts until this account is removed from the group)."""
        if chat_id in self._served:
            return self.account
        rows = await self._db.read(
            select(served_chats.c.account).where(served_chats.c.chat_id == chat_id)
        )
        if rows:
            found = int(rows[0][0])
            if found == self.account:
                self._served[chat_id] = None
            return found
        claim = self._db.insert(served_chats).on_conflict_do_nothing()
        row = {"chat_id": chat_id, "account": self.account, "claimed_at": now_ms()}

        def serving(db: Connection) -> int:
            db.execute(claim, row)
            return int(
                db.execute(
                    select(served_chats.c.account).where(served_chats.c.chat_id == chat_id)
                ).scalar_one()
            )

        found = await self._db.transact(serving)
        if int(found) == self.account:
            self._served[chat_id] = None
        return int(found)

    async def who_serves(self, chat_id: int) -> Serving | None:
        """The account that serves `chat_id` and its name, without claiming it."""
        rows = await self._db.read(
            select(served_chats.c.account, accounts.c.username)
            .select_from(served_chats)
            .outerjoin(accounts, accounts.c.account == served_chats.c.account)
            .where(served_chats.c.chat_id == chat_id)
        )
        if not rows:
            return None
        account, username = rows[0]
        return Serving(int(account), username)

    async def tell_once(self, chat_id: int) -> bool:
        """Whether this account is to say, now, which account serves `chat_id`: True
        the first time only (stored, so a restart does not say it again)."""
        told = self._db.insert(served_chats_told).on_conflict_do_nothing()
        row = {"chat_id": chat_id, "account": self.account, "told_at": now_ms()}
        return bool(await self._db.transact(rows_changed, told, row))

    async def release(self, chat_id: int) -> None:
        """Give up the group `chat_id` (this account was removed from it): the next
        account used there claims it, and any other may say so again."""
        account = self.account

        def release(db: Connection) -> None:
            db.execute(
                served_chats.delete().where(
                    served_chats.c.chat_id == chat_id, served_chats.c.account == account
                )
            )
            db.execute(served_chats_told.delete().where(served_chats_told.c.chat_id == chat_id))

        await self._db.transact(release)
        self._served.pop(chat_id, None)
