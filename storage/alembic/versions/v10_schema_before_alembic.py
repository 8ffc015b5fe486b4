"""The schema of version 10, the last before Alembic: every table from nothing.

A database written before Alembic is brought to version 10 by its own frozen steps
(`storage.legacy_migrations`) and stamped here instead of running this.

Revision ID: 10
Revises:
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "10"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out here, not imported from storage.schema: a revision never changes.
INT: sa.types.TypeEngine[int] = sa.BigInteger().with_variant(sa.INTEGER(), "sqlite")
REAL: sa.types.TypeEngine[float] = sa.Double[float]().with_variant(sa.REAL(), "sqlite")
ROWID: dict[str, Any] = {"sqlite_with_rowid": False}


def column(
    name: str, kind: Any, *args: Any, default: str | None = None, **kw: Any
) -> sa.Column[Any]:
    """A column, NOT NULL unless ``nullable=True``."""
    kw.setdefault("nullable", False)
    server_default = sa.text(default) if default is not None else None
    return sa.Column(name, kind, *args, server_default=server_default, **kw)


def key(name: str, *args: Any) -> sa.Column[Any]:
    return column(name, INT, *args, primary_key=True, autoincrement=False)


def check(sql: str, name: str) -> sa.CheckConstraint:
    return sa.CheckConstraint(sql, name=name)


def index(name: str, table: str, columns: list[Any], where: str | None = None, **kw: Any) -> None:
    if where is not None:
        kw["sqlite_where"] = kw["postgresql_where"] = sa.text(where)
    op.create_index(name, table, columns, **kw)


JOURNAL_GUARD = {
    "sqlite": (
        """
        CREATE TRIGGER moves_are_never_changed BEFORE UPDATE ON moves
        BEGIN SELECT RAISE(ABORT, 'the move journal is append-only'); END
        """,
        """
        CREATE TRIGGER moves_are_never_deleted BEFORE DELETE ON moves
        BEGIN SELECT RAISE(ABORT, 'the move journal is append-only'); END
        """,
    ),
    "postgresql": (
        """
        CREATE FUNCTION moves_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'the move journal is append-only';
        END $$
        """,
        """
        CREATE TRIGGER moves_are_never_changed BEFORE UPDATE OR DELETE ON moves
            FOR EACH ROW EXECUTE FUNCTION moves_are_append_only()
        """,
        """
        CREATE TRIGGER moves_are_never_truncated BEFORE TRUNCATE ON moves
            FOR EACH STATEMENT EXECUTE FUNCTION moves_are_append_only()
        """,
    ),
}
"""The move journal is append-only: every UPDATE and DELETE refused (on PostgreSQL, TRUNCATE
too; SQLite has none)."""


def upgrade() -> None:
    op.create_table(
        "chats",
        key("chat_id"),
        column("rules", sa.Text()),
        column("turn_timer_s", INT),
        column("computer_level", sa.Text()),
        column("track_cards", INT),
        column("updated_at", INT),
        column("hints", INT, default="1"),
        sa.PrimaryKeyConstraint("chat_id", name="chats_pkey"),
    )
    op.create_table(
        "users",
        key("user_id"),
        column("display_name", sa.Text()),
        column("username", sa.Text(), nullable=True),
        column("dm_open", INT, default="0"),
        column("updated_at", INT),
        sa.PrimaryKeyConstraint("user_id", name="users_pkey"),
    )
    op.create_table(
        "games",
        column("id", INT, sa.Identity(), primary_key=True),
        column("chat_id", INT),
        column("thread_id", INT, nullable=True),
        column("creator_id", INT),
        column(
            "status",
            sa.Text(),
            check(
                "status IN ('lobby', 'active', 'finished', 'cancelled', 'quarantined')",
                "games_status_check",
            ),
        ),
        column("rules", sa.Text()),
        column("seed", INT, nullable=True),
        column("first_dealer", INT, nullable=True),
        column("dealer_from_seed", INT, default="0"),
        column("fixed_deals", sa.Text(), default="'[]'"),
        column("meta", sa.Text(), default="'{}'"),
        column("snapshot", sa.Text(), nullable=True),
        column("last_seq", INT, default="0"),
        column("hands_recorded", INT, default="0"),
        column("winners", sa.Text(), nullable=True),
        column("quarantine_reason", sa.Text(), nullable=True),
        column("created_at", INT),
        column("started_at", INT, nullable=True),
        column("finished_at", INT, nullable=True),
        column("tournament_id", INT, nullable=True),
        column("join_token", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="games_pkey"),
    )
    index("games_open_by_chat", "games", ["chat_id", "thread_id"], "status IN ('lobby', 'active')")
    index("games_by_status", "games", ["status"])
    index("games_by_join_token", "games", ["join_token"], unique=True)
    index("games_by_tournament", "games", ["tournament_id"], "tournament_id IS NOT NULL")
    op.create_table(
        "game_seats",
        column("game_id", INT),
        column("seat", INT),
        column("kind", sa.Text(), check("kind IN ('human', 'computer')", "game_seats_kind_check")),
        column("user_id", INT, nullable=True),
        column("display_name", sa.Text()),
        column("computer_level", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("game_id", "seat", name="game_seats_pkey"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="game_seats_game_id_fkey"),
        check("(kind = 'human') = (user_id IS NOT NULL)", "game_seats_check"),
        **ROWID,
    )
    index("game_seats_by_user", "game_seats", ["user_id", "game_id"], "user_id IS NOT NULL")
    op.create_table(
        "moves",
        column("game_id", INT),
        column("seq", INT, check("seq >= 1", "moves_seq_check")),
        column("move", sa.Text()),
        column("created_at", INT),
        sa.PrimaryKeyConstraint("game_id", "seq", name="moves_pkey"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="moves_game_id_fkey"),
        **ROWID,
    )
    for statement in JOURNAL_GUARD[op.get_bind().dialect.name]:
        op.execute(statement)
    op.create_table(
        "hand_points",
        column("game_id", INT),
        column("hand_number", INT),
        column("seat", INT),
        column("points_re", INT),
        column("points_im", INT),
        column("total_re", INT),
        column("total_im", INT),
        column("shot_moon", INT),
        sa.PrimaryKeyConstraint("game_id", "hand_number", "seat", name="hand_points_pkey"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="hand_points_game_id_fkey"),
        **ROWID,
    )
    op.create_table(
        "game_results",
        column("game_id", INT),
        column("seat", INT),
        column("chat_id", INT),
        column("user_id", INT, nullable=True),
        column(
            "score_kind",
            sa.Text(),
            check("score_kind IN ('points', 'complex')", "game_results_score_kind_check"),
        ),
        column("players", INT),
        column("total_re", INT),
        column("total_im", INT),
        column("rank_key", INT),
        column("place", INT),
        column("won", INT),
        column("hands", INT),
        column("moons", INT),
        column("finished_at", INT),
        sa.PrimaryKeyConstraint("game_id", "seat", name="game_results_pkey"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="game_results_game_id_fkey"),
        **ROWID,
    )
    standing = ["won", "hands", "total_re", "total_im", "moons", "rank_key"]
    people = "user_id IS NOT NULL"
    index("game_results_overall", "game_results", ["score_kind", "user_id", *standing], people)
    index(
        "game_results_by_chat",
        "game_results",
        ["score_kind", "chat_id", "user_id", *standing],
        people,
    )
    index("game_results_history", "game_results", ["user_id", "finished_at"], people)
    op.create_table(
        "tournaments",
        column("id", INT, sa.Identity(), primary_key=True),
        column("chat_id", INT),
        column("thread_id", INT, nullable=True),
        column("organiser_id", INT),
        column("organiser_name", sa.Text()),
        column("name", sa.Text()),
        column("rules", sa.Text()),
        column("options", sa.Text()),
        column("time_zone", sa.Text()),
        column("starts_at", INT, nullable=True),
        column("registration_deadline", INT, nullable=True),
        column(
            "status",
            sa.Text(),
            check(
                "status IN ('registration', 'running', 'paused', 'finished', 'cancelled')",
                "tournaments_status_check",
            ),
        ),
        column("current_round", INT, default="0"),
        column("state", sa.Text(), default="'{}'"),
        column("created_at", INT),
        column("finished_at", INT, nullable=True),
        sa.PrimaryKeyConstraint("id", name="tournaments_pkey"),
    )
    index(
        "tournaments_open",
        "tournaments",
        ["status"],
        "status IN ('registration', 'running', 'paused')",
    )
    index("tournaments_by_chat", "tournaments", ["chat_id", "thread_id", "id"])
    op.create_table(
        "tournament_registrations",
        column("tournament_id", INT),
        column("user_id", INT),
        column("display_name", sa.Text()),
        column("username", sa.Text(), nullable=True),
        column(
            "status",
            sa.Text(),
            check(
                "status IN ('pending', 'registered', 'withdrawn', 'removed', 'eliminated')",
                "tournament_registrations_status_check",
            ),
        ),
        column("registered_at", INT),
        column("final_place", INT, nullable=True),
        sa.PrimaryKeyConstraint("tournament_id", "user_id", name="tournament_registrations_pkey"),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="tournament_registrations_tournament_id_fkey",
        ),
        **ROWID,
    )
    op.create_table(
        "tournament_tables",
        column("tournament_id", INT),
        column("round", INT, check("round >= 1", "tournament_tables_round_check")),
        column("table_no", INT, check("table_no >= 1", "tournament_tables_table_no_check")),
        column("seed", INT),
        column("game_id", INT, nullable=True),
        column(
            "status",
            sa.Text(),
            check(
                "status IN ('playing', 'finished', 'cancelled')", "tournament_tables_status_check"
            ),
        ),
        sa.PrimaryKeyConstraint(
            "tournament_id", "round", "table_no", name="tournament_tables_pkey"
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name="tournament_tables_tournament_id_fkey"
        ),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="tournament_tables_game_id_fkey"),
        **ROWID,
    )
    op.create_table(
        "tournament_seats",
        column("tournament_id", INT),
        column("round", INT),
        column("table_no", INT),
        column("seat", INT),
        column("user_id", INT, nullable=True),
        column("display_name", sa.Text()),
        column("present", INT, default="0"),
        column("no_show", INT, default="0"),
        column("place", INT, nullable=True),
        column("total_re", INT, nullable=True),
        column("total_im", INT, nullable=True),
        column("advanced", INT, default="0"),
        sa.PrimaryKeyConstraint(
            "tournament_id", "round", "table_no", "seat", name="tournament_seats_pkey"
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id", "round", "table_no"],
            [
                "tournament_tables.tournament_id",
                "tournament_tables.round",
                "tournament_tables.table_no",
            ],
            name="tournament_seats_tournament_id_round_table_no_fkey",
        ),
        **ROWID,
    )
    op.create_table(
        "tournament_claims",
        column("tournament_id", INT),
        column("kind", sa.Text()),
        column("message_id", INT, nullable=True),
        column("claimed_at", INT),
        sa.PrimaryKeyConstraint("tournament_id", "kind", name="tournament_claims_pkey"),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name="tournament_claims_tournament_id_fkey"
        ),
        **ROWID,
    )
    op.create_table(
        "person_languages",
        key("user_id"),
        column("chosen", sa.Text(), default="''"),
        column("app", sa.Text(), default="''"),
        column("updated_at", INT),
        sa.PrimaryKeyConstraint("user_id", name="person_languages_pkey"),
    )
    op.create_table(
        "chat_languages",
        key("chat_id"),
        column("chosen", sa.Text(), default="''"),
        column("first", sa.Text(), default="''"),
        column("updated_at", INT),
        sa.PrimaryKeyConstraint("chat_id", name="chat_languages_pkey"),
    )
    op.create_table(
        "ratings",
        column("pool", sa.Text(), check("pool IN ('main', 'two')", "ratings_pool_check")),
        column("chat_id", INT),
        column("player", INT),
        column("mu", REAL),
        column("sigma", REAL),
        column("games", INT),
        column("updated_at", INT),
        sa.PrimaryKeyConstraint("pool", "chat_id", "player", name="ratings_pkey"),
        **ROWID,
    )
    # The leaderboard and a player's place read this index, best first.
    index("ratings_board", "ratings", ["pool", "chat_id", sa.text("(mu - 3 * sigma) DESC")])
    op.create_table(
        "rated_games",
        key("game_id"),
        column("seq", INT),
        column("pool", sa.Text()),
        column("rated_at", INT),
        sa.PrimaryKeyConstraint("game_id", name="rated_games_pkey"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="rated_games_game_id_fkey"),
        sa.UniqueConstraint("seq", name="rated_games_seq_key"),
    )
    op.create_table(
        "rating_changes",
        column("game_id", INT),
        column("chat_id", INT),
        column("player", INT),
        column("pool", sa.Text()),
        column("seat", INT),
        column("weight", REAL),
        column("mu_before", REAL),
        column("sigma_before", REAL),
        column("mu_after", REAL),
        column("sigma_after", REAL),
        sa.PrimaryKeyConstraint("game_id", "chat_id", "player", name="rating_changes_pkey"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="rating_changes_game_id_fkey"),
        **ROWID,
    )
    index("rating_changes_history", "rating_changes", ["player", "pool", "chat_id", "game_id"])
    op.create_table(
        "handled_updates",
        key("update_id"),
        column("handled_at", INT),
        column("callback_id", sa.Text(), nullable=True),
        column("answer", sa.Text(), nullable=True),
        column("answered_at", INT, nullable=True),
        sa.PrimaryKeyConstraint("update_id", name="handled_updates_pkey"),
    )
    index(
        "handled_unanswered",
        "handled_updates",
        ["handled_at"],
        "callback_id IS NOT NULL AND answered_at IS NULL",
    )


def downgrade() -> None:
    raise NotImplementedError("The first revision is not undone: restore a backup instead.")
