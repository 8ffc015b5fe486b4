"""Who plays a tournament: Register and Withdraw, the ``/start e<id>`` link that completes a
registration, who may register (members, ``only=``, ``invite=``), and removing a player."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from bot.basics import Person, UserError
from bot.chats import Button, OpenLink
from bot.i18n import Msg, Tr
from bot.tournaments import render as er
from bot.tournaments.board import Board
from bot.tournaments.parsing import BadRequest, usernames
from bot.tournaments.render import said, who
from domain.tournaments import Registration, RegistrationStatus, StoredTournament

log = logging.getLogger(__name__)

MemberStatus = Callable[[int, int], Awaitable[str | None]]
"""``(chat_id, user_id)`` → the Bot API's chat member status, or None if it cannot tell."""
MEMBER_STATUSES = ("creator", "administrator", "member", "restricted")


class Entries:
    """Registrations, each stored as it changes."""

    def __init__(self, board: Board, member_status: MemberStatus, bot_username: str) -> None:
        self.board = board
        self.desk = board.desk
        self.tournaments = board.tournaments
        self.people = board.people
        self.chats = board.chats
        self.clock = board.clock
        self.member_status = member_status
        self.bot_username = bot_username
        board.desk.on_link("e", self.deep_link)

    async def registration_open(self, tournament_id: int) -> bool:
        """Whether the tournament's message shows its Register and Withdraw buttons now
        (refused, `UserError`, for no such tournament)."""
        return self.board.registration_open(await self.board.get(tournament_id))

    async def register(self, tournament_id: int, person: Person) -> Msg:
        """The Register button."""

        async def job() -> Msg:
            tournament = await self.board.get(tournament_id)
            if not self.board.registration_open(tournament):
                raise UserError(said("Registration for this event is closed."))
            entry = await self.board.entry(tournament, person.id)
            if entry is not None and entry.status == "registered":
                raise UserError(said("You're already registered."))
            await self._check_eligible(tournament, person, entry)
            await self.people.upsert_user(person.id, person.name, person.username)
            if not await self.people.dm_open(person.id):
                await self._save(tournament, person, "pending")
                url = f"https://t.me/{self.bot_username}?start=e{tournament.id}"
                tr = self.board.group(tournament)
                buttons = ((Button(tr("Open my DM to register"), OpenLink(url)),),)
                text = tr(
                    said(
                        "{name}, I can't message you yet: tap below and press <b>Start</b> to "
                        "finish registering for {event}.",
                        name=who(person.name),
                        event=who(tournament.name),
                    ),
                )
                # Posted, not awaited: the press is answered now, not after the group's
                # pace lets this message out (twelve at once would wait 36 s).
                self.chats.post(tournament.chat_id, text, buttons, tournament.thread_id)
                return said("Open a DM with me first (the button below), then you're in.")
            await self._save(tournament, person, "registered")
            count = await self.board.refresh_message(tournament)
            return said("You're registered! {count} so far.", count=count)

        return await self.board.send(tournament_id, job)

    async def deep_link(self, person: Person, tournament_id: int) -> Msg:
        """``/start e<id>`` in private: the DM is open now, so the registration counts."""

        async def job() -> Msg:
            tournament = await self.tournaments.get_tournament(tournament_id)
            if tournament is None or not self.board.registration_open(tournament):
                return said("Registration for this event is closed.")
            entry = await self.board.entry(tournament, person.id)
            if entry is None or entry.status != "registered":
                try:
                    await self._check_eligible(tournament, person, entry)
                except UserError as refusal:
                    return refusal.said
                await self._save(tournament, person, "registered")
                await self.board.refresh_message(tournament)
            chat = who(tournament.state.chat_title)
            starts_at, zone = tournament.starts_at, tournament.time_zone
            if starts_at is not None:

                def moment(tr: Tr) -> str:
                    return er.when(tr, starts_at, zone)

                start = said("Starts: <b>{when}</b>", when=moment)
            else:
                start = said("Starts when the organiser sends /event start.")
            return said(
                "✅ You're registered for <b>{event}</b> in {chat}. {when}",
                event=who(tournament.name),
                chat=chat,
                when=start,
            )

        return await self.board.send(tournament_id, job)

    async def _save(
        self, tournament: StoredTournament, person: Person, status: RegistrationStatus
    ) -> None:
        await self.tournaments.save_registration(
            Registration(
                tournament.id,
                person.id,
                person.name,
                person.username,
                status,
                self.clock(),
            )
        )

    async def _check_eligible(
        self, tournament: StoredTournament, person: Person, entry: Registration | None
    ) -> None:
        """Raise `UserError` with the reason if ``person`` may not register."""
        if entry is not None and entry.status == "removed":
            raise UserError(said("The organiser removed you from this event."))
        username = (person.username or "").lower()
        options = tournament.options
        if username and username in options.invited_usernames:
            return
        status = await self.member_status(tournament.chat_id, person.id)
        if status not in MEMBER_STATUSES:
            if tournament.state.chat_title:
                chat = who(tournament.state.chat_title)
                raise UserError(said("Sorry, this event is for members of {chat} only.", chat=chat))
            raise UserError(said("Sorry, this event is for members of its group only."))
        if options.allowed_usernames:
            if not username:
                raise UserError(
                    said(
                        "Sorry, this event is open to a list of usernames, and you have no "
                        "Telegram username."
                    )
                )
            if username not in options.allowed_usernames:
                raise UserError(
                    said(
                        "Sorry, the organiser opened this event to a list of people, and "
                        "you're not on it. Ask them for an invitation."
                    )
                )

    async def withdraw(self, tournament_id: int, person: Person) -> Msg:
        """The Withdraw button or ``/tournament withdraw``: in a running tournament, a forfeit."""

        async def job() -> Msg:
            tournament = await self.board.get(tournament_id)
            entry = await self.board.entry(tournament, person.id)
            if entry is None or entry.status not in ("registered", "pending"):
                raise UserError(said("You're not registered."))
            await self.tournaments.save_registration(replace(entry, status="withdrawn"))
            if tournament.status in ("running", "paused"):
                await self.forfeit(tournament, person.id)
                await self.board.announce(
                    tournament,
                    said(
                        "🚪 {player} withdrew from <b>{name}</b>.",
                        player=who(entry.display_name),
                        name=who(tournament.name),
                    ),
                )
            await self.board.refresh_message(tournament)
            return said("You've withdrawn from the event.")

        return await self.board.send(tournament_id, job)

    async def forfeit(self, tournament: StoredTournament, user_id: int) -> None:
        """A person leaves a running tournament: a computer plays their seat; they cannot go on."""
        for table in await self.tournaments.tournament_tables(
            tournament.id, tournament.current_round
        ):
            seat = table.seat_of(user_id)
            if seat is None or table.status != "playing":
                continue
            seats = list(table.seats)
            seats[seat] = replace(seats[seat], no_show=True)
            await self.tournaments.save_tournament_table(replace(table, seats=tuple(seats)))
            if table.game_id is not None and self.desk.live(table.game_id) is not None:
                await self.desk.replace_with_computer(table.game_id, seat)

    async def remove(
        self,
        tournament_id: int,
        person: Person,
        words: Sequence[str],
        reply_to: Person | None,
    ) -> Msg:
        async def job() -> Msg:
            tournament = await self.board.get(tournament_id)
            entries = await self.tournaments.registrations(tournament.id)
            target: Registration | None = None
            if reply_to is not None:
                target = next((r for r in entries if r.user_id == reply_to.id), None)
                wanted = reply_to.name
            elif words:
                wanted = words[0].lstrip("@").lower()
                target = next(
                    (
                        r
                        for r in entries
                        if (r.username or "").lower() == wanted
                        or str(r.user_id) == wanted
                        or r.display_name.lower() == wanted
                    ),
                    None,
                )
            else:
                return said("Whom? Reply to their message or give their @username.")
            if target is None:
                return said("No one called {name} is registered.", name=who(wanted))
            await self.tournaments.save_registration(replace(target, status="removed"))
            if tournament.status in ("running", "paused"):
                await self.forfeit(tournament, target.user_id)
            await self.board.refresh_message(tournament)
            await self.board.announce(
                tournament,
                said(
                    "🚫 {player} was removed from <b>{name}</b> by {by}.",
                    player=who(target.display_name),
                    name=who(tournament.name),
                    by=who(person.name),
                ),
            )
            return said("{name} was removed.", name=who(target.display_name))

        return await self.board.send(tournament_id, job)

    async def set_list(self, tournament_id: int, which: str, words: Sequence[str]) -> Msg:
        async def job() -> Msg:
            tournament = await self.board.get(tournament_id)
            try:
                names = usernames(which, " ".join(words))
            except BadRequest as error:
                raise UserError(error.said) from None
            if which == "only":
                options = replace(tournament.options, allowed_usernames=names)
            else:
                options = replace(tournament.options, invited_usernames=names)
            tournament = replace(tournament, options=options)
            await self.tournaments.save_tournament(tournament)
            await self.board.refresh_message(tournament)
            shown = ", ".join("@" + n for n in names) or "—"
            return said("Done: {names}.", names=shown)

        return await self.board.send(tournament_id, job)
