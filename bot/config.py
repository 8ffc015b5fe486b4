"""The bot's settings: read once at start from the environment and a ``.env`` file.

Every variable is documented, with its default, in ``.env.example``. `load_settings`
validates everything before the bot touches the network or the database, and reports the
first bad value as a `ConfigError` whose message is one sentence an organiser can act on.
No message ever contains the token (or the webhook secret) itself.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

DEFAULT_API_BASE_URL = "https://api.telegram.org/bot"
DEFAULT_DATABASE_PATH = Path("data/hearts.sqlite3")
DEFAULT_BACKUP_DIR = Path("data/backups")

# Telegram only delivers webhooks to these ports (Bot API docs, setWebhook).
WEBHOOK_PUBLIC_PORTS = (443, 80, 88, 8443)

_TOKEN_RE = re.compile(r"^\d{5,20}:[A-Za-z0-9_-]{30,}$")
_SECRET_RE = re.compile(r"^[A-Za-z0-9_-]{32,256}$")
"""Telegram allows 1 to 256 of these; fewer than 32 could be guessed."""
_ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOSTNAME_RE = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*$")
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_LOG_FORMATS = ("text", "json")


class ConfigError(ValueError):
    """A setting is missing or malformed; the message is one sentence naming the variable."""


@dataclass(frozen=True)
class Settings:
    """Everything the bot reads from its environment, validated."""

    bot_token: str | None
    telegram_api_base_url: str = DEFAULT_API_BASE_URL
    telegram_api_file_url: str | None = None
    database_path: Path = DEFAULT_DATABASE_PATH
    database_url: str | None = None
    """A PostgreSQL database (``postgresql://…``) instead of the SQLite file."""
    database_synchronous: str = "NORMAL"
    log_level: str = "INFO"
    log_format: str = "text"
    webhook_url: str | None = None
    webhook_listen: str = "127.0.0.1"
    webhook_port: int = 8443
    webhook_secret: str | None = None
    health_port: int | None = None
    webapp_url: str | None = None
    """The table page's public address (a Mini App); None: no page, no button."""
    webapp_listen: str = "127.0.0.1"
    webapp_port: int = 8081
    webapp_auth_max_age: int = 6 * 3600
    """Seconds a page's ``initData`` stays good (reopening the page signs a new one)."""
    webapp_trusted_proxies: tuple[IPNetwork, ...] = (
        ipaddress.ip_network("127.0.0.0/8"),
        ipaddress.ip_network("::1"),
    )
    """The proxies whose ``X-Forwarded-For`` names the page's address (loopback by default)."""
    default_turn_timer: int = 60
    computer_think_ms: int = 300
    computer_workers: int | None = None
    """Worker processes for the computer players and the coach (``COMPUTER_WORKERS``; None:
    `Tuning.thinker_workers`, one)."""
    backup_dir: Path = DEFAULT_BACKUP_DIR

    @property
    def webhook_mode(self) -> bool:
        """True when updates arrive by webhook, False when the bot polls."""
        return self.webhook_url is not None

    @property
    def webhook_path(self) -> str:
        """The path of `webhook_url` without slashes: where the local server listens."""
        if self.webhook_url is None:
            return ""
        return urlsplit(self.webhook_url).path.strip("/")

    @property
    def account(self) -> int:
        """The bot account: the bot's Telegram id, the token's prefix (never the token's
        secret part); 0 without a token. Several accounts share one PostgreSQL database,
        each with its own games, leader lock and handled updates (`storage.accounts`)."""
        if self.bot_token is None:
            return 0
        prefix = self.bot_token.split(":", 1)[0]
        return int(prefix) if prefix.isdigit() else 0

    @property
    def database(self) -> str:
        """Where the storage is: the PostgreSQL URL, or the SQLite file's path."""
        return self.database_url or str(self.database_path)

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values that must never be written to a log line or a message."""
        password = urlsplit(self.database_url).password if self.database_url else None
        return tuple(s for s in (self.bot_token, self.webhook_secret, password) if s)

    def __repr__(self) -> str:
        # The dataclass repr would print the token; keep it out of tracebacks and logs.
        shown = {
            name: (
                "<hidden>"
                if name in ("bot_token", "webhook_secret", "database_url") and value
                else value
            )
            for name, value in self.__dict__.items()
        }
        inner = ", ".join(f"{name}={value!r}" for name, value in shown.items())
        return f"Settings({inner})"


def parse_env_file(path: Path) -> dict[str, str]:
    """Read ``KEY=VALUE`` lines as docker compose and systemd users write them.

    Blank lines and ``#`` comments are skipped; ``export KEY=VALUE`` is accepted; a value
    may be wrapped in single or double quotes (kept literally), and an unquoted value ends
    at `` #``. Raises `ConfigError` naming the line number of a malformed line, never its
    content (that line may hold the token).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"The settings file {path} is not UTF-8 text.") from None
    except OSError as exc:
        raise ConfigError(f"The settings file {path} cannot be read ({_why(exc)}).") from None
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not _ENV_NAME_RE.match(key):
            raise ConfigError(f"Line {number} of {path} is not of the form NAME=value.")
        value = value.strip()
        if value[:1] in ("'", '"'):
            quote = value[0]
            end = value.find(quote, 1)
            rest = value[end + 1 :].strip() if end > 0 else ""
            if end < 0 or (rest and not rest.startswith("#")):
                raise ConfigError(f"Line {number} of {path} has an unterminated quoted value.")
            value = value[1:end]
        else:
            value = re.split(r"\s+#", value, maxsplit=1)[0].rstrip()
        values[key] = value
    return values


def load_settings(
    environ: Mapping[str, str] | None = None,
    env_file: Path | None = Path(".env"),
    require_token: bool = True,
) -> Settings:
    """Read and validate the settings; the environment wins over the ``.env`` file.

    An empty value counts as unset. ``require_token=False`` is for the try-it-out command,
    which falls back to the local sandbox without a token. The database folder is created
    if missing. Raises `ConfigError` for the first missing or malformed value.
    """
    env: dict[str, str] = {}
    if env_file is not None and (env_file.exists() or env_file.is_symlink()):
        env.update(parse_env_file(env_file))
    env.update(os.environ if environ is None else environ)

    def get(name: str) -> str | None:
        value = env.get(name, "").strip()
        return value or None

    token = get("BOT_TOKEN")
    if token is None:
        if require_token:
            raise ConfigError(
                "BOT_TOKEN is not set: get a token from @BotFather and put it in the "
                "environment or in .env (see .env.example)."
            )
    elif not _TOKEN_RE.match(token):
        raise ConfigError(
            "BOT_TOKEN is not a bot token: it should be the bot's number, a colon and at "
            "least 30 letters, digits, '-' or '_', exactly as @BotFather gave it."
        )

    base_url = _http_url("TELEGRAM_API_BASE_URL", get("TELEGRAM_API_BASE_URL"))
    file_url = _http_url("TELEGRAM_API_FILE_URL", get("TELEGRAM_API_FILE_URL"))

    database_url, sqlite_path = _database_url(get("DATABASE_URL"))
    database_path = _database_path(sqlite_path or get("DATABASE_PATH"))
    synchronous = (get("DATABASE_SYNCHRONOUS") or "NORMAL").upper()
    if synchronous not in ("NORMAL", "FULL"):
        raise ConfigError("DATABASE_SYNCHRONOUS must be NORMAL or FULL.")

    log_level = (get("LOG_LEVEL") or "INFO").upper()
    if log_level not in _LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(_LOG_LEVELS)}.")
    log_format = (get("LOG_FORMAT") or "text").lower()
    if log_format not in _LOG_FORMATS:
        raise ConfigError("LOG_FORMAT must be text or json.")

    webhook_url = _webhook_url(get("WEBHOOK_URL"))
    webhook_listen = get("WEBHOOK_LISTEN") or "127.0.0.1"
    if not _is_host(webhook_listen):
        raise ConfigError("WEBHOOK_LISTEN must be an IP address or a host name, like 0.0.0.0.")
    webhook_port = _port("WEBHOOK_PORT", get("WEBHOOK_PORT"), None) or 8443
    webhook_secret = get("WEBHOOK_SECRET")
    if webhook_secret is not None and not _SECRET_RE.match(webhook_secret):
        raise ConfigError(
            "WEBHOOK_SECRET must be 32 to 256 characters, each a letter, a digit, '-' or '_' "
            '(make one with: python3 -c "import secrets; print(secrets.token_urlsafe(32))").'
        )
    if webhook_url is not None and webhook_secret is None:
        raise ConfigError(
            "WEBHOOK_SECRET is required when WEBHOOK_URL is set, so that only Telegram can "
            "post updates to the bot."
        )
    health_port = _port("HEALTH_PORT", get("HEALTH_PORT"), None)
    if webhook_url is not None and health_port == webhook_port:
        raise ConfigError("HEALTH_PORT must differ from WEBHOOK_PORT.")

    webapp_url = _webapp_url(get("WEBAPP_URL"))
    webapp_listen = get("WEBAPP_LISTEN") or "127.0.0.1"
    if not _is_host(webapp_listen):
        raise ConfigError("WEBAPP_LISTEN must be an IP address or a host name, like 0.0.0.0.")
    webapp_port = _port("WEBAPP_PORT", get("WEBAPP_PORT"), None) or 8081
    if webapp_url is not None and webapp_port in (
        health_port,
        webhook_port if webhook_url is not None else None,
    ):
        raise ConfigError("WEBAPP_PORT must differ from WEBHOOK_PORT and HEALTH_PORT.")
    webapp_age = _int(
        "WEBAPP_AUTH_MAX_AGE", get("WEBAPP_AUTH_MAX_AGE"), 6 * 3600, 60, 7 * 86_400, "seconds"
    )
    proxies = _networks(get("WEBAPP_TRUSTED_PROXIES") or "127.0.0.0/8,::1")

    turn_timer = _int("DEFAULT_TURN_TIMER", get("DEFAULT_TURN_TIMER"), 60, 0, 86_400, "seconds")
    think_ms = _int("COMPUTER_THINK_MS", get("COMPUTER_THINK_MS"), 300, 0, 60_000, "milliseconds")
    given = get("COMPUTER_WORKERS")
    workers = _int("COMPUTER_WORKERS", given, 1, 1, 64, "processes") if given else None
    backup_dir = Path(get("BACKUP_DIR") or DEFAULT_BACKUP_DIR).expanduser()

    return Settings(
        bot_token=token,
        telegram_api_base_url=base_url or DEFAULT_API_BASE_URL,
        telegram_api_file_url=file_url,
        database_path=database_path,
        database_url=database_url,
        log_level=log_level,
        log_format=log_format,
        database_synchronous=synchronous,
        webhook_url=webhook_url,
        webhook_listen=webhook_listen,
        webhook_port=webhook_port,
        webhook_secret=webhook_secret,
        health_port=health_port,
        webapp_url=webapp_url,
        webapp_listen=webapp_listen,
        webapp_port=webapp_port,
        webapp_auth_max_age=webapp_age,
        webapp_trusted_proxies=proxies,
        default_turn_timer=turn_timer,
        computer_think_ms=think_ms,
        computer_workers=workers,
        backup_dir=backup_dir,
    )


def log_level_number(settings: Settings) -> int:
    """The `logging` level for `Settings.log_level`."""
    return logging.getLevelNamesMapping()[settings.log_level]


def _http_url(name: str, value: str | None) -> str | None:
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"{name} must be an http:// or https:// address, like https://api.telegram.org/bot."
        )
    return value


def _webhook_url(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        raise ConfigError("WEBHOOK_URL is not a valid address.") from None
    if parts.scheme != "https" or not parts.hostname:
        raise ConfigError(
            "WEBHOOK_URL must be an https:// address that Telegram can reach, "
            "like https://hearts.example.org/telegram (leave it empty to poll)."
        )
    if parts.query or parts.fragment:
        raise ConfigError("WEBHOOK_URL must not have a query string or a fragment.")
    if port is not None and port not in WEBHOOK_PUBLIC_PORTS:
        raise ConfigError(
            "WEBHOOK_URL must use port 443, 80, 88 or 8443: Telegram allows no other."
        )
    return value


def _webapp_url(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        raise ConfigError("WEBAPP_URL is not a valid address.") from None
    local = parts.hostname in ("127.0.0.1", "localhost")
    if not parts.hostname or not (parts.scheme == "https" or (parts.scheme == "http" and local)):
        raise ConfigError(
            "WEBAPP_URL must be an https:// address (Telegram opens Mini Apps only over "
            "https), like https://hearts.example.org/app/ (leave it empty for no table page)."
        )
    if parts.query or parts.fragment:
        raise ConfigError("WEBAPP_URL must not have a query string or a fragment.")
    return value


def _port(name: str, value: str | None, default: int | None) -> int | None:
    if value is None:
        return default
    if not value.isdigit() or not 1 <= int(value) <= 65535:
        raise ConfigError(f"{name} must be a port number from 1 to 65535.")
    return int(value)


def _int(name: str, value: str | None, default: int, low: int, high: int, unit: str) -> int:
    if value is None:
        return default
    if not value.isdigit() or not low <= int(value) <= high:
        raise ConfigError(f"{name} must be a whole number of {unit} from {low} to {high}.")
    return int(value)


def _networks(value: str) -> tuple[IPNetwork, ...]:
    """WEBAPP_TRUSTED_PROXIES: addresses or networks, separated by commas."""
    try:
        return tuple(ipaddress.ip_network(part.strip()) for part in value.split(","))
    except ValueError:
        raise ConfigError(
            "WEBAPP_TRUSTED_PROXIES must be IP addresses or networks separated by commas, "
            "like 127.0.0.1,172.30.53.0/24."
        ) from None


def _is_host(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return bool(_HOSTNAME_RE.match(value))
    return True


def _database_url(value: str | None) -> tuple[str | None, str | None]:
    """DATABASE_URL: a PostgreSQL URL, or ``sqlite:///path`` (the same as DATABASE_PATH);
    returns ``(postgresql URL, SQLite path)``."""
    if value is None:
        return None, None
    if value.startswith("sqlite:///"):
        return None, value.removeprefix("sqlite://")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        raise ConfigError("DATABASE_URL is not a valid address.") from None
    if parts.scheme not in ("postgresql", "postgres") or not parts.hostname:
        raise ConfigError(
            "DATABASE_URL must be a PostgreSQL address like "
            "postgresql://hearts:PASSWORD@db.example.org:5432/hearts (or sqlite:///path/to/file; "
            "leave it empty to use DATABASE_PATH)."
        )
    return value, None


def _database_path(value: str | None) -> Path:
    path = Path(value).expanduser() if value else DEFAULT_DATABASE_PATH
    if path.is_dir():
        raise ConfigError(f"DATABASE_PATH {path} is a folder; it must name the database file.")
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"DATABASE_PATH {path} is not usable: its folder {folder} cannot be created "
            f"({_why(exc)})."
        ) from None
    # Root passes os.access checks on read-only mounts too, so try a real write.
    try:
        fd, probe = tempfile.mkstemp(prefix=".write-test-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ConfigError(
            f"DATABASE_PATH {path} is not usable: the bot cannot write in its folder {folder} "
            f"({_why(exc)})."
        ) from None
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise ConfigError(f"DATABASE_PATH {path} exists but the bot cannot read and write it.")
    return path


def _why(exc: OSError) -> str:
    return (exc.strerror or type(exc).__name__).lower()


@dataclass(frozen=True)
class Tuning:
    """Pacing that tests and the sandbox turn down; production keeps the defaults."""

    computer_delay: float = 1.0
    group_edit_interval: float = 3.0
    dm_edit_interval: float = 1.0
    thinker_workers: int = 1
    rate_limiter: bool = True
    nudge_delay: float = 5.0
    """Seconds into a person's turn before their "your turn" message."""
    engaged_nudge_delay: float = 20.0
    """The same for a person who pressed at the table in the last minute."""
    clock: Callable[[], datetime] | None = None
    """What time it is for tournaments' reminders and rounds (tests pass a manual clock)."""
    lobby_ttl_s: float = 6 * 3600
    """A lobby nobody starts closes after this long."""
    pace_presses: bool = True
    """A person's presses, a seat's moves and a person's posts in a group held to their
    rates (`bot.flood`); the tests that play whole games at the machine's speed, faster
    than any hand, turn it off."""
    lean_edits: bool = True
    """The presser's DM first, others' DMs wait out a trick in progress (False: the next
    player's first and every card edits every DM, as before issue 17; `./dev bench load
    --compare` measures both)."""
