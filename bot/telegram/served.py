"""Which bot account serves a group (issue 35: several accounts on one database).

A group is served by one account: the first one used there claims it
(`storage.accounts.Accounts.serving`), and its tables and tournaments are that account's.
Another account added to the group says, once, which account serves it ("This group is
served by @A.", in the group's language; stored, so a restart does not say it again) and
stays quiet after: every update of that group stops here, before any handler
(`ServedGroups.gate`, the first handler group), so it opens no lobby and answers no
command. An account removed from a group it served gives the group up: the next account
used there claims it.

Private chats are nobody's: a person's DM is with the account of the table they joined,
which is the one whose links they followed (deep links name the bot's own username).
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.ext import ApplicationHandlerStop

from bot.i18n import msg
from bot.languages import Languages
from bot.screens.parts import HTML, say
from bot.telegram.context import HeartsContext
from bot.telegram.outbox import Outbox
from storage.accounts import Accounts
from storage.errors import StorageError

log = logging.getLogger(__name__)

GROUPS = (ChatType.GROUP, ChatType.SUPERGROUP)
GONE = (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED)


class ServedGroups:
    """The gate every group's update passes first (see the module's docstring)."""

    def __init__(self, accounts: Accounts, languages: Languages, outbox: Outbox) -> None:
        self.accounts = accounts
        self.languages = languages
        self.outbox = outbox

    async def gate(self, update: object, context: HeartsContext) -> None:
        """Let the update through if this account serves its group (claiming the group if
        nobody does); otherwise say once who does, and stop it."""
        if not isinstance(update, Update):
            return
        chat = update.effective_chat
        if chat is None or chat.type not in GROUPS:
            return
        member = update.my_chat_member
        if member is not None and member.new_chat_member.status in GONE:
            # Removed from the group: give it up if it was ours, say nothing either way.
            try:
                if await self.accounts.serving(chat.id) == self.accounts.account:
                    await self.accounts.release(chat.id)
                    log.info("group %s removed this account: no longer served by it", chat.id)
            except StorageError as error:
                log.warning("the group's serving account cannot be read: %s", error)
            return
        try:
            serving = await self.accounts.serving(chat.id)
        except StorageError as error:  # as without accounts: serve it
            log.warning("the group's serving account cannot be read: %s", error)
            return
        if serving == self.accounts.account:
            return
        try:
            tell = await self.accounts.tell_once(chat.id)
            other = await self.accounts.who_serves(chat.id) if tell else None
        except StorageError as error:
            log.warning("the group's serving account cannot be read: %s", error)
            tell, other = False, None
        if tell:
            name = f"@{other.username}" if other is not None and other.username else None
            said = (
                msg("This group is served by {bot}: play Hearts here with it.", bot=name)
                if name is not None
                else msg("This group is served by another Hearts bot: play here with it.")
            )
            thread = (
                update.effective_message.message_thread_id if update.effective_message else None
            )
            self.outbox.post(
                chat.id, say(self.languages.chat(chat.id), said, HTML), thread_id=thread
            )
            log.info("group %s is served by account %s: said so once", chat.id, serving)
        raise ApplicationHandlerStop
