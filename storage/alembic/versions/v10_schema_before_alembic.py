"""The schema of version 10, the last before Alembic: every table from nothing, or from a
database a release before Alembic wrote.

Such a database (SQLite's ``user_version`` 1-9, PostgreSQL's ``schema_version`` 8-9; at
10 it is already this schema) is brought here by the steps those releases ran after its
version (`SQLITE_STEPS`, `POSTGRES_STEPS`), frozen, in this revision's transaction, its
data kept. The schemas those releases created are test fixtures
(``tests/storage/pre_alembic_schemas.py``), each upgraded to the head by the tests.

Revision ID: 10
Revises:
Create Date: 2026-11-25
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Final

import sqlalchemy as sa
from alembic import op

from storage.errors import StorageError

revision: str = "10"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger(__name__)

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
    bind = op.get_bind()
    version = _version_before_alembic(bind)
    if version:
        _upgrade_from(bind, version)
    else:
        _create()


def _version_before_alembic(bind: sa.Connection) -> int:
    """The version a release before Alembic recorded (0: none, an empty database)."""
    if bind.dialect.name == "sqlite":
        return int(bind.exec_driver_sql("PRAGMA user_version").scalar_one())
    if not sa.inspect(bind).has_table("schema_version"):
        return 0
    return int(bind.exec_driver_sql("SELECT version FROM schema_version").scalar() or 0)


def _upgrade_from(bind: sa.Connection, version: int) -> None:
    """The steps after `version`, as the releases before Alembic ran them."""
    if bind.dialect.name == "sqlite":
        steps = SQLITE_STEPS
    elif version < POSTGRES_FIRST_VERSION:
        raise StorageError(
            f"schema_version {version} was never written on PostgreSQL: not the bot's database."
        )
    else:
        steps = POSTGRES_STEPS
    for number in sorted(v for v in steps if v > version):
        for statement in steps[number]:
            bind.exec_driver_sql(statement)
        log.info("schema upgraded to pre-Alembic version %d", number)


def _create() -> None:
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


# ---------------------------------------------------------------- from before Alembic

SQLITE_STEPS: Final[dict[int, tuple[str, ...]]] = {
    # room for events (tournaments): games.event_id
    2: (
        "ALTER TABLE games ADD COLUMN event_id INTEGER",
        "CREATE INDEX games_by_event ON games (event_id) WHERE event_id IS NOT NULL",
    ),
    # events: registrations, rounds, table draws, reminders sent
    3: (
        """
        CREATE TABLE events (
            id                    INTEGER PRIMARY KEY,
            chat_id               INTEGER NOT NULL,
            thread_id             INTEGER,
            organiser_id          INTEGER NOT NULL,
            organiser_name        TEXT    NOT NULL,
            name                  TEXT    NOT NULL,
            rules                 TEXT    NOT NULL,
            options               TEXT    NOT NULL,
            time_zone             TEXT    NOT NULL,
            starts_at             INTEGER,
            registration_deadline INTEGER,
            status                TEXT    NOT NULL CHECK (status IN
                                      ('registration', 'running', 'paused', 'finished',
                                       'cancelled')),
            current_round         INTEGER NOT NULL DEFAULT 0,
            meta                  TEXT    NOT NULL DEFAULT '{}',
            created_at            INTEGER NOT NULL,
            finished_at           INTEGER
        )
        """,
        "CREATE INDEX events_open ON events (status)"
        " WHERE status IN ('registration', 'running', 'paused')",
        "CREATE INDEX events_by_chat ON events (chat_id, thread_id, id)",
        """
        CREATE TABLE event_registrations (
            event_id      INTEGER NOT NULL REFERENCES events (id),
            user_id       INTEGER NOT NULL,
            display_name  TEXT    NOT NULL,
            username      TEXT,
            status        TEXT    NOT NULL CHECK (status IN
                              ('pending', 'registered', 'withdrawn', 'removed', 'eliminated')),
            registered_at INTEGER NOT NULL,
            final_place   INTEGER,
            PRIMARY KEY (event_id, user_id)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE event_tables (
            event_id INTEGER NOT NULL REFERENCES events (id),
            round    INTEGER NOT NULL CHECK (round >= 1),
            table_no INTEGER NOT NULL CHECK (table_no >= 1),
            seed     INTEGER NOT NULL,
            game_id  INTEGER REFERENCES games (id),
            status   TEXT    NOT NULL CHECK (status IN ('playing', 'finished', 'cancelled')),
            PRIMARY KEY (event_id, round, table_no)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE event_seats (
            event_id     INTEGER NOT NULL,
            round        INTEGER NOT NULL,
            table_no     INTEGER NOT NULL,
            seat         INTEGER NOT NULL,
            user_id      INTEGER,
            display_name TEXT    NOT NULL,
            present      INTEGER NOT NULL DEFAULT 0,
            no_show      INTEGER NOT NULL DEFAULT 0,
            place        INTEGER,
            total_re     INTEGER,
            total_im     INTEGER,
            advanced     INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (event_id, round, table_no, seat),
            FOREIGN KEY (event_id, round, table_no)
                REFERENCES event_tables (event_id, round, table_no)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE event_reminders (
            event_id   INTEGER NOT NULL REFERENCES events (id),
            kind       TEXT    NOT NULL,
            message_id INTEGER,
            sent_at    INTEGER NOT NULL,
            PRIMARY KEY (event_id, kind)
        ) WITHOUT ROWID
        """,
    ),
    # games.join_token: the unguessable id of a table in its /start links
    4: (
        "ALTER TABLE games ADD COLUMN join_token TEXT",
        # Tables from before get a token too (18 random hex digits: 72 bits, like
        # secrets.token_urlsafe(9)); links they showed with the row id stop working.
        "UPDATE games SET join_token = lower(hex(randomblob(9)))",
        "CREATE UNIQUE INDEX games_by_join_token ON games (join_token)",
    ),
    # tournaments are tournaments (events are the engine's); their state is typed JSON
    5: (
        "ALTER TABLE events RENAME TO tournaments",
        "ALTER TABLE event_registrations RENAME TO tournament_registrations",
        "ALTER TABLE event_tables RENAME TO tournament_tables",
        "ALTER TABLE event_seats RENAME TO tournament_seats",
        "ALTER TABLE event_reminders RENAME TO tournament_claims",
        "ALTER TABLE tournament_registrations RENAME COLUMN event_id TO tournament_id",
        "ALTER TABLE tournament_tables RENAME COLUMN event_id TO tournament_id",
        "ALTER TABLE tournament_seats RENAME COLUMN event_id TO tournament_id",
        "ALTER TABLE tournament_claims RENAME COLUMN event_id TO tournament_id",
        "ALTER TABLE tournament_claims RENAME COLUMN sent_at TO claimed_at",
        "ALTER TABLE games RENAME COLUMN event_id TO tournament_id",
        "DROP INDEX games_by_event",
        "CREATE INDEX games_by_tournament ON games (tournament_id) WHERE tournament_id IS NOT NULL",
        "DROP INDEX events_open",
        "CREATE INDEX tournaments_open ON tournaments (status)"
        " WHERE status IN ('registration', 'running', 'paused')",
        "DROP INDEX events_by_chat",
        "CREATE INDEX tournaments_by_chat ON tournaments (chat_id, thread_id, id)",
        "ALTER TABLE tournaments RENAME COLUMN meta TO state",
        # Version 1 of the state: "next" (who goes on) is "advancing"; the rest keeps its name.
        "UPDATE tournaments SET state = json_set(json_remove(state, '$.next'),"
        " '$.v', 1, '$.advancing', json(coalesce(json_extract(state, '$.next'), '[]')))",
    ),
    # languages: a person's choice and their app's; a group's admin's, its first opener's
    6: (
        # chats.language was always "en" and never chosen (no /language existed).
        "ALTER TABLE chats DROP COLUMN language",
        """
        CREATE TABLE person_languages (
            user_id    INTEGER PRIMARY KEY,
            chosen     TEXT    NOT NULL DEFAULT '',
            app        TEXT    NOT NULL DEFAULT '',
            updated_at INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE chat_languages (
            chat_id    INTEGER PRIMARY KEY,
            chosen     TEXT    NOT NULL DEFAULT '',
            first      TEXT    NOT NULL DEFAULT '',
            updated_at INTEGER NOT NULL
        )
        """,
    ),
    # ratings: per pool and scope, each game's change to each player, the order rated in
    7: (
        """
        CREATE TABLE ratings (
            pool       TEXT    NOT NULL CHECK (pool IN ('main', 'two')),
            chat_id    INTEGER NOT NULL,
            player     INTEGER NOT NULL,
            mu         REAL    NOT NULL,
            sigma      REAL    NOT NULL,
            games      INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (pool, chat_id, player)
        ) WITHOUT ROWID
        """,
        # The leaderboard and a player's place read this index, best first.
        "CREATE INDEX ratings_board ON ratings (pool, chat_id, (mu - 3 * sigma) DESC)",
        """
        CREATE TABLE rated_games (
            game_id  INTEGER PRIMARY KEY REFERENCES games (id),
            seq      INTEGER NOT NULL UNIQUE,
            pool     TEXT    NOT NULL,
            rated_at INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE rating_changes (
            game_id      INTEGER NOT NULL REFERENCES games (id),
            chat_id      INTEGER NOT NULL,
            player       INTEGER NOT NULL,
            pool         TEXT    NOT NULL,
            seat         INTEGER NOT NULL,
            weight       REAL    NOT NULL,
            mu_before    REAL    NOT NULL,
            sigma_before REAL    NOT NULL,
            mu_after     REAL    NOT NULL,
            sigma_after  REAL    NOT NULL,
            PRIMARY KEY (game_id, chat_id, player)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX rating_changes_history ON rating_changes (player, pool, chat_id, game_id)",
    ),
    # hints: whether a chat's tables offer the coach's hints
    8: ("ALTER TABLE chats ADD COLUMN hints INTEGER NOT NULL DEFAULT 1",),
    # handled updates: the Telegram updates whose effects are stored
    9: (
        """
        CREATE TABLE handled_updates (
            update_id  INTEGER PRIMARY KEY,
            handled_at INTEGER NOT NULL
        )
        """,
    ),
    # handled updates: what a press that made a move is answered, and whether it was
    10: (
        "ALTER TABLE handled_updates ADD COLUMN callback_id TEXT",
        "ALTER TABLE handled_updates ADD COLUMN answer TEXT",
        "ALTER TABLE handled_updates ADD COLUMN answered_at INTEGER",
        "CREATE INDEX handled_unanswered ON handled_updates (handled_at)"
        " WHERE callback_id IS NOT NULL AND answered_at IS NULL",
    ),
}
"""SQLite: what each version from 2 to 10 changed (version 1 created the tables)."""

POSTGRES_STEPS: Final[dict[int, tuple[str, ...]]] = {
    # PostgreSQL's schema was first written at version 8. Version 9 created this table in
    # a new database only, with no step for one at 8; it is here so that one upgrades too.
    9: (
        """
        CREATE TABLE handled_updates (
            update_id  BIGINT PRIMARY KEY,
            handled_at BIGINT NOT NULL
        )
        """,
    ),
    10: (
        "ALTER TABLE handled_updates ADD COLUMN callback_id TEXT",
        "ALTER TABLE handled_updates ADD COLUMN answer TEXT",
        "ALTER TABLE handled_updates ADD COLUMN answered_at BIGINT",
        "CREATE INDEX handled_unanswered ON handled_updates (handled_at)"
        " WHERE callback_id IS NOT NULL AND answered_at IS NULL",
    ),
}
"""PostgreSQL: what each version after 8 changed."""
POSTGRES_FIRST_VERSION: Final = 8
"""PostgreSQL's oldest schema: a database at an older version was never written."""
