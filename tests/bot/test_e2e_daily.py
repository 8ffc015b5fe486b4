"""The daily deal (issue 34) through the Bot API double: two people play the day's deals
in their DMs (one of them across a restart), get the same deals, are scored in
matchpoints against each other, see their place and their group's board; nobody plays
twice, nothing reveals a seed before the day is closed, and then the seeds verify."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from bot_harness import FAST, card_button, finished_game, rooms_of, running_bot
from test_e2e_fair_deals import debug_log  # noqa: F401 (a fixture)
from test_live_server import open_page, signed, until

from bot.daily.daily import GRACE, OPTIONS
from bot.tables.model import Seat, Table
from bot.timers import ManualClock
from domain.games import StoredSeat
from engine import Game, Rules, daily, fair
from engine.players import ExpertPlayer
from sandbox.double import BotApiDouble
from sandbox.people import SandboxUser
from sandbox.testing import running_double
from sandbox.views import MessageView

NOW = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def quick_computers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The day's computers here decide as the real ones do, steady and from the deal, but
    on few deals and passing by the rule of thumb: these tests follow the daily deal through
    the bot (the same deals, matchpoints, a restart, the posts), which the computers'
    strength does not change; tests/engine/test_daily.py plays the real ones (its second
    of thinking per pass and a tenth per card took most of these tests' time)."""

    def computer(seed: int) -> ExpertPlayer:
        return ExpertPlayer(seed, deals=8, steady=True, search_pass=False)

    monkeypatch.setattr(daily, "computer", computer)


DAY = daily.day_number(NOW.timestamp())


async def daily_table(app: object, person: SandboxUser) -> Table:
    rooms = rooms_of(app)  # type: ignore[arg-type]
    mine = await rooms.storage.daily.game_of(DAY, person.id)
    assert mine is not None
    table = rooms.registry.get(mine.game_id)
    assert table is not None
    return table


def _dm_has(double: BotApiDouble, person: SandboxUser, prefix: str, since: int = 0) -> bool:
    """Whether a button of the person's DM (of a message after ``since``) starts so."""
    return any(
        b.label.startswith(prefix)
        for m in double.chat_view(person.dm).bot_messages
        if m.message_id > since
        for b in m.all_buttons()
    )


async def move(double: BotApiDouble, person: SandboxUser, table: Table, high: bool) -> bool:
    """The person's move by pressing (the lowest legal card, or the highest); False if it
    is not their turn."""
    game = table.game
    assert game is not None
    if daily.PERSON_SEAT not in game.waiting_for() or game.phase == "over":
        return False
    if game.phase == "pass":
        for card in game.hand(daily.PERSON_SEAT)[-3:]:
            data = await card_button(double, person, card, game.hand_number)
            await person.press(person.dm, None, data=data)
        await double.wait_for(lambda: _dm_has(double, person, "Pass 3/3"), 5)
        await person.press(person.dm, None, lambda b: b.label.startswith("Pass 3/3"))
        return True
    if game.phase == "moon":
        await double.wait_for(lambda: _dm_has(double, person, "+"), 5)
        await person.press(person.dm, None, lambda b: b.label.endswith("everyone else"))
        return True
    legal = game.legal_plays()
    card = legal[-1] if high else legal[0]
    data = await card_button(double, person, card, game.hand_number)
    await person.press(person.dm, None, data=data)
    return True


async def play(
    double: BotApiDouble, person: SandboxUser, table: Table, high: bool, hands: int = 4
) -> None:
    """Play until the game is over (or ``hands`` hands are)."""

    def waiting() -> bool:
        game = table.game
        assert game is not None
        return (
            game.phase == "over"
            or len(game.hand_history) >= hands
            or daily.PERSON_SEAT in game.waiting_for()
        )

    while True:
        await double.wait_for(waiting, 60)
        game = table.game
        assert game is not None
        if game.phase == "over" or len(game.hand_history) >= hands:
            return
        await move(double, person, table, high)


def texts(double: BotApiDouble) -> list[str]:
    return [e.message.text or "" for e in double.history() if e.message is not None]


async def test_two_people_play_the_days_deals_and_are_scored_against_each_other(
    tmp_path: Path,
) -> None:
    database = tmp_path / "db.sqlite3"
    clock = ManualClock(NOW)
    tuning = replace(FAST, clock=clock)
    async with running_double() as double:
        ann, bob = double.create_user("Ann"), double.create_user("Bob")
        group = double.create_group("Club", members=[ann, bob], admins=[ann])
        async with running_bot(double, database, tuning) as app:
            await finished_game(double, app, group, [ann, bob])  # both seen in the group
            since = {ann.id: ann.dm_view().messages[-1].message_id}
            await ann.send(ann.dm, "/daily")
            await double.wait_for(lambda: ann.dm_view().find("Daily deal") is not None, 10)
            table = await daily_table(app, ann)
            assert table.daily == DAY and table.options.turn_timer == 0
            assert [s.kind for s in table.seats if s] == ["human", *["computer"] * 3]
            assert {s.level for s in table.seats[1:] if s} == {"expert"}
            first_deal = list(table.game.hands) if table.game else []
            await play(double, ann, table, high=False, hands=1)
            await double.idle()
            ann_game_id = table.id
        # A restart in the middle loses nothing: /daily resumes the same game.
        async with running_bot(double, database, tuning, pages=True) as app:
            rooms = rooms_of(app)
            table = await daily_table(app, ann)
            assert table.id == ann_game_id and table.game is not None
            assert len(table.game.hand_history) == 1
            await ann.send(ann.dm, "/daily")
            await double.wait_for(lambda: ann.dm_view().find("goes on") is not None, 10)
            await play(double, ann, table, high=False)
            await double.wait_for(lambda: ann.dm_view().find("place 1 of 1") is not None, 20)
            ann_game = table.game
            # Bob gets the same deals; he plays differently.
            since[bob.id] = bob.dm_view().messages[-1].message_id
            await bob.send(bob.dm, "/daily")
            await double.wait_for(lambda: bob.dm_view().find("Daily deal") is not None, 10)
            bobs = await daily_table(app, bob)
            assert bobs.game is not None and list(bobs.game.hands) == first_deal
            await play(double, bob, bobs, high=True)
            await double.wait_for(lambda: bob.dm_view().find("of 2") is not None, 20)
            bob_game = bobs.game
            assert ann_game is not None and bob_game is not None
            # Their matchpoints, hand by hand, against each other.
            results = await rooms.storage.daily.results(DAY)
            assert results == {
                ann.id: [int(h.points[0]) for h in ann_game.hand_history],
                bob.id: [int(h.points[0]) for h in bob_game.hand_history],
            }
            scores = daily.scores(results)
            for person in (ann, bob):
                mark = daily.hand_marks(results, person.id)
                assert all(m in (0.0, 50.0, 100.0) for m in mark)
                assert scores[person.id] == sum(mark) / 4
            assert scores[ann.id] + scores[bob.id] == 100.0
            # The result's 📣 Share button shares a card through inline mode: the day, the
            # score, a symbol per hand, and no card.
            share = next(
                b
                for m in bob.dm_view().bot_messages
                for b in m.all_buttons()
                if b.label == "📣 Share my result"
            )
            assert share.switch_inline_query == "daily" and share.callback_data is None
            [card] = await bob.inline_query("daily")
            shared = card["input_message_content"]["message_text"]
            assert f"daily deal {DAY}" in shared and f"{round(scores[bob.id])}%" in shared
            row = "".join(
                "🟩" if m >= 75 else "🟨" if m >= 25 else "🟥"
                for m in daily.hand_marks(results, bob.id)
            )
            assert row in shared
            assert not any(suit in shared for suit in "♠♥♦♣")
            outsider = double.create_user("Cat")
            assert await outsider.inline_query("daily") == []
            # A second /daily: no second game, their result and place.
            before = len(bob.dm_view().bot_messages)
            await bob.send(bob.dm, "/daily")
            await double.wait_for(lambda: len(bob.dm_view().bot_messages) > before, 10)
            said = bob.dm_view().last()
            assert said is not None and "place" in (said.text or "")
            assert f"{round(scores[bob.id])}%" in (said.text or "")
            assert (await rooms.storage.daily.game_of(DAY, bob.id)).game_id == bobs.id  # type: ignore[union-attr]
            # The group's board: both, best first.
            await ann.send(group, "/daily")
            await double.wait_for(
                lambda: double.chat_view(group.id).find(f"Daily deal {DAY}") is not None, 10
            )
            board = double.chat_view(group.id).find(f"Daily deal {DAY}")
            assert board is not None and board.text is not None
            lines = board.text.splitlines()
            first, second = sorted((ann, bob), key=lambda p: -scores[p.id])
            assert first.name in lines[1] and f"{round(scores[first.id])}%" in lines[1]
            assert second.name in lines[2] and f"{round(scores[second.id])}%" in lines[2]
            assert "(4/4 hands)" in lines[1]
            # Nothing said anywhere holds a seed of the day's hands, and no screen offers
            # a hint or a review of them.
            key = daily.day_key(await rooms.storage.daily.secret(), DAY)
            seeds = [fair.parse_seed(p.seed)[2].hex() for p in daily.proofs(key)]
            everything = "\n".join(texts(double))
            assert not any(seed in everything for seed in seeds)
            assert key.hex() not in everything
            for person in (ann, bob):
                for prefix in ("💡", "🔍"):
                    assert not _dm_has(double, person, prefix, since[person.id])
            # Nobody replays the day's hands before the day has closed, their player
            # neither (a ▶ button of theirs, forged: no screen offers one).
            for person in (bob, ann):
                last = person.dm_view().last()
                assert last is not None
                for data in (f"rh:{bobs.id}:1:", f"rg:{bobs.id}:0:"):
                    said = await person.press_forged(person.dm, last.message_id, data)
                    assert said is not None and said.startswith(
                        "The daily deal's hands can be replayed once its day has closed"
                    ), said
            async with open_page(app, signed(double, bob), bobs.id) as page:
                await until(lambda: bool(page.states()))
                await page.socket.send_str(
                    json.dumps({"t": "replay", "id": 4, "game": bobs.id, "hand": 1})
                )
                await until(lambda: any(m.get("id") == 4 for m in page.received))
                said = next(m for m in page.received if m.get("id") == 4)
                assert said["text"].startswith("The daily deal's hands can be replayed once")
            # The commitments were shown in the DM before each hand was played.
            for proof in daily.proofs(key):
                assert proof.commitment[:12] in everything
            # Once the day is closed, its seeds are published and verify.
            clock.advance(timedelta(days=1, seconds=GRACE))
            await ann.send(ann.dm, "/daily seeds")
            await double.wait_for(lambda: ann.dm_view().find("is over") is not None, 10)
            published = ann.dm_view().find("is over")
            assert published is not None and published.text is not None
            for hand, proof in enumerate(daily.proofs(key), start=1):
                assert proof.seed in published.text and proof.commitment in published.text
                verdict = fair.verify(proof.seed, proof.commitment)
                assert verdict.matches
                replayed = Game(daily.RULES, deal_key=key)
                if hand == 1:
                    assert verdict.hands == replayed.hands
            # And anyone may replay them: Ann her own game, a button away.
            label = f"▶ Replay day {DAY}"
            assert published.button(label) is not None
            await ann.press(ann.dm, published.message_id, label)

            def replayed() -> str:
                shown = ann.dm_view().message(published.message_id)
                return (shown.text or "") if shown is not None else ""

            await double.wait_for(lambda: "Choose a hand" in replayed(), 10)
            await ann.press(ann.dm, published.message_id, "Hand 1")
            await double.wait_for(lambda: replayed().startswith("▶ Hand 1"), 10)
            assert ann.name in replayed() and "→" in replayed()
            last = bob.dm_view().last()
            assert last is not None
            assert await bob.press_forged(bob.dm, last.message_id, f"rh:{bobs.id}:2:") == "▶ Hand 2"
            # On the table page too: Bob's own game, hand by hand, with the coach's marks.
            async with open_page(app, signed(double, bob), bobs.id) as page:
                await until(lambda: bool(page.states()))
                await page.socket.send_str(
                    json.dumps({"t": "replay", "id": 5, "game": bobs.id, "hand": 3})
                )
                await until(lambda: any(m.get("id") == 5 for m in page.received))
                said = next(m for m in page.received if m.get("id") == 5)
                assert said["t"] == "replay" and said["you"] == daily.PERSON_SEAT
                await until(lambda: page.last("marks") is not None, 30)
            # The closed day's scores are settled as they stood.
            settled = await rooms.storage.daily.game_of(DAY, ann.id)
            assert settled is not None and settled.score == scores[ann.id]


async def test_a_game_claimed_but_never_dealt_is_dealt_at_the_next_daily(tmp_path: Path) -> None:
    """The bot stopped between claiming the person's game of the day and dealing it (a
    lobby no screen ever showed): /daily deals the day's game then, and it is theirs."""
    database = tmp_path / "db.sqlite3"
    tuning = replace(FAST, clock=ManualClock(NOW))
    async with running_double() as double:
        ann = double.create_user("Ann")
        async with running_bot(double, database, tuning) as app:
            rooms = rooms_of(app)
            table = Table(
                id=0,
                chat_id=ann.id,
                thread_id=None,
                chat_title="",
                creator_id=ann.id,
                creator_name="Ann",
                rules=daily.RULES,
                options=OPTIONS,
                seats=[Seat("human", "Ann", ann.id), None, None, None],
                daily=DAY,
            )
            stuck = await rooms.storage.games.create_lobby(
                ann.id, None, ann.id, daily.RULES, table.stored_seats(), table.stored_meta()
            )
            assert await rooms.storage.daily.claim(DAY, ann.id, stuck)
        async with running_bot(double, database, tuning) as app:
            rooms = rooms_of(app)
            await ann.send(ann.dm, "/daily")
            await double.wait_for(lambda: ann.dm_view().find("Daily deal") is not None, 10)
            mine = await rooms.storage.daily.game_of(DAY, ann.id)
            assert mine is not None and mine.game_id != stuck
            dealt = rooms.registry.get(mine.game_id)
            assert dealt is not None and dealt.game is not None and dealt.daily == DAY
            assert (await rooms.storage.games.load_game(stuck)).status == "cancelled"
            assert rooms.registry.get(stuck) is None
            await double.wait_for(lambda: _dm_has(double, ann, "Pass 0/3"), 10)


async def test_a_game_left_unfinished_counts_as_it_stood_when_the_day_closes(
    tmp_path: Path,
) -> None:
    database = tmp_path / "db.sqlite3"
    clock = ManualClock(NOW)
    tuning = replace(FAST, clock=clock)
    async with running_double() as double:
        ann = double.create_user("Ann")
        async with running_bot(double, database, tuning) as app:
            rooms = rooms_of(app)
            await ann.send(ann.dm, "/daily")
            await double.wait_for(lambda: ann.dm_view().find("Daily deal") is not None, 10)
            table = await daily_table(app, ann)
            await play(double, ann, table, high=False, hands=1)
            await double.idle()
            assert table.game is not None
            # Still playable after midnight, until the close (a game of day D is day D's)…
            clock.advance(timedelta(hours=14, minutes=59))
            assert daily.day_number(clock().timestamp()) == DAY + 1
            await play(double, ann, table, high=False, hands=2)
            await double.idle()
            assert table.game is not None and len(table.game.hand_history) == 2
            stood = tuple(int(h.points[0]) for h in table.game.hand_history)
            # …and closed after it: the game stops, its hands played so far count, and
            # the two hands it did not play score 0 % each (stopping never pays).
            clock.advance(timedelta(minutes=2))
            await ann.send(ann.dm, "/daily")
            await double.wait_for(
                lambda: ann.dm_view().find(f"Daily deal {DAY + 1}") is not None, 10
            )
            assert ann.dm_view().find(f"Daily deal {DAY} is closed") is not None
            assert rooms.registry.get(table.id) is None
            assert (await rooms.storage.games.load_game(table.id)).status == "cancelled"
            settled = await rooms.storage.daily.game_of(DAY, ann.id)
            assert settled is not None and settled.points == stood
            assert settled.score == (50.0 + 50.0 + 0.0 + 0.0) / 4  # alone on the day
            tomorrow = await rooms.storage.daily.game_of(DAY + 1, ann.id)
            assert tomorrow is not None and tomorrow.game_id != table.id


async def test_two_dailys_at_once_make_one_game(tmp_path: Path) -> None:
    tuning = replace(FAST, clock=ManualClock(NOW))
    async with running_double() as double:
        ann = double.create_user("Ann")
        async with running_bot(double, tmp_path / "db.sqlite3", tuning) as app:
            rooms = rooms_of(app)
            await ann.send(ann.dm, "/daily")
            await ann.send(ann.dm, "/daily")
            await double.wait_for(lambda: ann.dm_view().find("goes on") is not None, 10)
            await double.idle()
            mine = [t for t in rooms.registry.tables.values() if t.daily == DAY]
            assert len(mine) == 1 and mine[0].seat_of(ann.id) == daily.PERSON_SEAT
            assert ann.dm_view().find("Daily deal") is not None


async def test_the_secret_and_the_days_key_are_never_logged(
    tmp_path: Path,
    debug_log: io.StringIO,  # noqa: F811 (the fixture imported above)
) -> None:
    tuning = replace(FAST, clock=ManualClock(NOW))
    async with running_double() as double:
        ann = double.create_user("Ann")
        async with running_bot(double, tmp_path / "db.sqlite3", tuning) as app:
            rooms = rooms_of(app)
            await ann.send(ann.dm, "/daily")
            await double.wait_for(lambda: ann.dm_view().find("Daily deal") is not None, 10)
            table = await daily_table(app, ann)
            await play(double, ann, table, high=False, hands=1)
            await double.idle()
            secret = await rooms.storage.daily.secret()
    logged = debug_log.getvalue()
    assert logged  # the bot did log, at DEBUG
    key = daily.day_key(secret, DAY)
    for hidden in (secret.hex(), key.hex(), *(p.seed for p in daily.proofs(key))):
        assert hidden not in logged


async def test_a_result_is_posted_to_the_persons_groups_once_in_their_languages(
    tmp_path: Path,
) -> None:
    """📣 Post to my groups: Ann's card of the day lands in both groups she plays in, each
    in its language, with no card of the deal; not in the group that removed the bot, nor
    in one she never played in; a second press posts nothing."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "storage"))
    from storage_testkit import play_stored

    clock = ManualClock(NOW)
    async with running_double() as double:
        ann = double.create_user("Ann")
        olga = double.create_user("Ольга", language_code="ru")
        club = double.create_group("Club", members=[ann, olga], admins=[ann])
        klub = double.create_group("Клуб", members=[ann, olga], admins=[olga])
        gone = double.create_group("Gone", members=[ann, olga], admins=[ann])
        other = double.create_group("Other", members=[ann, olga], admins=[olga])
        # Ann only sat at a table there, cancelled before it was dealt: still a member as
        # the bot knows her (issue 51: "I haven't seen you finish a game in a group").
        sat = double.create_group("Sat", members=[ann, olga], admins=[olga])
        async with running_bot(double, tmp_path / "db.sqlite3", replace(FAST, clock=clock)) as app:
            await finished_game(double, app, club, [ann, olga])  # through the bot
            store = rooms_of(app).storage
            # Games finished in the other groups, stored as the bot stores them.
            for seed, (group, people) in enumerate(
                ((klub, [ann, olga]), (gone, [ann, olga]), (other, [olga])), start=1
            ):
                ids = [p.id for p in people]
                await play_stored(
                    store, Rules(target=20), seed=seed, chat_id=group.id, user_ids=ids
                )
            seats = [StoredSeat(0, "human", ann.name, ann.id)]
            seats += [StoredSeat(n, "computer", f"C{n}", None, "easy") for n in (1, 2, 3)]
            lobby = await store.games.create_lobby(sat.id, None, olga.id, Rules(), seats, {})
            await store.games.cancel_game(lobby)
            await rooms_of(app).languages.choose_for_chat(klub.id, "ru")  # an admin's /language
            gone.remove_bot(ann)
            await double.idle()
            await ann.send(ann.dm, "/daily")
            await double.wait_for(lambda: ann.dm_view().find("Daily deal") is not None, 10)
            table = await daily_table(app, ann)
            await play(double, ann, table, high=False)
            await double.wait_for(lambda: _dm_has(double, ann, "📣 Post to my groups"), 20)
            groups = (club, klub, gone, other, sat)
            before = {g.id: len(double.chat_view(g.id).bot_messages) for g in groups}
            said = await ann.press(ann.dm, None, "📣 Post to my groups")
            assert said == "📣 Posted to your groups: 3"

            def posted(group: object) -> list[str]:
                gid = group.id  # type: ignore[attr-defined]
                shown = double.chat_view(gid).bot_messages[before[gid] :]
                return [(m.text or "").replace("\u2068", "").replace("\u2069", "") for m in shown]

            await double.wait_for(lambda: bool(posted(club)) and bool(posted(klub)), 10)
            rooms = rooms_of(app)
            line = await rooms.daily.boards.mine(DAY, ann.id)
            assert line is not None
            row = "".join("🟩" if m >= 75 else "🟨" if m >= 25 else "🟥" for m in line.marks)
            (english,) = posted(club)
            assert english.startswith("📣 Ann's daily deal:")
            assert f"Hearts, daily deal {DAY}: {round(line.score)}%" in english
            (russian,) = posted(klub)
            assert russian.startswith("📣 Расклад дня: Ann"), russian
            assert f"Черви, расклад дня {DAY}: {round(line.score)}" in russian
            for text in (english, russian):
                assert row in text and not any(suit in text for suit in "♠♥♦♣")
            assert posted(other) == [] and posted(gone) == []
            await double.wait_for(lambda: bool(posted(sat)), 10)
            # The group's board counts her too: Olga asks there, and Ann is on it.
            await olga.send(sat, "/daily")
            await double.wait_for(lambda: any("in this group" in t for t in posted(sat)), 10)
            board = next(t for t in posted(sat) if "in this group" in t)
            assert "1. Ann — " in board and "Nobody here" not in board, board
            # A second press: nothing more posted anywhere.
            again = await ann.press(ann.dm, None, "📣 Post to my groups")
            assert again == f"Your result of daily deal {DAY} is already in your groups."
            await double.idle()
            assert len(posted(club)) == 1 and len(posted(klub)) == 1 and len(posted(sat)) == 2
            # A forged button of a day still to come is refused.
            last = ann.dm_view().last()
            assert last is not None
            refused = await ann.press_forged(ann.dm, last.message_id, f"dp:{DAY + 1}:0:")
            assert refused == "This button is from another daily deal."


async def test_daily_seeds_n_gives_an_earlier_closed_days_seeds_and_replay(
    tmp_path: Path,
) -> None:
    """``/daily seeds N``: the seeds of any of the last 30 closed days, with ▶ Replay day N
    for the person's own game of it; a day not closed yet, one too old and a word that is
    not a day each get a clear answer."""
    clock = ManualClock(NOW)
    async with running_double() as double:
        ann, bob = double.create_user("Ann"), double.create_user("Bob")
        async with running_bot(double, tmp_path / "db.sqlite3", replace(FAST, clock=clock)) as app:
            await ann.send(ann.dm, "/daily")
            await double.wait_for(lambda: ann.dm_view().find("Daily deal") is not None, 10)
            store = rooms_of(app).storage
            mine = await store.daily.game_of(DAY, ann.id)
            assert mine is not None
            await play(double, ann, await daily_table(app, ann), high=False, hands=1)
            await double.idle()
            clock.advance(timedelta(days=2, seconds=GRACE))  # days DAY and DAY + 1 closed

            def newest(person: SandboxUser = ann) -> int:
                return max((m.message_id for m in person.dm_view().bot_messages), default=0)

            def said_since(
                since: int, expect: str, person: SandboxUser = ann
            ) -> MessageView | None:
                return next(
                    (
                        m
                        for m in person.dm_view().bot_messages
                        if m.message_id > since and expect in (m.text or "")
                    ),
                    None,
                )

            async def answer(text: str, expect: str, person: SandboxUser = ann) -> str:
                await double.idle()
                before = newest(person)
                await person.send(person.dm, text)
                await double.wait_for(lambda: said_since(before, expect, person) is not None, 10)
                shown = said_since(before, expect, person)
                assert shown is not None and shown.text is not None
                return shown.text

            # The latest closed day: Ann did not play it, so no ▶ button.
            before = newest()
            await answer("/daily seeds", f"Daily deal {DAY + 1} is over")
            latest = said_since(before, f"Daily deal {DAY + 1} is over")
            assert latest is not None and latest.button(f"▶ Replay day {DAY + 1}") is None
            before = newest()
            shown = await answer(f"/daily seeds {DAY}", f"Daily deal {DAY} is over")
            key = daily.day_key(await store.daily.secret(), DAY)
            for proof in daily.proofs(key):
                assert proof.seed in shown and proof.commitment in shown
            earlier = said_since(before, f"Daily deal {DAY} is over")
            assert earlier is not None and earlier.button(f"▶ Replay day {DAY}") is not None
            await ann.press(ann.dm, earlier.message_id, f"▶ Replay day {DAY}")

            def replaying() -> str:
                shown = ann.dm_view().message(earlier.message_id)  # type: ignore[union-attr]
                return (shown.text or "") if shown is not None else ""

            await double.wait_for(lambda: "Choose a hand" in replaying(), 10)
            # Bob asks the rest (five commands at once each: the flood guard's burst).
            await bob.start_bot()
            await answer(f"/daily seeds {DAY + 2}", f"Daily deal {DAY + 2} hasn't closed yet.", bob)
            await answer(
                f"/daily seeds {DAY - 29}",
                f"the last 30 closed days: daily deals {DAY - 28} to {DAY + 1}",
                bob,
            )
            await answer("/daily seeds yesterday", "or /daily seeds N for daily deal N", bob)
