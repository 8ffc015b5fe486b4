"""The schemas before Alembic, as test fixtures: each version's steps as the releases
before Alembic ran them, version 1 creating the tables. `storage_testkit.legacy_sqlite`
builds a database as such a release left it (``PRAGMA user_version`` set), and the tests
open every one and check it reaches the head with its data (the runtime's own steps are
in Alembic's first revision, ``storage/alembic/versions/v10_schema_before_alembic.py``).

Schema (version 2):

- ``chats``: settings per chat (default rules JSON, turn timer, computer level, language).
- ``users``: Telegram users as last seen, and whether they have opened a private chat.
- ``games``: one row per table: chat and forum topic, creator, status, rules JSON, the
  replay origin (seed, first dealer, fixed deals), free-form ``meta`` JSON for the bot,
  the latest engine snapshot and the journal length (``last_seq``).
- ``game_seats``: the ordered seats of a game, human (with user id) or computer.
- ``moves``: the append-only journal, ``(game_id, seq)``; triggers forbid changing it.
- ``hand_points``: each scored hand's points and totals by seat, written as hands end.
- ``game_results``: one row per seat of a finished game, denormalised (chat, user,
  totals, won, moons, place) so that standings read one narrow index.
- version 2 adds ``games.event_id`` for tournaments; their tables come in a later version.
- version 3 adds events: ``events`` (one per tournament: group, organiser, name, rules and
  options JSON, time zone, start and registration deadline, status, current round, meta
  JSON for the bot's messages), ``event_registrations`` (who entered, and how it ended),
  ``event_tables`` and ``event_seats`` (each round's draw, results and no-shows) and
  ``event_reminders`` (announcements already sent, so restarts never repeat them).
- version 4 adds ``games.join_token``, a random token per table used in ``/start`` links
  instead of the guessable row id.
- version 5 names tournaments for what they are ("event" is the engine's game event):
  ``events`` is ``tournaments``, ``event_registrations``, ``event_tables`` and
  ``event_seats`` are ``tournament_*``, ``event_reminders`` is ``tournament_claims`` (the
  one-time actions claimed, ``claimed_at``), and every ``event_id`` is ``tournament_id``.
  The tournament's free-form ``meta`` is ``state``: versioned JSON read by
  `domain.tournaments.TournamentState` (``"v": 1``; ``next`` is ``advancing``).
- version 6 keeps languages: ``person_languages`` (chosen, and the Telegram app's) and
  ``chat_languages`` (an admin's choice, and the first table's opener's).
- version 7 adds ratings: ``ratings`` (μ and σ per pool, scope and player; scope 0 is
  overall, a computer level is a negative player id), ``rating_changes`` (each game's
  before and after, per scope and player) and ``rated_games`` (the order games were rated
  in, which a rebuild follows). Games finished before version 7 are rated when the
  storage opens.
- version 8 adds ``chats.hints``: whether the chat's tables offer the coach's hints (on
  unless the chat turned them off; tournaments never offer them).
- version 9 adds ``handled_updates``: each Telegram update whose effects are stored,
  written in the same transaction as the move it produced (`domain.handling`), so a
  process that takes over never handles it again.
- version 10 keeps what a button press that
  made a move is answered: ``handled_updates.callback_id`` (the callback query's id),
  ``answer`` (the toast, in the presser's language) and ``answered_at`` (NULL until the
  answer went out), so a process that takes over answers a press its predecessor stored
  but never answered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Migration:
    """One step of the schema: ``version`` is what ``user_version`` becomes."""

    version: int
    description: str
    statements: tuple[str, ...]


_V1 = Migration(
    1,
    "chats, users, games, seats, move journal, hand points, results",
    (
        """
        CREATE TABLE chats (
            chat_id        INTEGER PRIMARY KEY,
            rules          TEXT    NOT NULL,
            turn_timer_s   INTEGER NOT NULL,
            computer_level TEXT    NOT NULL,
            language       TEXT    NOT NULL,
            track_cards    INTEGER NOT NULL,
            updated_at     INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE users (
            user_id      INTEGER PRIMARY KEY,
            display_name TEXT    NOT NULL,
            username     TEXT,
            dm_open      INTEGER NOT NULL DEFAULT 0,
            updated_at   INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE games (
            id                INTEGER PRIMARY KEY,
            chat_id           INTEGER NOT NULL,
            thread_id         INTEGER,
            creator_id        INTEGER NOT NULL,
            status            TEXT    NOT NULL CHECK (status IN
                                  ('lobby', 'active', 'finished', 'cancelled', 'quarantined')),
            rules             TEXT    NOT NULL,
            seed              INTEGER,
            first_dealer      INTEGER,
            dealer_from_seed  INTEGER NOT NULL DEFAULT 0,
            fixed_deals       TEXT    NOT NULL DEFAULT '[]',
            meta              TEXT    NOT NULL DEFAULT '{}',
            snapshot          TEXT,
            last_seq          INTEGER NOT NULL DEFAULT 0,
            hands_recorded    INTEGER NOT NULL DEFAULT 0,
            winners           TEXT,
            quarantine_reason TEXT,
            created_at        INTEGER NOT NULL,
            started_at        INTEGER,
            finished_at       INTEGER
        )
        """,
        "CREATE INDEX games_open_by_chat ON games (chat_id, thread_id)"
        " WHERE status IN ('lobby', 'active')",
        "CREATE INDEX games_by_status ON games (status)",
        """
        CREATE TABLE game_seats (
            game_id        INTEGER NOT NULL REFERENCES games (id),
            seat           INTEGER NOT NULL,
            kind           TEXT    NOT NULL CHECK (kind IN ('human', 'computer')),
            user_id        INTEGER,
            display_name   TEXT    NOT NULL,
            computer_level TEXT,
            PRIMARY KEY (game_id, seat),
            CHECK ((kind = 'human') = (user_id IS NOT NULL))
        ) WITHOUT ROWID
        """,
        "CREATE INDEX game_seats_by_user ON game_seats (user_id, game_id)"
        " WHERE user_id IS NOT NULL",
        """
        CREATE TABLE moves (
            game_id    INTEGER NOT NULL REFERENCES games (id),
            seq        INTEGER NOT NULL CHECK (seq >= 1),
            move       TEXT    NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (game_id, seq)
        ) WITHOUT ROWID
        """,
        """
        CREATE TRIGGER moves_are_never_changed BEFORE UPDATE ON moves
        BEGIN SELECT RAISE(ABORT, 'the move journal is append-only'); END
        """,
        """
        CREATE TRIGGER moves_are_never_deleted BEFORE DELETE ON moves
        BEGIN SELECT RAISE(ABORT, 'the move journal is append-only'); END
        """,
        """
        CREATE TABLE hand_points (
            game_id     INTEGER NOT NULL REFERENCES games (id),
            hand_number INTEGER NOT NULL,
            seat        INTEGER NOT NULL,
            points_re   INTEGER NOT NULL,
            points_im   INTEGER NOT NULL,
            total_re    INTEGER NOT NULL,
            total_im    INTEGER NOT NULL,
            shot_moon   INTEGER NOT NULL,
            PRIMARY KEY (game_id, hand_number, seat)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE game_results (
            game_id     INTEGER NOT NULL REFERENCES games (id),
            seat        INTEGER NOT NULL,
            chat_id     INTEGER NOT NULL,
            user_id     INTEGER,
            score_kind  TEXT    NOT NULL CHECK (score_kind IN ('points', 'complex')),
            players     INTEGER NOT NULL,
            total_re    INTEGER NOT NULL,
            total_im    INTEGER NOT NULL,
            rank_key    INTEGER NOT NULL,
            place       INTEGER NOT NULL,
            won         INTEGER NOT NULL,
            hands       INTEGER NOT NULL,
            moons       INTEGER NOT NULL,
            finished_at INTEGER NOT NULL,
            PRIMARY KEY (game_id, seat)
        ) WITHOUT ROWID
        """,
        # Covering indexes: a standings query reads only the index, never the table.
        """
        CREATE INDEX game_results_overall ON game_results
            (score_kind, user_id, won, hands, total_re, total_im, moons, rank_key)
            WHERE user_id IS NOT NULL
        """,
        """
        CREATE INDEX game_results_by_chat ON game_results
            (score_kind, chat_id, user_id, won, hands, total_re, total_im, moons, rank_key)
            WHERE user_id IS NOT NULL
        """,
        "CREATE INDEX game_results_history ON game_results (user_id, finished_at)"
        " WHERE user_id IS NOT NULL",
    ),
)

_V2 = Migration(
    2,
    "room for events (tournaments): games.event_id",
    (
        "ALTER TABLE games ADD COLUMN event_id INTEGER",
        "CREATE INDEX games_by_event ON games (event_id) WHERE event_id IS NOT NULL",
    ),
)

_V3 = Migration(
    3,
    "events: registrations, rounds, table draws, reminders sent",
    (
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
)

_V4 = Migration(
    4,
    "games.join_token: the unguessable id of a table in its /start links",
    (
        "ALTER TABLE games ADD COLUMN join_token TEXT",
        # Tables from before get a token too (18 random hex digits: 72 bits, like
        # secrets.token_urlsafe(9)); links they showed with the row id stop working.
        "UPDATE games SET join_token = lower(hex(randomblob(9)))",
        "CREATE UNIQUE INDEX games_by_join_token ON games (join_token)",
    ),
)

_V5 = Migration(
    5,
    "tournaments are tournaments (events are the engine's); their state is typed JSON",
    (
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
)

_V6 = Migration(
    6,
    "languages: a person's own choice and their Telegram app's; a group's admin's choice "
    "and the language of whoever opened its first table",
    (
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
)

_V7 = Migration(
    7,
    "ratings: OpenSkill per pool (main, two-player) and scope (a chat, or 0 for overall), "
    "each game's change to each player, and the order games were rated in",
    (
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
)

_V8 = Migration(
    8,
    "hints: whether a chat's tables offer the coach's hints",
    ("ALTER TABLE chats ADD COLUMN hints INTEGER NOT NULL DEFAULT 1",),
)

_V9 = Migration(
    9,
    "handled updates: the Telegram updates whose effects are stored",
    (
        """
        CREATE TABLE handled_updates (
            update_id  INTEGER PRIMARY KEY,
            handled_at INTEGER NOT NULL
        )
        """,
    ),
)

_HANDLED_ANSWERS = Migration(
    10,
    "handled updates: what a press that made a move is answered, and whether it was",
    (
        "ALTER TABLE handled_updates ADD COLUMN callback_id TEXT",
        "ALTER TABLE handled_updates ADD COLUMN answer TEXT",
        "ALTER TABLE handled_updates ADD COLUMN answered_at INTEGER",
        "CREATE INDEX handled_unanswered ON handled_updates (handled_at)"
        " WHERE callback_id IS NOT NULL AND answered_at IS NULL",
    ),
)

MIGRATIONS: Final[tuple[Migration, ...]] = (
    _V1,
    _V2,
    _V3,
    _V4,
    _V5,
    _V6,
    _V7,
    _V8,
    _V9,
    _HANDLED_ANSWERS,
)
LEGACY_VERSION: Final = len(MIGRATIONS)
"""The last version before Alembic: its first revision's schema."""

assert all(m.version == i + 1 for i, m in enumerate(MIGRATIONS)), "migrations out of order"
