"""The screens' state apart from the game's (issue 52.1): ``table_screens``, keyed by the
game, holds what a table's screens keep (message ids, selections, the tracker open, the
hint shown, when each person last pressed), written by the screens; the game's ``meta``
no longer carries it.

Upgrading moves the screens' keys of each game's ``meta["ui"]`` into its row of
``table_screens``; the three keys of ``ui`` that are the table's own (``pending``: who
waits to sit in a lobby; ``deadline``: the turn clock's; ``hints_used``: counted in the
results) stay in ``meta``, at its top level. A live table upgraded so edits the same
messages after the restart.

Revision ID: 16
Revises: 15
Create Date: 2026-12-07
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

# Written out here, not imported from storage.schema: a revision never changes.
INT: sa.types.TypeEngine[int] = sa.BigInteger().with_variant(sa.INTEGER(), "sqlite")

revision: str = "16"
down_revision: str | Sequence[str] | None = "15"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES_OWN = ("pending", "deadline", "hints_used")
"""The keys of the old ``meta["ui"]`` that are the table's, not its screens'."""


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def upgrade() -> None:
    op.create_table(
        "table_screens",
        sa.Column("game_id", INT, autoincrement=False, nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("updated_at", INT, nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="table_screens_game_id_fkey"),
        sa.PrimaryKeyConstraint("game_id", name="table_screens_pkey"),
    )
    bind = op.get_bind()
    now = time.time_ns() // 1_000_000
    metas: list[dict[str, Any]] = []
    screens: list[dict[str, Any]] = []
    found = bind.execute(sa.text("SELECT id, meta FROM games WHERE meta LIKE '%\"ui\"%'"))
    for game_id, text in found:
        meta = json.loads(text)
        ui = meta.pop("ui", None) if isinstance(meta, dict) else None
        if not isinstance(ui, dict):
            continue
        for key in TABLES_OWN:
            if key in ui:
                meta[key] = ui.pop(key)
        metas.append({"id": game_id, "meta": _dumps(meta)})
        screens.append({"game_id": game_id, "state": _dumps(ui), "updated_at": now})
    if metas:
        bind.execute(sa.text("UPDATE games SET meta = :meta WHERE id = :id"), metas)
        bind.execute(
            sa.text(
                "INSERT INTO table_screens (game_id, state, updated_at)"
                " VALUES (:game_id, :state, :updated_at)"
            ),
            screens,
        )


def downgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(
        sa.text(
            "SELECT g.id, g.meta, s.state FROM games g"
            " LEFT JOIN table_screens s ON s.game_id = g.id"
        )
    )
    metas: list[dict[str, Any]] = []
    for game_id, text, state in rows:
        meta = json.loads(text)
        if state is None and not any(key in meta for key in TABLES_OWN):
            continue
        ui = {} if state is None else json.loads(state)
        for key in TABLES_OWN:
            if key in meta:
                ui[key] = meta.pop(key)
        meta["ui"] = ui
        metas.append({"id": game_id, "meta": _dumps(meta)})
    if metas:
        bind.execute(sa.text("UPDATE games SET meta = :meta WHERE id = :id"), metas)
    op.drop_table("table_screens")
