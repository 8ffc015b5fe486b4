"""A deal anyone can verify (issue 33, item 3), through the Bot API double: each hand's
commitment is in the group's table message before anyone passes, its seed is said nowhere
until the hand is over, and the seed then revealed gives exactly the cards the journal
dealt, and the commitment published before; a restart mid-hand changes none of it."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bot_harness import open_table, play_turn, rooms_of, running_bot, table_in

from bot.config import Settings
from bot.core import decode as cb
from bot.logs import setup_logging
from bot.tables.model import Table
from domain.people import ChatSettings
from engine import Game, Rules, fair
from engine.cards import codes, mask_of_codes
from sandbox.double import BotApiDouble
from sandbox.people import Group, SandboxUser
from sandbox.testing import running_double
from sandbox.views import Event

FAIR_DEALS = Path(__file__).resolve().parents[2] / "docs" / "fair-deals.md"
SEED = re.compile(r"Deal seed: (\S+)")  # a cancelled hand's, whole
COMMITMENT = re.compile(r"Commitment: ([0-9a-f]{64})")
SHOWN = re.compile(r"Deal seed (\d+p-d\d+-[0-9a-f]{12})… · 🔐 ([0-9a-f]{12})…")
HAND = re.compile(r"Hand (\d+)")


def readme_snippet() -> dict[str, Any]:
    """docs/fair-deals.md's snippet, run as it is printed: its `deal` and `check`."""
    code = FAIR_DEALS.read_text().split("```python\n", 1)[1].split("```", 1)[0]
    found: dict[str, Any] = {}
    exec(compile(code, "fair-deals.md", "exec"), found)
    return found


async def dealt_hands(app: Any, game_id: int) -> dict[int, tuple[list[int], int]]:
    """Each hand's deal (each seat's cards, the dead ones), replayed from the journal."""
    game, journal = await rooms_of(app).storage.games.game_and_moves(game_id)
    dealt = {1: (list(game.hands), game.dead)}
    for move, _ in journal:
        move.apply(game)
        if game.phase != "over" and game.hand_number not in dealt:
            dealt[game.hand_number] = (list(game.hands), game.dead)
    return dealt


def said(event: Event) -> str:
    """What an event shows: its text and its buttons' labels, links and copied text."""
    message = event.message
    if message is None:
        return ""
    buttons = [f"{b.label} {b.callback_data} {b.url} {b.copy_text}" for b in message.all_buttons()]
    return "\n".join([message.text or "", *buttons])


def reveals(double: BotApiDouble, group: Group) -> dict[int, tuple[Event, str, str]]:
    """Each hand's result message in the group: the event, the seed (copied whole by its
    📋 button), the commitment as shown (12 digits: issue 51 took the two 64-digit values
    out of every hand's result)."""
    found: dict[int, tuple[Event, str, str]] = {}
    for event in double.history(group.id):
        text = event.message.text if event.message else None
        if event.kind != "sent" or not text or "Deal seed" not in text:
            continue
        assert event.message is not None
        hand = HAND.search(text)
        shown = SHOWN.search(text)
        copied = [b.copy_text for b in event.message.all_buttons() if b.copy_text]
        assert hand and shown and len(copied) == 1, text
        seed = copied[0]
        assert seed is not None and seed.startswith(shown[1]) and len(seed) > len(shown[1])
        assert not re.search(r"[0-9a-f]{20}", text), text  # no long value in the group
        assert any("Replay" in b.label for b in event.message.all_buttons())
        found[int(hand[1])] = (event, seed, shown[2])
    return found


def first_publication(double: BotApiDouble, group: Group, commitment: str) -> Event:
    """The first version of a group message that carries this commitment, shown short
    in its text and whole in its copy button."""
    for event in double.history(group.id):
        message = event.message
        if event.kind not in ("sent", "edited") or message is None:
            continue
        copied = {b.copy_text for b in message.all_buttons()}
        if f"Deal commitment: {commitment[:12]}…" in (message.text or ""):
            assert commitment in copied, (message.text, copied)
            return event
    raise AssertionError(f"commitment {commitment} never published")


async def short_game(
    double: BotApiDouble,
    app: Any,
    group: Group,
    people: list[SandboxUser],
) -> tuple[int, Table]:
    """Two people and two computers at a table to 50 points (two hands at least: one
    gives at most 26), dealt; returns the table."""
    for person in people:
        await person.start_bot()
    await double.idle()
    await rooms_of(app).storage.people.save_chat_settings(
        ChatSettings(group.id, rules=Rules(target=50, ties="share").to_dict())
    )
    lobby = await open_table(double, people[0], group, computers=2)
    await people[1].press(group, lobby, "✋ Join")
    await people[0].press(group, lobby, "▶ Start")
    table = table_in(app, group)
    await double.wait_for(lambda: table.game is not None, 5)
    return lobby, table


def check_every_hand(
    double: BotApiDouble,
    group: Group,
    dealt: dict[int, tuple[list[int], int]],
    people: list[SandboxUser],
    game_id: int,
) -> dict[int, tuple[Event, str, str]]:
    """Every hand's seed revealed gives its deal and commitment, published before any
    person's pass of the hand and before the reveal; no seed is said anywhere before."""
    revealed = reveals(double, group)
    assert set(revealed) == set(dealt), (sorted(revealed), sorted(dealt))
    everything = double.history()
    pressed = 0
    for hand, (event, seed, shown) in revealed.items():
        verdict = fair.verify(seed, "")
        commitment = verdict.commitment
        assert commitment.startswith(shown), (hand, seed, shown)
        assert fair.verify(seed, commitment).matches
        revealed[hand] = (event, seed, commitment)
        assert (verdict.hands, verdict.dead) == dealt[hand]
        published = first_publication(double, group, commitment)
        assert published.seq < event.seq
        passes = [
            c
            for c in double.callbacks.values()
            if c.data.startswith(f"{cb.PASS}:{game_id}:{hand}:")
            and c.user_id in {p.id for p in people}
        ]
        assert all(published.at <= c.created for c in passes)
        pressed += len(passes)
        secret = fair.parse_seed(seed)[2].hex()
        before = [e for e in everything if e.seq < event.seq and secret in said(e)]
        assert before == [], (hand, before[:1])
    assert pressed >= 1  # a person's pass of hand 1, checked against its commitment
    return revealed


@pytest.fixture
def debug_log(tmp_path: Path) -> Iterator[io.StringIO]:
    """The bot's own logging, at DEBUG (the most it ever says), into a string."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    levels = {name: logging.getLogger(name).level for name in logging.root.manager.loggerDict}
    stream = io.StringIO()
    setup_logging(
        Settings(bot_token="123:" + "T" * 35, database_path=tmp_path / "x", log_level="DEBUG"),
        stream,
    )
    yield stream
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)
    for name, old in levels.items():
        logging.getLogger(name).setLevel(old)


async def test_each_hand_is_committed_before_the_pass_and_its_seed_revealed_after(
    tmp_path: Path, debug_log: io.StringIO
) -> None:
    async with running_double() as double:
        ann, bob = double.create_user("Ann"), double.create_user("Bob")
        group = double.create_group("Fair", members=[ann, bob], admins=[ann])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            _, table = await short_game(double, app, group, [ann, bob])
            game = table.game
            assert game is not None and game.deal_key is not None
            # Hand 1: both people pass by pressing, once the commitment is out.
            proof = game.deal_proof()
            assert proof is not None
            await double.wait_for(
                lambda: any(
                    proof.commitment == b.copy_text
                    for m in double.chat_view(group.id).bot_messages
                    for b in m.all_buttons()
                ),
                5,
            )
            for person in (ann, bob):
                assert await play_turn(double, person, table) is not None
            for person in (ann, bob):  # the computers play the rest
                await person.send(group, "/leave")
            await double.wait_for(lambda: table.status == "finished", 120)
            await double.idle()
            dealt = await dealt_hands(app, table.id)
            assert len(dealt) >= 2
            revealed = check_every_hand(double, group, dealt, [ann, bob], table.id)
            # The bot's logs, even at DEBUG, never hold the game's key (a seed only once
            # the message revealing it is sent).
            assert game.deal_key.hex() not in debug_log.getvalue()
            # The README's few lines of Python agree with the bot on a real game.
            snippet = readme_snippet()
            for hand, (_, seed, commitment) in revealed.items():
                assert snippet["check"](seed, commitment) is True
                assert not snippet["check"](seed, commitment[::-1])
                piles = [p.split() for p in snippet["deal"](seed)]
                hands, dead = dealt[hand]
                assert [mask_of_codes(p) for p in piles] == hands and dead == 0


async def test_a_restart_mid_hand_keeps_the_commitment_and_reveals_its_seed(
    tmp_path: Path,
) -> None:
    database = tmp_path / "db.sqlite3"
    async with running_double() as double:
        ann, bob = double.create_user("Ann"), double.create_user("Bob")
        group = double.create_group("Restart", members=[ann, bob], admins=[ann])
        async with running_bot(double, database) as app:
            _, table = await short_game(double, app, group, [ann, bob])
            game = table.game
            assert game is not None
            before = game.deal_proof()
            assert before is not None
            assert await play_turn(double, ann, table) is not None
            await double.idle()
            game_id = table.id
        async with running_bot(double, database) as app:
            table = table_in(app, group)
            resumed = table.game
            assert isinstance(resumed, Game) and resumed.hand_number == 1
            assert resumed.deal_proof() == before
            for person in (ann, bob):
                await person.send(group, "/leave")
            await double.wait_for(lambda: table.status == "finished", 120)
            await double.idle()
            dealt = await dealt_hands(app, game_id)
        revealed = check_every_hand(double, group, dealt, [ann, bob], game_id)
        assert revealed[1][1:] == before


def test_the_readme_snippet_deals_as_the_bot_for_every_table_size() -> None:
    """The docs' snippet and `hearts-bot verify`'s engine agree on every table size and
    dealer (two players' dead cards included), and both refuse a changed commitment."""
    snippet = readme_snippet()
    for players in range(2, 7):
        for dealer in range(players):
            seed = fair.seed_text(players, dealer, bytes([players, dealer] * 16))
            verdict = fair.verify(seed, "")
            piles = [*verdict.hands, verdict.dead] if players == 2 else verdict.hands
            assert snippet["deal"](seed) == [" ".join(codes(p)) for p in piles]
            assert snippet["check"](seed, verdict.commitment)
            assert fair.verify(seed, verdict.commitment).matches
            changed = verdict.commitment[:-1] + ("1" if verdict.commitment[-1] == "0" else "0")
            assert not snippet["check"](seed, changed)
            assert not fair.verify(seed, changed).matches


def shown_when_pressed(double: BotApiDouble, press: Any) -> str:
    """The text of the message a press was made on, as it stood when it was pressed."""
    versions = [
        e
        for e in double.history(press.chat_id)
        if e.message_id == press.message_id and e.message is not None and e.at <= press.created
    ]
    assert versions, press
    return versions[-1].message.text or ""


async def test_whoever_passes_has_seen_the_commitment_even_before_the_group_has(
    tmp_path: Path,
) -> None:
    """Telegram slow in the group (its edits held): a person who passes at once still
    passes from a screen that shows the hand's commitment, the same the group shows later."""
    async with running_double() as double:
        ann, bob = double.create_user("Ann"), double.create_user("Bob")
        group = double.create_group("Slow", members=[ann, bob], admins=[ann])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            for person in (ann, bob):
                await person.start_bot()
            await double.idle()
            lobby = await open_table(double, ann, group, computers=2)
            await bob.press(group, lobby, "✋ Join")
            double.hold("editMessageText", group.id)
            await ann.press(group, lobby, "▶ Start")
            table = table_in(app, group)
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            assert game is not None
            proof = game.deal_proof()
            assert proof is not None
            short = f"Deal commitment: {proof.commitment[:12]}…"
            for person in (ann, bob):
                assert await play_turn(double, person, table) is not None
            passes = [
                c
                for c in double.callbacks.values()
                if c.data.startswith(f"{cb.PASS}:{table.id}:1:")
            ]
            assert {c.user_id for c in passes} == {ann.id, bob.id}
            # The group has not shown it yet: Telegram holds its edits.
            assert not any(short in said(e) for e in double.history(group.id))
            for press in passes:
                assert short in shown_when_pressed(double, press)
            double.release("editMessageText", group.id)
            await double.wait_for(
                lambda: any(short in said(e) for e in double.history(group.id)), 10
            )
            published = first_publication(double, group, proof.commitment)
            assert published.method == "editMessageText"


@pytest.mark.parametrize("when", ["mid-pass", "mid-trick"])
async def test_a_cancelled_game_reveals_the_seed_of_its_unfinished_hand(
    tmp_path: Path, when: str
) -> None:
    """Once the game is cancelled nobody can use its hand's seed: the group's message that
    says so reveals it with the commitment published at the deal; they give that deal."""
    async with running_double() as double:
        ann, bob = double.create_user("Ann"), double.create_user("Bob")
        group = double.create_group("Stop", members=[ann, bob], admins=[ann])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            _, table = await short_game(double, app, group, [ann, bob])
            game = table.game
            assert game is not None
            proof = game.deal_proof()
            assert proof is not None
            dealt = (list(game.hands), game.dead)
            assert await play_turn(double, ann, table) is not None
            if when == "mid-trick":
                assert await play_turn(double, bob, table) is not None
                await double.wait_for(lambda: game.phase == "play", 5)
                for person in (ann, bob):  # whoever holds 2♣ leads (a computer at once)
                    if await play_turn(double, person, table) is not None:
                        break
                await double.wait_for(lambda: len(game.trick) > 0, 10)
                assert game.hand_number == 1 and not game.tricks
            else:
                assert game.phase == "pass" and game.has_passed(table.seat_of(ann.id) or 0)
            await ann.send(group, "/cancel")
            await double.wait_for(lambda: table.status == "cancelled", 5)
            await double.idle()
        secret = fair.parse_seed(proof.seed)[2].hex()
        ends = [
            e
            for e in double.history(group.id)
            if e.message is not None and "cancelled during hand 1" in (e.message.text or "")
        ]
        assert ends, [e.message.text for e in double.history(group.id) if e.message]
        text = ends[0].message.text or ""
        seed, commitment = SEED.search(text), COMMITMENT.search(text)
        assert seed and commitment, text
        assert (seed[1], commitment[1]) == proof
        verdict = fair.verify(seed[1], commitment[1])
        assert verdict.matches and (verdict.hands, verdict.dead) == dealt
        assert first_publication(double, group, proof.commitment).seq < ends[0].seq
        before = [e for e in double.history() if e.seq < ends[0].seq and secret in said(e)]
        assert before == []
