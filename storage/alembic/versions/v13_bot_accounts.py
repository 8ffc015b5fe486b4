"""Several bot accounts on one database (issue 35): the account that serves each game and
tournament, each account's own handled updates (update ids are per bot), and which
account serves which group.

- ``games.account``, ``tournaments.account``: NOT NULL, default 0. A row with 0 was
  written before accounts; the first account that opens the upgraded database claims them
  all (`storage.accounts.Accounts.claim_unowned`), and the groups they were played in.
- ``handled_updates`` keyed by (account, update_id) (SQLite's batch mode copies the table;
  PostgreSQL changes its key in place). Its rows from before are claimed the same way.
- ``accounts`` (each account's @username as it last started), ``served_chats`` (which
  account serves a group) and ``served_chats_told`` (another account said so there, once).
- ``open_dms``: who opened a private chat with which account (a DM opened with one bot is
  closed to another), filled from ``users.dm_open`` for the first account.

Revision ID: 13
Revises: 11 here; 12 (the daily deal's, on another branch) once both are merged
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "13"
down_revision: str | Sequence[str] | None = "12"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INT = sa.BigInteger().with_variant(sa.INTEGER(), "sqlite")


def _account() -> sa.Column[int]:
    return sa.Column("account", INT, nullable=False, server_default=sa.text("0"))


def _handled_updates(name: str) -> sa.Table:
    return sa.Table(
        name,
        sa.MetaData(),
        sa.Column("update_id", INT, nullable=False),
        sa.Column("handled_at", INT, nullable=False),
        sa.Column("callback_id", sa.Text(), nullable=True),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("answered_at", INT, nullable=True),
        _account(),
        sa.PrimaryKeyConstraint("account", "update_id", name="handled_updates_pkey"),
    )


UNANSWERED = "callback_id IS NOT NULL AND answered_at IS NULL"


def upgrade() -> None:
    # A plain ADD COLUMN on both databases: a constant default needs no copy of the table
    # (batch mode would copy it, and lose the CHECKs a version 10 SQLite file left unnamed).
    for table in ("games", "tournaments"):
        op.add_column(table, _account())
    op.create_index(
        "games_open_by_account",
        "games",
        ["account"],
        unique=False,
        sqlite_where=sa.text("status IN ('lobby', 'active')"),
        postgresql_where=sa.text("status IN ('lobby', 'active')"),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.add_column("handled_updates", _account())
        op.drop_constraint("handled_updates_pkey", "handled_updates", type_="primary")
        op.create_primary_key("handled_updates_pkey", "handled_updates", ["account", "update_id"])
    else:  # SQLite changes no key in place: the rows go to a new table, keyed anew
        new = _handled_updates("handled_updates_keyed")
        new.create(op.get_bind())
        columns = ["update_id", "handled_at", "callback_id", "answer", "answered_at"]
        old = sa.table("handled_updates", *(sa.column(c) for c in columns))
        op.execute(new.insert().from_select(columns, sa.select(*old.c)))
        op.drop_index("handled_unanswered", table_name="handled_updates")
        op.drop_table("handled_updates")
        op.rename_table("handled_updates_keyed", "handled_updates")
        op.create_index(
            "handled_unanswered",
            "handled_updates",
            ["handled_at"],
            unique=False,
            sqlite_where=sa.text(UNANSWERED),
        )
    op.create_table(
        "accounts",
        sa.Column("account", INT, autoincrement=False, nullable=False),
        sa.Column("username", sa.Text(), nullable=False),
        sa.Column("seen_at", INT, nullable=False),
        sa.PrimaryKeyConstraint("account", name="accounts_pkey"),
    )
    op.create_table(
        "served_chats",
        sa.Column("chat_id", INT, autoincrement=False, nullable=False),
        sa.Column("account", INT, nullable=False),
        sa.Column("claimed_at", INT, nullable=False),
        sa.PrimaryKeyConstraint("chat_id", name="served_chats_pkey"),
    )
    op.create_table(
        "open_dms",
        sa.Column("account", INT, nullable=False),
        sa.Column("user_id", INT, nullable=False),
        sa.Column("opened_at", INT, nullable=False),
        sa.PrimaryKeyConstraint("account", "user_id", name="open_dms_pkey"),
        sqlite_with_rowid=False,
    )
    # The DMs opened before accounts: the first account's (claimed from account 0).
    op.execute(
        "INSERT INTO open_dms (account, user_id, opened_at)"
        " SELECT 0, user_id, updated_at FROM users WHERE dm_open = 1"
    )
    op.create_table(
        "served_chats_told",
        sa.Column("chat_id", INT, nullable=False),
        sa.Column("account", INT, nullable=False),
        sa.Column("told_at", INT, nullable=False),
        sa.PrimaryKeyConstraint("chat_id", "account", name="served_chats_told_pkey"),
        sqlite_with_rowid=False,
    )


def downgrade() -> None:
    op.drop_table("served_chats_told")
    op.drop_table("open_dms")
    op.drop_table("served_chats")
    op.drop_table("accounts")
    # Only one account's updates fit the old key: the others' go.
    op.execute(
        sa.text(
            "DELETE FROM handled_updates"
            " WHERE account <> (SELECT MIN(account) FROM handled_updates)"
        )
    )
    with op.batch_alter_table("handled_updates", schema=None, recreate="always") as batch_op:
        batch_op.drop_column("account")
        batch_op.create_primary_key("handled_updates_pkey", ["update_id"])
    op.drop_index("games_open_by_account", table_name="games")
    for table in ("tournaments", "games"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("account")
