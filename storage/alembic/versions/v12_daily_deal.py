"""The daily deal (issue 34): the bot's secret the days' deals come from, and one row per
person per day played (its game, and once the day is closed its points and score).

Revision ID: 12
Revises: 11
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Written out here, not imported from storage.schema: a revision never changes.
INT: sa.types.TypeEngine[int] = sa.BigInteger().with_variant(sa.INTEGER(), "sqlite")
REAL: sa.types.TypeEngine[float] = sa.Double().with_variant(sa.REAL(), "sqlite")

revision: str = "12"
down_revision: str | Sequence[str] | None = "11"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "daily_secret",
        sa.Column("id", INT, autoincrement=False, nullable=False),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("created_at", INT, nullable=False),
        sa.CheckConstraint("id = 1", name="daily_secret_id_check"),
        sa.PrimaryKeyConstraint("id", name="daily_secret_pkey"),
    )
    op.create_table(
        "daily_games",
        sa.Column("day", INT, nullable=False),
        sa.Column("user_id", INT, nullable=False),
        sa.Column("game_id", INT, nullable=False),
        sa.Column("started_at", INT, nullable=False),
        sa.Column("points", sa.Text(), nullable=True),
        sa.Column("score", REAL, nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="daily_games_game_id_fkey"),
        sa.PrimaryKeyConstraint("day", "user_id", name="daily_games_pkey"),
        sa.UniqueConstraint("game_id", name="daily_games_game_id_key"),
        sqlite_with_rowid=False,
    )
    op.create_index("daily_games_by_user", "daily_games", ["user_id", "day"], unique=False)


def downgrade() -> None:
    op.drop_index("daily_games_by_user", table_name="daily_games")
    op.drop_table("daily_games")
    op.drop_table("daily_secret")
