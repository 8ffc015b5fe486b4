"""What a newcomer's first game shows, step by step, in the group and in the DM (issue 19)."""

from __future__ import annotations

from pathlib import Path

from bot_harness import running_bot

from sandbox.double import BotApiDouble
from sandbox.testing import running_double
from sandbox.views import MessageView

ROOT = Path(__file__).resolve().parents[2]


async def said(double: BotApiDouble, chat_id: int, text: str) -> MessageView:
    """The bot's newest message in the chat containing `text`, once it is there."""
    found = await double.wait_for(
        lambda: next(
            (m for m in reversed(double.chat_view(chat_id).bot_messages) if text in (m.text or "")),
            None,
        ),
        5,
    )
    assert isinstance(found, MessageView)
    return found


async def test_event_help_is_a_short_list(tmp_path: Path) -> None:
    async with running_double() as double:
        ana = double.create_user("Ana")
        group = double.create_group("Cups", members=[ana], admins=[ana])
        async with running_bot(double, tmp_path / "db.sqlite3"):
            await ana.send(group, "/event help")
            text = (await said(double, group.id, "Events")).text or ""
            lines = text.split("\n")
            assert len(lines) >= 15
            assert max(len(line) for line in lines) < 90
            options = [line for line in lines if line.startswith("• ")]
            for option in ("size=", "advance=", "top=", "computers=", "grace=", "only="):
                assert sum(option in line for line in options) == 1, option
            assert "Organiser or admins:" in lines


def test_the_rule_book_ships_with_the_project() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "](docs/RULES.md)" in readme and "../shared" not in readme
    assert (ROOT / "docs" / "RULES.md").read_text().startswith("#")
