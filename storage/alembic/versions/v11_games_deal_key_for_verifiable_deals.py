"""A game's deal key: the secret its hands are dealt from, so that each hand's seed can be
revealed when the hand is over and checked against the commitment published before it
(README, "Fair deals"). NULL for the games dealt before, which replay from their seed.

On both databases a plain ``ALTER TABLE games ADD COLUMN`` (SQLite's batch mode adds a
nullable column in place, without copying the table).

Revision ID: 11
Revises: 10
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "11"
down_revision: str | Sequence[str] | None = "10"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("deal_key", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("deal_key")
