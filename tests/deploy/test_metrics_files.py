"""The metrics' deploy files: Prometheus's scrape config and alerts, Grafana's provisioning
and dashboard, and the compose profile that runs them, parsed and checked against the
metrics the bot serves (no container engine runs here)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from prometheus_client.parser import text_string_to_metric_families

from bot.metrics import LINES, PRIORITIES, Metrics, Watched
from bot.tables.model import Table

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
NAME = re.compile(r"\bhearts_[a-z_]+\b")


def served_names() -> set[str]:
    """Every sample name a bot's /metrics holds once each thing it counts has happened."""
    no_tables: list[Table] = []
    metrics = Metrics("1")
    metrics.watch(
        Watched(
            tables=lambda: no_tables,
            outbox_line=lambda: dict.fromkeys(PRIORITIES, 1),
            outbox_pending=lambda: {"pending": 1, "posts": 1, "deletions": 0},
            thinker_line=lambda: dict.fromkeys(LINES, 1),
        )
    )
    metrics.named("hearts_bot")
    metrics.requested("http://x/bot1:secret/sendMessage", 429, 0.1)
    metrics.toasted(0.1)
    metrics.shown(5, 0, 0.1)
    metrics.came("message")
    metrics.failed()
    metrics.waited_turn(0, 0.1)
    metrics.waited_worker(0, 0.1)
    metrics.hinted(1.0)
    metrics.reviewed(1.0)
    return {
        sample.name
        for family in text_string_to_metric_families(metrics.text().decode())
        for sample in family.samples
    } | {"hearts_moves_total"}  # counted per move (tests/bot/test_metrics.py plays a game)


def dashboard() -> dict[str, Any]:
    loaded = json.loads((DEPLOY / "grafana" / "dashboards" / "hearts.json").read_text())
    assert isinstance(loaded, dict)
    return loaded


def expressions() -> list[str]:
    return [t["expr"] for p in dashboard()["panels"] for t in p.get("targets", [])]


def test_every_metric_the_dashboard_and_the_alerts_name_is_served() -> None:
    served = served_names()
    alerts = yaml.safe_load((DEPLOY / "prometheus-alerts.yml").read_text())
    rules = [r for group in alerts["groups"] for r in group["rules"]]
    named = {n for e in expressions() + [r["expr"] for r in rules] for n in NAME.findall(e)}
    assert named, "the dashboard names the bot's metrics"
    assert named <= served, named - served
    # Everything the bot serves is on the dashboard (the info series names the accounts).
    shown = {re.sub(r"_(bucket|count|sum)$", "", n) for n in named}
    families = {re.sub(r"_(bucket|count|sum)$", "", n) for n in served}
    assert families - shown <= {"hearts_bot_info"}, families - shown
    assert "hearts_bot_info" in dashboard()["templating"]["list"][0]["definition"]


def test_the_dashboard_is_grafanas_and_each_panel_is_by_account() -> None:
    board = dashboard()
    assert board["uid"] == "hearts-bot" and board["title"]
    panels = [p for p in board["panels"] if p["type"] != "row"]
    assert len(panels) >= 12
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids))
    for panel in panels:
        assert panel["targets"] and panel["description"], panel["title"]
        assert panel["datasource"]["uid"] == "prometheus"
        for target in panel["targets"]:
            assert 'account=~"$account"' in target["expr"], target["expr"]
        grid = panel["gridPos"]
        assert grid["x"] >= 0 and grid["x"] + grid["w"] <= 24
    titles = " ".join(p["title"] for p in panels)
    for needle in ("phase", "Moves", "method", "outcome", "Outbox", "Computers", "Hint"):
        assert needle in titles, needle
    assert "Press → toast" in titles and "commit" in titles and "Leader" in titles


def test_prometheus_scrapes_the_bot_and_grafana_reads_prometheus() -> None:
    config = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    (job,) = config["scrape_configs"]
    assert job["metrics_path"] == "/metrics"
    assert job["static_configs"][0]["targets"] == ["bot:8080"]
    assert config["rule_files"] == ["/etc/prometheus/alerts.yml"]
    source = yaml.safe_load(
        (DEPLOY / "grafana" / "provisioning" / "datasources" / "prometheus.yml").read_text()
    )
    (prometheus,) = source["datasources"]
    assert prometheus["uid"] == "prometheus" and prometheus["url"] == "http://prometheus:9090"
    provider = yaml.safe_load(
        (DEPLOY / "grafana" / "provisioning" / "dashboards" / "hearts.yml").read_text()
    )
    assert provider["providers"][0]["options"]["path"] == "/etc/grafana/dashboards"


def test_the_compose_profile_runs_prometheus_and_grafana_with_these_files() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    services = compose["services"]
    assert "profiles" not in services["bot"], "the bot runs in every profile"
    mounted: dict[str, str] = {}
    for name in ("prometheus", "grafana"):
        service = services[name]
        assert service["profiles"] == ["metrics"]
        assert re.search(r":v?\d+\.\d+\.\d+$", service["image"]), "a pinned image"
        for volume in service["volumes"]:
            source, target, *_ = volume.split(":")
            if source.startswith("./"):
                assert (DEPLOY / source).exists(), source
                mounted[target] = source
            else:
                assert source in compose["volumes"], source
    assert mounted["/etc/prometheus/prometheus.yml"] == "./prometheus.yml"
    assert mounted["/etc/prometheus/alerts.yml"] == "./prometheus-alerts.yml"
    assert mounted["/etc/grafana/provisioning"] == "./grafana/provisioning"
    assert mounted["/etc/grafana/dashboards"] == "./grafana/dashboards"
    # Grafana only on the host's loopback; Prometheus and the bot's /metrics not published.
    assert services["grafana"]["ports"] == ["127.0.0.1:3000:3000"]
    assert "ports" not in services["prometheus"]
    password = services["grafana"]["environment"]["GF_SECURITY_ADMIN_PASSWORD"]
    assert password.startswith("${GRAFANA_ADMIN_PASSWORD:?")
    assert "GRAFANA_ADMIN_PASSWORD=" in (ROOT / ".env.example").read_text()
