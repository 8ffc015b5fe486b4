"""Texts cut to what Telegram takes: a message of 4,096 characters, a caption of 1,024.

Telegram refuses a longer text outright ("message is too long"), so a message with state
that depends on it (a table's message) would never be shown. A text over the limit is cut
with an ellipsis at the limit instead, its HTML kept valid (no tag or entity cut in two,
every open tag closed). Lengths are counted as Telegram counts them, in UTF-16 code units,
on the HTML itself: never less than what Telegram counts after parsing it.
"""

from __future__ import annotations

import re

from telegram.constants import MessageLimit

MESSAGE_LIMIT = int(MessageLimit.MAX_TEXT_LENGTH)
CAPTION_LIMIT = int(MessageLimit.CAPTION_LENGTH)
ELLIPSIS = "…"

_TOKEN = re.compile(r"<[^<>]*>|&#?\w+;|[^<&]+|[<&]")
_TAG_NAME = re.compile(r"</?\s*([A-Za-z][\w-]*)")


def utf16_len(text: str) -> int:
    """Length as Telegram counts it: UTF-16 code units (an emoji can count two)."""
    return len(text.encode("utf-16-le")) // 2


def fit_html(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` (Telegram HTML) as it is if it fits in `limit`; else cut to fit, ending
    with "…" and closing the tags still open at the cut."""
    if utf16_len(text) <= limit:
        return text
    kept: list[str] = []
    used = utf16_len(ELLIPSIS)
    open_tags: list[str] = []

    def closing(tags: list[str]) -> int:
        return sum(len(name) + 3 for name in tags)  # </name>

    for match in _TOKEN.finditer(text):
        token = match.group(0)
        size = utf16_len(token)
        tag = _TAG_NAME.match(token) if token.startswith("<") and len(token) > 1 else None
        if tag is not None and token.startswith("</"):
            name = tag.group(1).lower()
            if name in open_tags:  # closing it never makes the text longer in the end
                open_tags.remove(name)
                kept.append(token)
                used += size
            continue
        if tag is not None:
            after = [*open_tags, tag.group(1).lower()]
            if used + size + closing(after) > limit:
                break
            open_tags = after
        else:
            room = limit - used - closing(open_tags)
            if size > room:
                if token[0] not in "<&":  # plain text is cut; an entity is kept whole or not
                    kept.append(_cut(token, room))
                break
        kept.append(token)
        used += size
    end = "".join(f"</{name}>" for name in reversed(open_tags))
    return "".join(kept).rstrip() + ELLIPSIS + end


def _cut(text: str, room: int) -> str:
    """The longest start of plain `text` within `room` UTF-16 code units."""
    out: list[str] = []
    for char in text:
        room -= utf16_len(char)
        if room < 0:
            break
        out.append(char)
    return "".join(out)
