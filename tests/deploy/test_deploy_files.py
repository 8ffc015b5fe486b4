"""The files in deploy/ and .env.example agree with the code they deploy.

No container engine runs here, so these check what the Dockerfile, the compose file and
the systemd unit run: the same `hearts-bot` entry point (bot.__main__:main) the other
tests run, with the same settings. hadolint runs in deploy/lint.sh.
"""

from __future__ import annotations

import configparser
import dataclasses
import re
import shlex
import tomllib
from pathlib import Path

import pytest

from bot.config import Settings, load_settings, parse_env_file

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
TOKEN = "123456789:AAE-abcdefghijklmnopqrstuvwxyz_0123456789"


def pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def dockerfile_instructions() -> list[tuple[str, str]]:
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), " ".join(rest.split())))
    return found


def final_stage() -> list[tuple[str, str]]:
    instructions = dockerfile_instructions()
    last_from = max(i for i, (word, _) in enumerate(instructions) if word == "FROM")
    return instructions[last_from:]


def test_env_example_documents_every_setting_with_its_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = ROOT / ".env.example"
    values = parse_env_file(example)
    fields = {f.name.upper() for f in dataclasses.fields(Settings)}
    assert fields <= set(values), f"undocumented: {fields - set(values)}"
    # Each variable has a comment saying what it is, in the lines just above it.
    lines = example.read_text().splitlines()
    for index, line in enumerate(lines):
        if re.match(r"^[A-Z_]+=", line):
            assert lines[index - 1].startswith("#") or re.match(r"^[A-Z_]+=", lines[index - 1])
    # The values written are the defaults: loading the file changes nothing.
    monkeypatch.chdir(tmp_path)
    loaded = load_settings({"BOT_TOKEN": TOKEN}, env_file=example)
    assert loaded == Settings(bot_token=TOKEN)


def test_dockerfile_runs_the_tested_entry_point() -> None:
    scripts = pyproject()["project"]["scripts"]  # type: ignore[index]
    assert scripts["hearts-bot"] == "bot.__main__:main"
    final = dict(final_stage())
    assert final["ENTRYPOINT"] == '["hearts-bot"]'
    assert final["HEALTHCHECK"].endswith('CMD ["hearts-bot", "check"]')
    assert final["STOPSIGNAL"] == "SIGTERM"


def test_dockerfile_base_user_volume_and_database() -> None:
    instructions = dockerfile_instructions()
    assert all(rest.startswith("python:3.11-slim") for word, rest in instructions if word == "FROM")
    final = final_stage()
    user = [rest for word, rest in final if word == "USER"]
    assert user and not user[-1].startswith(("root", "0"))
    assert ("VOLUME", '["/data"]') in final
    env = " ".join(rest for word, rest in final if word == "ENV")
    assert "DATABASE_PATH=/data/hearts.sqlite3" in env
    assert "BACKUP_DIR=/data/backups" in env


def test_dockerfile_installs_every_package_with_pinned_versions() -> None:
    instructions = dockerfile_instructions()
    copied = [rest for word, rest in instructions if word == "COPY"]
    include = pyproject()["tool"]["setuptools"]["packages"]["find"]["include"]  # type: ignore[index]
    for pattern in include:
        package = pattern.rstrip("*")
        assert f"{package} {package}" in copied, package
        assert (ROOT / package).is_dir()
    runs = " ".join(rest for word, rest in instructions if word == "RUN")
    assert "--constraint deploy/constraints.txt" in runs


def test_constraints_agree_with_pyproject() -> None:
    def norm(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    pins = {}
    for line in (DEPLOY / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[norm(name)] = version
    for dependency in pyproject()["project"]["dependencies"]:  # type: ignore[index]
        match = re.match(r"^([A-Za-z0-9_.-]+)(\[[^]]*\])?==(\S+)$", dependency)
        assert match, f"{dependency} is not pinned"
        assert pins.get(norm(match.group(1))) == match.group(3), dependency


def test_compose_file() -> None:
    text = (DEPLOY / "docker-compose.yml").read_text()
    assert "dockerfile: deploy/Dockerfile" in text
    assert "env_file: ../.env" in text
    assert "- hearts-data:/data" in text
    assert "stop_grace_period: 30s" in text
    assert 'profiles: ["local-api"]' in text and "image: aiogram/telegram-bot-api" in text
    assert 'profiles: ["webapp"]' in text and "image: caddy:2" in text
    assert 'profiles: ["postgres"]' in text and "image: postgres:16" in text
    assert "pg_isready" in text and "- hearts-postgres:/var/lib/postgresql/data" in text
    assert "./Caddyfile:/etc/caddy/Caddyfile:ro" in text
    assert "\t" not in text
    caddy = (DEPLOY / "Caddyfile").read_text()
    assert "{$WEBAPP_DOMAIN}" in caddy and "reverse_proxy /app* bot:8081" in caddy


def test_systemd_unit() -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(DEPLOY / "hearts-bot.service")
    service = unit["Service"]
    command = shlex.split(service["ExecStart"])
    assert command[0].endswith("/.venv/bin/hearts-bot") and command[1:] == []
    assert service["Restart"] == "on-failure"
    assert service["KillSignal"] == "SIGTERM"
    assert int(service["TimeoutStopSec"]) >= 10
    assert service["EnvironmentFile"].endswith("/.env")
    assert service["RestartPreventExitStatus"] == "2", "a config error does not loop"
    assert service["User"] != "root"
    data = Path(service["WorkingDirectory"]) / "data"
    assert service["ReadWritePaths"] == str(data), "the default DATABASE_PATH is writable"
    assert unit["Install"]["WantedBy"] == "multi-user.target"


def test_guide_covers_the_organisers_steps() -> None:
    guide = (DEPLOY / "GUIDE.md").read_text()
    for needle in (
        "@BotFather",
        "/newbot",
        "/setprivacy",
        "/setjoingroups",
        "docker compose",
        "systemctl",
        "hearts-bot check",
        "hearts-bot backup",
        "hearts-bot restore",
        "Upgrad",
        "WEBHOOK_SECRET",
        "WEBAPP_URL",
        "Configure Mini App",
        "DATABASE_URL",
        "hearts-bot copy-db",
        "pg_dump",
        "standby",
    ):
        assert needle in guide, needle


def test_compose_file_of_two_accounts_on_two_machines() -> None:
    """Two bot services, one per account (each its env file: its BOT_TOKEN, the shared
    DATABASE_URL), the same image, restarted when a leader loses its lock, /healthz
    published apart; PostgreSQL here only with the "database" profile."""
    text = (DEPLOY / "docker-compose.accounts.yml").read_text()
    assert "\t" not in text
    block = text.split("\nservices:\n", 1)[1].split("\nvolumes:\n", 1)[0]
    services = re.findall(r"^  ([a-z-]+):$", block, re.M)
    assert services == ["bot-a", "bot-b", "postgres"]
    assert text.count("<<: *bot") == 2
    assert "env_file: ../.env.a" in text and "env_file: ../.env.b" in text
    assert "dockerfile: deploy/Dockerfile" in text and "restart: unless-stopped" in text
    assert "stop_grace_period: 30s" in text
    assert '"127.0.0.1:8080:8080"' in text and '"127.0.0.1:8081:8080"' in text
    assert 'profiles: ["database"]' in text and "image: postgres:16" in text
    assert "DATABASE_PATH" not in text  # no SQLite: the accounts share PostgreSQL
    guide = (DEPLOY / "GUIDE.md").read_text()
    assert "docker-compose.accounts.yml" in guide and "several bot accounts" in guide
