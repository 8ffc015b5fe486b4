"""One live seat per person (issue 50.3): ``live_seats``, keyed by the person, holds the
one table each person sits at while it is open or playing, whichever bot account serves
it; the journal writes it with the seats, in the same transaction.

A database from before may hold people seated at two live tables at once (an event that
dealt someone sitting in a lobby, a daily deal played beside a group's game). Upgrading
keeps, for each person, their seat at the newest game in progress, else at the newest
lobby; their seats at the other lobbies are emptied (as if they had left them), and a
second game already dealt plays on to its end without them counted there as sitting.

Revision ID: 15
Revises: 14
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Written out here, not imported from storage.schema: a revision never changes.
INT: sa.types.TypeEngine[int] = sa.BigInteger().with_variant(sa.INTEGER(), "sqlite")

revision: str = "15"
down_revision: str | Sequence[str] | None = "14"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Each person's live seats, the one kept first: a game in progress before a lobby, then
# the newest game.
SEATED = sa.text(
    "SELECT s.user_id, s.game_id, g.status FROM game_seats s"
    " JOIN games g ON g.id = s.game_id"
    " WHERE s.user_id IS NOT NULL AND g.status IN ('lobby', 'active')"
    " ORDER BY s.user_id, CASE g.status WHEN 'active' THEN 0 ELSE 1 END, s.game_id DESC"
)


def upgrade() -> None:
    op.create_table(
        "live_seats",
        sa.Column("user_id", INT, autoincrement=False, nullable=False),
        sa.Column("game_id", INT, nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="live_seats_game_id_fkey"),
        sa.PrimaryKeyConstraint("user_id", name="live_seats_pkey"),
    )
    op.create_index("live_seats_by_game", "live_seats", ["game_id"], unique=False)
    bind = op.get_bind()
    kept: dict[int, int] = {}
    emptied: list[dict[str, int]] = []
    for user_id, game_id, status in bind.execute(SEATED):
        if user_id not in kept:
            kept[user_id] = game_id
        elif status == "lobby":
            emptied.append({"user_id": user_id, "game_id": game_id})
    if kept:
        bind.execute(
            sa.text("INSERT INTO live_seats (user_id, game_id) VALUES (:user_id, :game_id)"),
            [{"user_id": u, "game_id": g} for u, g in kept.items()],
        )
    if emptied:
        bind.execute(
            sa.text("DELETE FROM game_seats WHERE user_id = :user_id AND game_id = :game_id"),
            emptied,
        )


def downgrade() -> None:
    op.drop_index("live_seats_by_game", table_name="live_seats")
    op.drop_table("live_seats")
