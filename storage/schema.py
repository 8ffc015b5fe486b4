"""PROVISIONAL (queries branch): today's tables as SQLAlchemy Core, only for querying
until the schema helper's storage/schema.py is merged; theirs replaces this file."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Float, MetaData, Table, Text

metadata = MetaData()


def _i(name: str, **kw: object) -> Column[int]:
    return Column(name, BigInteger, **kw)  # type: ignore[arg-type]


def _t(name: str, **kw: object) -> Column[str]:
    return Column(name, Text, **kw)  # type: ignore[arg-type]


def _f(name: str) -> Column[float]:
    return Column(name, Float)


chats = Table(
    "chats",
    metadata,
    _i("chat_id", primary_key=True),
    _t("rules"),
    _i("turn_timer_s"),
    _t("computer_level"),
    _i("track_cards"),
    _i("updated_at"),
    _i("hints"),
)
users = Table(
    "users",
    metadata,
    _i("user_id", primary_key=True),
    _t("display_name"),
    _t("username"),
    _i("dm_open"),
    _i("updated_at"),
)
games = Table(
    "games",
    metadata,
    _i("id", primary_key=True),
    _i("chat_id"),
    _i("thread_id"),
    _i("creator_id"),
    _t("status"),
    _t("rules"),
    _i("seed"),
    _i("first_dealer"),
    _i("dealer_from_seed"),
    _t("fixed_deals"),
    _t("meta"),
    _t("snapshot"),
    _i("last_seq"),
    _i("hands_recorded"),
    _t("winners"),
    _t("quarantine_reason"),
    _i("created_at"),
    _i("started_at"),
    _i("finished_at"),
    _i("tournament_id"),
    _t("join_token"),
)
game_seats = Table(
    "game_seats",
    metadata,
    _i("game_id", primary_key=True),
    _i("seat", primary_key=True),
    _t("kind"),
    _i("user_id"),
    _t("display_name"),
    _t("computer_level"),
)
moves = Table(
    "moves",
    metadata,
    _i("game_id", primary_key=True),
    _i("seq", primary_key=True),
    _t("move"),
    _i("created_at"),
)
hand_points = Table(
    "hand_points",
    metadata,
    _i("game_id", primary_key=True),
    _i("hand_number", primary_key=True),
    _i("seat", primary_key=True),
    _i("points_re"),
    _i("points_im"),
    _i("total_re"),
    _i("total_im"),
    _i("shot_moon"),
)
game_results = Table(
    "game_results",
    metadata,
    _i("game_id", primary_key=True),
    _i("seat", primary_key=True),
    _i("chat_id"),
    _i("user_id"),
    _t("score_kind"),
    _i("players"),
    _i("total_re"),
    _i("total_im"),
    _i("rank_key"),
    _i("place"),
    _i("won"),
    _i("hands"),
    _i("moons"),
    _i("finished_at"),
)
tournaments = Table(
    "tournaments",
    metadata,
    _i("id", primary_key=True),
    _i("chat_id"),
    _i("thread_id"),
    _i("organiser_id"),
    _t("organiser_name"),
    _t("name"),
    _t("rules"),
    _t("options"),
    _t("time_zone"),
    _i("starts_at"),
    _i("registration_deadline"),
    _t("status"),
    _i("current_round"),
    _t("state"),
    _i("created_at"),
    _i("finished_at"),
)
tournament_registrations = Table(
    "tournament_registrations",
    metadata,
    _i("tournament_id", primary_key=True),
    _i("user_id", primary_key=True),
    _t("display_name"),
    _t("username"),
    _t("status"),
    _i("registered_at"),
    _i("final_place"),
)
tournament_tables = Table(
    "tournament_tables",
    metadata,
    _i("tournament_id", primary_key=True),
    _i("round", primary_key=True),
    _i("table_no", primary_key=True),
    _i("seed"),
    _i("game_id"),
    _t("status"),
)
tournament_seats = Table(
    "tournament_seats",
    metadata,
    _i("tournament_id", primary_key=True),
    _i("round", primary_key=True),
    _i("table_no", primary_key=True),
    _i("seat", primary_key=True),
    _i("user_id"),
    _t("display_name"),
    _i("present"),
    _i("no_show"),
    _i("place"),
    _i("total_re"),
    _i("total_im"),
    _i("advanced"),
)
tournament_claims = Table(
    "tournament_claims",
    metadata,
    _i("tournament_id", primary_key=True),
    _t("kind", primary_key=True),
    _i("message_id"),
    _i("claimed_at"),
)
person_languages = Table(
    "person_languages",
    metadata,
    _i("user_id", primary_key=True),
    _t("chosen"),
    _t("app"),
    _i("updated_at"),
)
chat_languages = Table(
    "chat_languages",
    metadata,
    _i("chat_id", primary_key=True),
    _t("chosen"),
    _t("first"),
    _i("updated_at"),
)
ratings = Table(
    "ratings",
    metadata,
    _t("pool", primary_key=True),
    _i("chat_id", primary_key=True),
    _i("player", primary_key=True),
    _f("mu"),
    _f("sigma"),
    _i("games"),
    _i("updated_at"),
)
rated_games = Table(
    "rated_games", metadata, _i("game_id", primary_key=True), _i("seq"), _t("pool"), _i("rated_at")
)
rating_changes = Table(
    "rating_changes",
    metadata,
    _i("game_id", primary_key=True),
    _i("chat_id", primary_key=True),
    _i("player", primary_key=True),
    _t("pool"),
    _i("seat"),
    _f("weight"),
    _f("mu_before"),
    _f("sigma_before"),
    _f("mu_after"),
    _f("sigma_after"),
)
handled_updates = Table(
    "handled_updates",
    metadata,
    _i("update_id", primary_key=True),
    _i("handled_at"),
    _t("callback_id"),
    _t("answer"),
    _i("answered_at"),
)
