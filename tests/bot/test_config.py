"""Settings: defaults, .env parsing, and one clear sentence per bad value."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, Settings, load_settings, parse_env_file

TOKEN = "123456789:AAE-abcdefghijklmnopqrstuvwxyz_0123456789"
SECRET_PART = TOKEN.split(":")[1]


def load(tmp_path: Path, env_file: Path | None = None, **env: str) -> Settings:
    environ = {"BOT_TOKEN": TOKEN, "DATABASE_PATH": str(tmp_path / "db" / "hearts.sqlite3")}
    environ.update(env)
    return load_settings(environ, env_file=env_file)


def error_of(tmp_path: Path, **env: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, None, **env)
    message = str(caught.value)
    assert TOKEN not in message and SECRET_PART not in message
    assert message.count(". ") == 0 and message.endswith("."), "one sentence"
    return message


def test_defaults(tmp_path: Path) -> None:
    settings = load(tmp_path)
    assert settings.bot_token == TOKEN
    assert settings.telegram_api_base_url == "https://api.telegram.org/bot"
    assert settings.telegram_api_file_url is None
    assert settings.database_path == tmp_path / "db" / "hearts.sqlite3"
    assert (tmp_path / "db").is_dir(), "the database folder is created"
    assert settings.log_level == "INFO" and settings.log_format == "text"
    assert settings.webhook_url is None and not settings.webhook_mode
    assert (settings.webhook_listen, settings.webhook_port) == ("127.0.0.1", 8443)
    assert settings.webhook_secret is None and settings.health_port is None
    assert settings.default_turn_timer == 60 and settings.computer_think_ms == 300
    assert settings.backup_dir == Path("data/backups")


def test_every_value_is_read(tmp_path: Path) -> None:
    settings = load(
        tmp_path,
        TELEGRAM_API_BASE_URL="http://127.0.0.1:8081/bot",
        TELEGRAM_API_FILE_URL="http://127.0.0.1:8081/file/bot",
        LOG_LEVEL="debug",
        LOG_FORMAT="JSON",
        WEBHOOK_URL="https://hearts.example.org/telegram/hook",
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT="9000",
        WEBHOOK_SECRET="s3cret_-X" * 4,
        HEALTH_PORT="9001",
        DEFAULT_TURN_TIMER="0",
        COMPUTER_THINK_MS="0",
        COMPUTER_WORKERS="2",
        BACKUP_DIR=str(tmp_path / "backups"),
    )
    assert settings.telegram_api_base_url == "http://127.0.0.1:8081/bot"
    assert settings.telegram_api_file_url == "http://127.0.0.1:8081/file/bot"
    assert (settings.log_level, settings.log_format) == ("DEBUG", "json")
    assert settings.webhook_mode and settings.webhook_path == "telegram/hook"
    assert (settings.webhook_listen, settings.webhook_port) == ("127.0.0.1", 9000)
    assert settings.webhook_secret == "s3cret_-X" * 4 and settings.health_port == 9001
    assert settings.default_turn_timer == 0 and settings.computer_think_ms == 0
    assert settings.computer_workers == 2
    assert settings.backup_dir == tmp_path / "backups"


def test_trusted_proxies_are_loopback_unless_set(tmp_path: Path) -> None:
    assert [str(n) for n in load(tmp_path).webapp_trusted_proxies] == ["127.0.0.0/8", "::1/128"]
    chosen = load(tmp_path, WEBAPP_TRUSTED_PROXIES="172.30.53.0/24, 10.1.2.3,fd00::/8")
    assert [str(n) for n in chosen.webapp_trusted_proxies] == [
        "172.30.53.0/24",
        "10.1.2.3/32",
        "fd00::/8",
    ]


def test_repr_hides_the_secrets(tmp_path: Path) -> None:
    settings = load(
        tmp_path, WEBHOOK_URL="https://bot.example.org/x", WEBHOOK_SECRET="verysecretvalue" * 3
    )
    text = repr(settings)
    assert SECRET_PART not in text and "verysecretvalue" not in text
    assert "database_path" in text
    assert settings.secrets == (TOKEN, "verysecretvalue" * 3)


def test_empty_values_count_as_unset(tmp_path: Path) -> None:
    settings = load(tmp_path, HEALTH_PORT="", WEBHOOK_URL="  ", LOG_LEVEL="")
    assert settings.health_port is None and settings.webhook_url is None
    assert settings.log_level == "INFO"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"BOT_TOKEN": "not-a-token"}, "BOT_TOKEN is not a bot token"),
        ({"BOT_TOKEN": "123:AAEabcdefghijklmnopqrstuvwxyz0123456"}, "BOT_TOKEN is not a bot token"),
        ({"BOT_TOKEN": TOKEN + " x"}, "BOT_TOKEN is not a bot token"),
        ({"BOT_TOKEN": "123456789:short"}, "BOT_TOKEN is not a bot token"),
        ({"BOT_TOKEN": TOKEN.replace("-", "!")}, "BOT_TOKEN is not a bot token"),
        ({"TELEGRAM_API_BASE_URL": "api.telegram.org/bot"}, "TELEGRAM_API_BASE_URL must be"),
        ({"TELEGRAM_API_BASE_URL": "ftp://x.org/bot"}, "TELEGRAM_API_BASE_URL must be"),
        ({"TELEGRAM_API_FILE_URL": "http://"}, "TELEGRAM_API_FILE_URL must be"),
        ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL must be one of"),
        ({"LOG_FORMAT": "xml"}, "LOG_FORMAT must be text or json"),
        ({"WEBHOOK_URL": "http://bot.example.org/hook"}, "WEBHOOK_URL must be an https://"),
        ({"WEBHOOK_URL": "bot.example.org"}, "WEBHOOK_URL must be an https://"),
        ({"WEBHOOK_URL": "https://bot.example.org:9999/h"}, "WEBHOOK_URL must use port 443"),
        ({"WEBHOOK_URL": "https://bot.example.org:99999/h"}, "WEBHOOK_URL is not a valid"),
        ({"WEBHOOK_URL": "https://bot.example.org/h?x=1"}, "must not have a query string"),
        ({"WEBHOOK_URL": "https://bot.example.org/h"}, "WEBHOOK_SECRET is required"),
        ({"WEBHOOK_SECRET": "has space"}, "WEBHOOK_SECRET must be 32 to 256"),
        ({"WEBHOOK_SECRET": "x" * 257}, "WEBHOOK_SECRET must be 32 to 256"),
        ({"WEBHOOK_SECRET": "x" * 31}, "WEBHOOK_SECRET must be 32 to 256"),
        ({"WEBHOOK_LISTEN": "not a host!"}, "WEBHOOK_LISTEN must be an IP address"),
        ({"WEBHOOK_PORT": "0"}, "WEBHOOK_PORT must be a port number"),
        ({"WEBHOOK_PORT": "65536"}, "WEBHOOK_PORT must be a port number"),
        ({"WEBHOOK_PORT": "eighty"}, "WEBHOOK_PORT must be a port number"),
        ({"HEALTH_PORT": "-1"}, "HEALTH_PORT must be a port number"),
        (
            {
                "WEBHOOK_URL": "https://b.example.org/h",
                "WEBHOOK_SECRET": "abc" * 11,
                "HEALTH_PORT": "8443",
            },
            "HEALTH_PORT must differ from WEBHOOK_PORT",
        ),
        ({"WEBAPP_URL": "http://hearts.example.org/app/"}, "WEBAPP_URL must be an https://"),
        ({"WEBAPP_URL": "hearts.example.org/app"}, "WEBAPP_URL must be an https://"),
        ({"WEBAPP_URL": "https://hearts.example.org/app/#x"}, "must not have a query string"),
        ({"WEBAPP_LISTEN": "not a host!"}, "WEBAPP_LISTEN must be an IP address"),
        (
            {"WEBAPP_URL": "https://h.example.org/app/", "HEALTH_PORT": "8081"},
            "WEBAPP_PORT must differ from WEBHOOK_PORT and HEALTH_PORT",
        ),
        ({"WEBAPP_AUTH_MAX_AGE": "10"}, "WEBAPP_AUTH_MAX_AGE must be a whole number"),
        ({"WEBAPP_TRUSTED_PROXIES": "caddy"}, "WEBAPP_TRUSTED_PROXIES must be IP addresses"),
        ({"WEBAPP_TRUSTED_PROXIES": "10.0.0.1/8"}, "WEBAPP_TRUSTED_PROXIES must be IP"),
        ({"WEBAPP_TRUSTED_PROXIES": "127.0.0.1,"}, "WEBAPP_TRUSTED_PROXIES must be IP"),
        ({"DATABASE_URL": "mysql://hearts@db/hearts"}, "DATABASE_URL must be a PostgreSQL"),
        ({"DATABASE_URL": "hearts.sqlite3"}, "DATABASE_URL must be a PostgreSQL"),
        ({"DATABASE_URL": "postgresql://db:port/x"}, "DATABASE_URL is not a valid address"),
        ({"DEFAULT_TURN_TIMER": "1.5"}, "DEFAULT_TURN_TIMER must be a whole number of seconds"),
        ({"DEFAULT_TURN_TIMER": "-5"}, "DEFAULT_TURN_TIMER must be a whole number of seconds"),
        ({"COMPUTER_THINK_MS": "fast"}, "COMPUTER_THINK_MS must be a whole number"),
        ({"COMPUTER_WORKERS": "0"}, "COMPUTER_WORKERS must be a whole number of processes"),
    ],
)
def test_each_bad_value_gives_its_sentence(
    tmp_path: Path, env: dict[str, str], expected: str
) -> None:
    assert expected in error_of(tmp_path, **env)


def test_missing_token(tmp_path: Path) -> None:
    environ = {"DATABASE_PATH": str(tmp_path / "hearts.sqlite3")}
    with pytest.raises(ConfigError, match="BOT_TOKEN is not set"):
        load_settings(environ, env_file=None)
    settings = load_settings(environ, env_file=None, require_token=False)
    assert settings.bot_token is None and settings.secrets == ()


def test_database_folder_that_cannot_be_created(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    message = error_of(tmp_path, DATABASE_PATH=str(tmp_path / "afile" / "sub" / "h.sqlite3"))
    assert message.startswith("DATABASE_PATH") and "cannot be created" in message


def test_database_path_that_is_a_folder(tmp_path: Path) -> None:
    assert "is a folder" in error_of(tmp_path, DATABASE_PATH=str(tmp_path))


def test_database_folder_that_is_not_writable(tmp_path: Path) -> None:
    # Root ignores file modes, so use a folder no one can write: a read-only /proc entry.
    message = error_of(tmp_path, DATABASE_PATH="/proc/self/hearts.sqlite3")
    assert message.startswith("DATABASE_PATH") and "cannot write" in message


def test_env_file_is_read_and_environment_wins(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# comment\n"
        "\n"
        f"export BOT_TOKEN={TOKEN}\n"
        'LOG_LEVEL="WARNING"\n'
        "LOG_FORMAT='json'  # trailing comment\n"
        "COMPUTER_THINK_MS=150 # fast\n"
        f"DATABASE_PATH={tmp_path / 'from-file.sqlite3'}\n"
    )
    settings = load_settings({"COMPUTER_THINK_MS": "10"}, env_file=env_file)
    assert settings.bot_token == TOKEN
    assert (settings.log_level, settings.log_format) == ("WARNING", "json")
    assert settings.computer_think_ms == 10
    assert settings.database_path == tmp_path / "from-file.sqlite3"


def test_missing_env_file_is_fine(tmp_path: Path) -> None:
    assert load(tmp_path, env_file=tmp_path / "nope.env").bot_token == TOKEN


def test_env_file_hash_inside_quotes_is_kept(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text('A="x # y"\nB=plain#notacomment\n')
    assert parse_env_file(env_file) == {"A": "x # y", "B": "plain#notacomment"}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (f"{TOKEN}\n", "Line 1 of"),
        (f"# ok\nBOT TOKEN={TOKEN}\n", "Line 2 of"),
        (f'BOT_TOKEN="{TOKEN}\n', "unterminated quoted value"),
    ],
)
def test_malformed_env_file_names_the_line_not_its_content(
    tmp_path: Path, content: str, expected: str
) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(content)
    with pytest.raises(ConfigError) as caught:
        load_settings({}, env_file=env_file)
    assert expected in str(caught.value)
    assert SECRET_PART not in str(caught.value)


def test_database_url_names_postgresql_or_a_sqlite_file(tmp_path: Path) -> None:
    url = "postgresql://hearts:s3cret-pw@db.example.org:5432/hearts"
    settings = load_settings({"BOT_TOKEN": TOKEN, "DATABASE_URL": url}, env_file=None)
    assert settings.database == url and settings.database_url == url
    assert "s3cret-pw" in settings.secrets and "s3cret-pw" not in repr(settings)
    file = tmp_path / "x" / "hearts.sqlite3"
    settings = load_settings(
        {"BOT_TOKEN": TOKEN, "DATABASE_URL": f"sqlite://{file}"}, env_file=None
    )
    assert settings.database_url is None and settings.database == str(file)
