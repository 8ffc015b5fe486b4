"""The daily deal at the table (README, "The daily deal"): ``/daily`` in a DM starts the
day's game (the person and three `expert` computers, no turn timer, in their DM, on the
table core like any other table) or resumes it, or says how they did; in a group, the
group's board. One game per person per day (storage's key); a day closes `GRACE` after it
ends, and only then are its seeds published and its scores settled.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from bot.basics import Person, UserError
from bot.core.commands import Cancel, ShowAgain
from bot.core.decode import PostDaily
from bot.core.effects import AnnounceHand, FinishGame
from bot.core.phases import Phase
from bot.i18n import Msg, msg
from bot.mailbox import Mailboxes
from bot.screens.parts import Bare, Name, Number, Part
from bot.screens.screens import Screens
from bot.screens.seat_screen import Button, ShareInline, Words
from bot.tables.closing import Closer
from bot.tables.model import Seat, Table, TableOptions
from bot.tables.play import Moves
from bot.tables.registry import TableRegistry
from bot.tables.seating import daily_refused, seated
from bot.timers import Clock, Scheduler
from engine import Game, daily
from storage import Journal, SeatTaken
from storage.daily import Boards, streak
from storage.daily import Daily as StoredDaily

GRACE = 3_600
"""Seconds after a day's end during which a game started that day may still be finished
(someone who starts at 23:59 finishes on the day they started); then the day is closed:
its results stand as they are, its seeds are published."""
SHARE_QUERY = "daily"
"""The inline query the 📣 Share button starts (``@bot daily``): the bot answers it with
the presser's card."""
SEEDS_DAYS = 30
"""``/daily seeds N`` gives the seeds of any of the latest closed days, this many."""
MINIMUM_DAYS = 3
"""Closed days a person needs on the overall board."""
OPTIONS = TableOptions(turn_timer=0, computer_level=daily.LEVEL, track_cards=True, hints=False)
"""At their own pace (no turn timer), against `expert` computers, without the coach."""


class DailyDesk:
    """``/daily``: starts, resumes and reports the person's daily deal; a group's board."""

    def __init__(
        self,
        registry: TableRegistry,
        moves: Moves,
        screens: Screens,
        games: Journal,
        stored: StoredDaily,
        clock: Clock,
        closer: Closer,
        scheduler: Scheduler,
    ) -> None:
        self.registry = registry
        self.closer = closer
        self.scheduler = scheduler
        self.moves = moves
        self.screens = screens
        self.games = games
        self.stored = stored
        self.clock = clock
        self.boards = Boards(stored)
        """Each day's results scored, kept in memory (`storage.daily.Boards`)."""
        self._starting = Mailboxes()
        """Each person's /daily, one at a time (a second waits for the first)."""

    # ------------------------------------------------------------------ the days

    def today(self) -> int:
        return daily.day_number(self.clock().timestamp())

    def last_closed(self) -> int:
        """The latest day closed (ended `GRACE` ago or more)."""
        return daily.day_number(self.clock().timestamp() - GRACE) - 1

    async def close_days(self) -> None:
        """Close every day that ended `GRACE` ago: its games still open stop where they
        stood (they count as they stand), then its scores are settled. Run at each day's
        close (`arm`), at start, and before anything reads a board."""
        closed = self.last_closed()
        for table in list(self.registry.tables.values()):
            if table.daily is None or table.daily > closed:
                continue
            await self.registry.send(table.id, functools.partial(self._day_closed, table))
        await self.stored.settle(closed)

    async def _day_closed(self, table: Table) -> None:
        if self.registry.get(table.id) is not table or not table.phase.live:
            return
        said = msg("☀ Daily deal {day} is closed: your game counts as it stood.", day=table.daily)
        await self.closer.close(table, Cancel(told=said))

    def arm(self) -> None:
        """Close the days at each day's close from now on (the first one now)."""
        now = self.clock().timestamp()
        next_close = daily.day_start(self.last_closed() + 2) + GRACE
        self.scheduler.arm("daily:close", max(1.0, next_close - now), self._closing)

    async def _closing(self) -> None:
        await self.close_days()
        self.arm()

    # ------------------------------------------------------------------ in a DM

    async def play(self, person: Person) -> list[Part]:
        """Start the day's game, or resume it, or say how it went (and the place)."""
        return await self._starting.send(person.id, lambda: self._play(person))

    async def _play(self, person: Person) -> list[Part]:
        today = self.today()
        await self.close_days()  # the days closed since, as they stood
        mine = await self.stored.game_of(today, person.id)
        if mine is None:
            return await self._start(person, today)
        table = self.registry.get(mine.game_id)
        if table is not None and table.phase is Phase.DEALT:
            going = table
            await self.registry.send(
                going.id, lambda: self.moves.apply(going, ShowAgain(daily.PERSON_SEAT))
            )
            return [msg("☀ Your daily deal goes on: your cards are below.")]
        stored = await self.games.load_game(mine.game_id, verify=False)
        if stored.game is None and stored.status in ("lobby", "cancelled"):
            # Claimed, never dealt: the bot stopped in between. Nothing was seen: deal now.
            if table is not None:
                self.registry.forget(table)
            if stored.status == "lobby":
                await self.games.cancel_game(stored.id)
            return await self._start(person, today, replacing=stored.id)
        return await self.place_lines(today, person.id)

    async def _start(self, person: Person, today: int, replacing: int | None = None) -> list[Part]:
        """The day's game dealt in the person's DM, claimed as theirs (``replacing``: the
        game claimed before that was never dealt)."""
        key = daily.day_key(await self.stored.secret(), today)
        table = Table(
            id=0,
            chat_id=person.id,
            thread_id=None,
            chat_title=f"☀ {today}",  # the day's number: the same in every language
            creator_id=person.id,
            creator_name=person.name,
            rules=daily.RULES,
            options=OPTIONS,
            seats=[Seat("human", person.name, person.id), None, None, None],
            daily=today,
        )
        for seat in range(1, daily.RULES.players):
            table.seats[seat] = table.computer()
        try:
            table.id = await self.games.create_lobby(
                person.id,
                None,
                person.id,
                daily.RULES,
                table.stored_seats(),
                table.stored_meta(),
            )
        except SeatTaken as taken:  # seated at a table (any bot account's): one at a time
            raise UserError(daily_refused(await seated(self.games, taken))) from None
        if replacing is None:
            claimed = await self.stored.claim(today, person.id, table.id)
        else:
            claimed = await self.stored.reclaim(today, person.id, replacing, table.id)
        if not claimed:
            await self.games.cancel_game(table.id)  # a second /daily that came at once
            raise UserError(msg("☀ Your daily deal is already on its way."))
        self.registry.add(table, 0)
        game = Game(daily.RULES, deal_key=key)
        await self.registry.send(table.id, lambda: self.moves.begin(table, game))
        return [
            msg(
                "☀ <b>Daily deal {day}</b>: the same four hands for everyone today, against "
                "three expert computers, at your own pace. Your cards are below.",
                day=today,
            )
        ]

    async def place_lines(self, day: int, user_id: int) -> list[Part]:
        """How the person did on the day's deal: their score, place and hands."""
        line = await self.boards.mine(day, user_id)
        if line is None:
            return [msg("You haven't finished a hand of daily deal {day}.", day=day)]
        days = await self.stored.days_played(user_id)
        overall = await self.stored.overall_of(user_id)
        lines: list[Part] = [
            msg(
                "☀ <b>Daily deal {day}</b>: {score} · place {place} of {count}",
                day=day,
                score=Number(line.score / 100, "percent"),
                place=line.place,
                count=line.count,
            ),
            msg("Your hands: {row}", row=Bare(_row(line.points, line.marks))),
            msg("🔥 Days in a row: {days}", days=streak(days, self.today())),
        ]
        if overall is not None:
            mean, closed = overall
            lines.append(
                msg(
                    "Overall: {score} over {days} closed days",
                    score=Number(mean / 100, "percent"),
                    days=closed,
                )
            )
        return lines

    # ------------------------------------------------------------------ a group's board

    async def board_lines(self, chat_id: int, asking: int | None = None) -> list[Part]:
        """The day's board of the group's members, and their overall board; `asking`:
        who sent /daily there (a member, whether or not the bot knew it before)."""
        today = self.today()
        members = await self.stored.members(chat_id) | ({asking} if asking else set())
        played = await self.boards.lines(today, members)  # exact, against the day's board
        here = sorted(((line.score, user) for user, line in played.items()), key=lambda x: -x[0])
        names = await self.stored.names([user for _, user in here])
        lines: list[Part] = [msg("☀ <b>Daily deal {day}</b> in this group", day=today)]
        if not here:
            lines.append(msg("Nobody here has played today's deal yet: send me /daily in a DM."))
        for rank, (score, user) in enumerate(here[:10], start=1):
            lines.append(
                msg(
                    "{rank}. {name} — {score} ({hands}/{all} hands)",
                    rank=rank,
                    name=Name(names.get(user, str(user))),
                    score=Number(score / 100, "percent"),
                    hands=len(played[user].points),
                    all=daily.HANDS,
                )
            )
        await self.close_days()
        overall = await self.stored.overall(MINIMUM_DAYS, among=members)
        if overall:
            lines.append("")
            lines.append(msg("<b>Overall</b> (the mean of {days} days or more)", days=MINIMUM_DAYS))
            for rank, row in enumerate(overall, start=1):
                lines.append(
                    msg(
                        "{rank}. {name} — {score} over {days} days",
                        rank=rank,
                        name=Name(row.name),
                        score=Number(row.score / 100, "percent"),
                        days=row.count,
                    )
                )
        return lines

    # ------------------------------------------------------------------ published seeds

    async def seeds_lines(self, day: int | None = None) -> list[Part]:
        """A closed day's seeds (the latest, or ``day``: one of the latest `SEEDS_DAYS`),
        to check against the commitments shown before each hand."""
        latest = self.last_closed()
        if latest < 1:
            return [msg("No daily deal has closed yet.")]
        if day is not None and day > latest:
            raise UserError(msg("Daily deal {day} hasn't closed yet.", day=day))
        if day is not None and (day < 1 or day <= latest - SEEDS_DAYS):
            raise UserError(
                msg(
                    "I give the seeds of the last {count} closed days: daily deals {first} "
                    "to {last}.",
                    count=SEEDS_DAYS,
                    first=max(1, latest - SEEDS_DAYS + 1),
                    last=latest,
                )
            )
        day = latest if day is None else day
        await self.close_days()
        key = daily.day_key(await self.stored.secret(), day)
        lines: list[Part] = [
            msg(
                "🔓 <b>Daily deal {day}</b> is over. Each hand's seed, beside the "
                "commitment you saw before it (its first 12 digits): the seed fixes the "
                "hand's deal, and the README's \"Fair deals\" checks one in a few lines "
                "of Python.",
                day=day,
            )
        ]
        for hand, proof in enumerate(daily.proofs(key), start=1):
            lines.append(
                msg(
                    "{hand}. <code>{seed}</code> 🔐 <code>{commitment}</code>",
                    hand=hand,
                    seed=Bare(proof.seed),
                    commitment=Bare(proof.commitment),
                )
            )
        return lines

    async def closed_game(self, user_id: int, day: int | None = None) -> tuple[int, int] | None:
        """The latest closed day (or ``day``, closed) and the person's game of it, to
        replay (None: they did not play it). Anyone may replay a closed day's hands
        (`bot.replays.replays`)."""
        day = self.last_closed() if day is None else day
        if day < 1 or day > self.last_closed():
            return None
        played = await self.stored.game_of(day, user_id)
        return None if played is None else (day, played.game_id)

    # ------------------------------------------------------------------ the game's end

    async def hand_scored(self, table: Table, _: AnnounceHand) -> None:
        """A hand of a daily game was scored (and stored): the day's board reads it."""
        s = table.seats[daily.PERSON_SEAT]
        if table.daily is not None and s is not None and s.user_id is not None:
            self.boards.changed(table.daily, s.user_id)

    async def finished(self, table: Table, _: FinishGame) -> None:
        """The person's result, as the daily game ends."""
        if table.daily is None:
            return
        s = table.seats[daily.PERSON_SEAT]
        if s is None or s.user_id is None:
            return
        lines = await self.place_lines(table.daily, s.user_id)
        share = Button(msg("📣 Share my result"), ShareInline(SHARE_QUERY))
        post = Button(msg("📣 Post to my groups"), PostDaily(table.daily))
        self.screens.tell(s.user_id, Words(tuple(lines), ((share, post),), table.id))

    async def post(self, day: int, person: Person) -> Msg:
        """📣 Post to my groups: the person's card of ``day`` (no card of the deal) to each
        group the bot knows them in (`storage.Daily.groups_of`), in the group's language,
        once per group and day, never to a group that removed or blocked the bot. The
        toast."""
        if not 0 < day <= self.today():
            raise UserError(msg("This button is from another daily deal."))
        card = await self.card(day, person.id)
        if card is None:
            return msg("You haven't finished a hand of daily deal {day}.", day=day)
        groups = [g for g in await self.stored.groups_of(person.id) if not self.screens.is_gone(g)]
        if not groups:
            return msg(
                "I don't know a group of yours yet: sit at a table in one, and your card "
                "can go there."
            )
        said = Words((msg("📣 {name}'s daily deal:", name=Name(person.name)), *card))
        posted = 0
        for group in groups:
            if await self.stored.claim_post(day, person.id, group):
                self.screens.post_to_group(group, said)
                posted += 1
        if not posted:
            return msg("Your result of daily deal {day} is already in your groups.", day=day)
        return msg("📣 Posted to your groups: {count}", count=posted)

    async def share_card(self, user_id: int) -> list[Part] | None:
        """Today's result as a card to send anywhere: the day, the score and a symbol per
        hand played, nothing of the cards (None: no hand of today's deal played yet)."""
        return await self.card(self.today(), user_id)

    async def card(self, day: int, user_id: int) -> list[Part] | None:
        """The person's card of ``day`` (`share_card`)."""
        line = await self.boards.mine(day, user_id)
        if line is None:
            return None
        row = "".join(_symbol(m) for m in line.marks)
        return [
            msg(
                "☀ Hearts, daily deal {day}: {score}",
                day=day,
                score=Number(line.score / 100, "percent"),
            ),
            Bare(row),
        ]


def _symbol(mark: float) -> str:
    """A hand's matchpoints as a symbol: 🟩 75 % or more, 🟨 25 % or more, 🟥 less."""
    return "🟩" if mark >= 75 else "🟨" if mark >= 25 else "🟥"


def _row(points: Sequence[int], marks: Sequence[float]) -> str:
    """A symbol and the points per hand."""
    return " ".join(f"{_symbol(mark)}{p}" for p, mark in zip(points, marks, strict=False))
