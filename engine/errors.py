"""The one error a move can raise."""

from __future__ import annotations


class IllegalMove(ValueError):
    """A move the rules do not allow. The game is left exactly as it was.

    ``reason`` is a stable code for programs (``"must_follow_suit"``); the message is a
    sentence for the player ("You must follow ♣"); ``details`` are the values in it
    (``suit="♣"``), so a program can say the same in another language.
    """

    def __init__(self, reason: str, message: str, **details: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.details = details

    def __repr__(self) -> str:
        return f"IllegalMove({self.reason!r}, {self.message!r})"
