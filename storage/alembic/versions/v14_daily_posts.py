"""The daily deal's posts to a person's groups (issue 34.3): one row per person, day and
group the card of the day was posted to, so that it is posted there once.

Revision ID: 14
Revises: 12 (13 on the branch that adds it: point this at 13 when both are merged)
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Written out here, not imported from storage.schema: a revision never changes.
INT: sa.types.TypeEngine[int] = sa.BigInteger().with_variant(sa.INTEGER(), "sqlite")

revision: str = "14"
down_revision: str | Sequence[str] | None = "13"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "daily_posts",
        sa.Column("day", INT, nullable=False),
        sa.Column("user_id", INT, nullable=False),
        sa.Column("chat_id", INT, nullable=False),
        sa.Column("posted_at", INT, nullable=False),
        sa.PrimaryKeyConstraint("day", "user_id", "chat_id", name="daily_posts_pkey"),
        sqlite_with_rowid=False,
    )


def downgrade() -> None:
    op.drop_table("daily_posts")
