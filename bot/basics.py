"""What every room of the bot shares: who acts, and a request that is turned down."""

from __future__ import annotations

from dataclasses import dataclass


class UserError(Exception):
    """A request the bot turns down; the message is shown to the person as it is."""


@dataclass(frozen=True)
class Person:
    """Someone who sent an update: their Telegram id, the name the bot shows, @username."""

    id: int
    name: str
    username: str | None = None
