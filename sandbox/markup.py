"""Telegram's message markup (HTML and MarkdownV2) turned into plain text and entities.

The parsers follow what the Bot API accepts and the errors it gives back, so that a bot that
sends bad markup to the double fails the way it would fail against Telegram. Entity offsets
and lengths are counted in UTF-16 code units, as the Bot API counts them; error positions
are byte offsets into the UTF-8 source, as Telegram reports them.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any

Entity = dict[str, Any]


class MarkupError(ValueError):
    """The text cannot be parsed; the message is the part after "can't parse entities: "."""


def utf16_len(text: str) -> int:
    """The length of `text` in UTF-16 code units, the unit of entity offsets."""
    return len(text.encode("utf-16-le")) // 2


def _byte_offset(source: str, index: int) -> int:
    return len(source[:index].encode("utf-8"))


def parse(text: str, parse_mode: str | None) -> tuple[str, list[Entity]]:
    """Plain text and entities for `text` under `parse_mode` (None, HTML, MarkdownV2, Markdown).

    Raises MarkupError with Telegram's wording when the markup is invalid, and ValueError for
    an unknown parse mode.
    """
    if not parse_mode:
        return text, []
    mode = parse_mode.lower()
    if mode == "html":
        return parse_html(text)
    if mode == "markdownv2":
        return parse_markdown_v2(text)
    if mode == "markdown":
        return parse_markdown_legacy(text)
    raise ValueError(f"Unsupported parse_mode {parse_mode!r}")


_HTML_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "span": "spoiler",
    "tg-spoiler": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
    "tg-time": "date_time",
}
_ENTITY_RE = re.compile(r"&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);")
_TEXT_RE = re.compile(r"[^&<]+")  # a run of plain text, taken whole
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ATTRIBUTE_RE = re.compile(r"""\s*([a-zA-Z0-9_-]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?""")


@dataclass
class _OpenTag:
    name: str
    offset: int
    attributes: dict[str, str] = field(default_factory=dict)


def _decode_entity(match: re.Match[str]) -> str | None:
    body = match.group(1)
    if body.startswith("#x"):
        code = int(body[2:], 16)
    elif body.startswith("#"):
        code = int(body[1:])
    else:
        return _NAMED_ENTITIES.get(body)
    if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF:
        return chr(code)
    return None


def parse_html(source: str) -> tuple[str, list[Entity]]:
    """Parse Telegram HTML; see `parse`."""
    out: list[str] = []
    out_len = 0  # in UTF-16 units
    entities: list[Entity] = []
    stack: list[_OpenTag] = []
    i = 0
    n = len(source)
    while i < n:
        char = source[i]
        if char == "&":
            match = _ENTITY_RE.match(source, i)
            decoded = _decode_entity(match) if match else None
            if match and decoded is not None:
                out.append(decoded)
                out_len += utf16_len(decoded)
                i = match.end()
            else:
                # Telegram keeps an unknown or bare ampersand as it is.
                out.append("&")
                out_len += 1
                i += 1
            continue
        if char != "<":
            run = _TEXT_RE.match(source, i)
            assert run is not None  # `char` itself is text
            out.append(run.group())
            out_len += utf16_len(run.group())
            i = run.end()
            continue
        tag_at = _byte_offset(source, i)
        if i + 1 >= n:
            raise MarkupError(f"Unexpected end of name token at byte offset {tag_at}")
        if source[i + 1] == "/":
            end = source.find(">", i)
            if end < 0:
                if source[i + 2 :].strip() == "":
                    raise MarkupError(f"Unexpected end tag at byte offset {tag_at}")
                raise MarkupError(f"Unclosed end tag at byte offset {tag_at}")
            name = source[i + 2 : end].strip().lower()
            if not stack:
                raise MarkupError(f"Unexpected end tag at byte offset {tag_at}")
            open_tag = stack.pop()
            if name and name != open_tag.name:
                raise MarkupError(
                    f'Unmatched end tag at byte offset {tag_at}, expected "</{open_tag.name}>", '
                    f'found "</{name}>"'
                )
            entity = _html_entity(open_tag, out_len - open_tag.offset, "".join(out))
            if entity is not None:
                entities.append(entity)
            i = end + 1
            continue
        name_match = re.compile(r"[a-zA-Z0-9-]+").match(source, i + 1)
        if not name_match:
            raise MarkupError(f'Unsupported start tag "" at byte offset {tag_at}')
        name = name_match.group(0).lower()
        if name not in _HTML_TAGS:
            raise MarkupError(f'Unsupported start tag "{name}" at byte offset {tag_at}')
        end = source.find(">", name_match.end())
        if end < 0:
            raise MarkupError(f'Unclosed start tag "{name}" at byte offset {tag_at}')
        attributes: dict[str, str] = {}
        for attr in _ATTRIBUTE_RE.finditer(source[name_match.end() : end].rstrip("/ ")):
            value = attr.group(2) or ""
            if value[:1] in "\"'":
                value = value[1:-1]
            attributes[attr.group(1).lower()] = html.unescape(value)
        if name == "span" and attributes.get("class") != "tg-spoiler":
            raise MarkupError(f'Tag "span" must have class "tg-spoiler" at byte offset {tag_at}')
        stack.append(_OpenTag(name, out_len, attributes))
        i = end + 1
    if stack:
        raise MarkupError(f'Can\'t find end tag corresponding to start tag "{stack[-1].name}"')
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


def _html_entity(tag: _OpenTag, length: int, text: str) -> Entity | None:
    if length <= 0:
        return None
    kind = _HTML_TAGS[tag.name]
    entity: Entity = {"type": kind, "offset": tag.offset, "length": length}
    if kind == "text_link":
        href = tag.attributes.get("href")
        if not href:
            return None
        entity["url"] = href
    elif kind == "pre":
        language = tag.attributes.get("class", "")
        if language.startswith("language-"):
            entity["language"] = language.removeprefix("language-")
    elif kind == "blockquote" and "expandable" in tag.attributes:
        entity["type"] = "expandable_blockquote"
    elif kind == "custom_emoji":
        entity["custom_emoji_id"] = tag.attributes.get("emoji-id", "")
    return entity


_MDV2_RESERVED = set("_*[]()~`>#+-=|{}.!")
_MDV2_MARKS: tuple[tuple[str, str], ...] = (
    ("||", "spoiler"),
    ("__", "underline"),
    ("*", "bold"),
    ("_", "italic"),
    ("~", "strikethrough"),
)
_MDV2_NAMES = {
    "bold": "Bold",
    "italic": "Italic",
    "underline": "Underline",
    "strikethrough": "Strikethrough",
    "spoiler": "Spoiler",
    "text_link": "TextUrl",
}


def parse_markdown_v2(source: str) -> tuple[str, list[Entity]]:
    """Parse MarkdownV2; see `parse`. Block quotes are not supported (rare in bot output)."""
    out: list[str] = []
    out_len = 0
    entities: list[Entity] = []
    stack: list[tuple[str, int, int]] = []  # (kind, text offset, byte offset of the mark)
    i = 0
    n = len(source)
    while i < n:
        char = source[i]
        if char == "\\":
            if i + 1 >= n:
                raise MarkupError(
                    "Character '\\' is reserved and must be escaped with the preceding '\\'"
                )
            out.append(source[i + 1])
            out_len += utf16_len(source[i + 1])
            i += 2
            continue
        if char == "`":
            at = _byte_offset(source, i)
            fence = source.startswith("```", i)
            mark = "```" if fence else "`"
            body_start = i + len(mark)
            end = _find_unescaped(source, mark, body_start)
            if end < 0:
                kind = "Pre" if fence else "Code"
                raise MarkupError(f"Can't find end of {kind} entity at byte offset {at}")
            body = source[body_start:end]
            entity: Entity = {"type": "pre" if fence else "code"}
            if fence and "\n" in body:
                language, rest = body.split("\n", 1)
                if language and " " not in language:
                    entity["language"] = language
                    body = rest
            body = re.sub(r"\\([`\\])", r"\1", body)
            entity.update(offset=out_len, length=utf16_len(body))
            if body:
                entities.append(entity)
            out.append(body)
            out_len += utf16_len(body)
            i = end + len(mark)
            continue
        if char == "[":
            stack.append(("text_link", out_len, _byte_offset(source, i)))
            i += 1
            continue
        if char == "]" and stack and stack[-1][0] == "text_link":
            kind, offset, _ = stack.pop()
            if not source.startswith("(", i + 1):
                raise MarkupError(
                    "Character ']' is reserved and must be escaped with the preceding '\\'"
                )
            end = source.find(")", i + 2)
            if end < 0:
                raise MarkupError(
                    "Can't find end of a URL at byte offset " + str(_byte_offset(source, i + 1))
                )
            url = source[i + 2 : end].replace("\\)", ")").replace("\\\\", "\\")
            if out_len > offset:
                entities.append(
                    {"type": "text_link", "offset": offset, "length": out_len - offset, "url": url}
                )
            i = end + 1
            continue
        matched = False
        for mark, kind in _MDV2_MARKS:
            if source.startswith(mark, i):
                if stack and stack[-1][0] == kind:
                    _, offset, _ = stack.pop()
                    if out_len > offset:
                        entities.append(
                            {"type": kind, "offset": offset, "length": out_len - offset}
                        )
                else:
                    stack.append((kind, out_len, _byte_offset(source, i)))
                i += len(mark)
                matched = True
                break
        if matched:
            continue
        if char in _MDV2_RESERVED:
            raise MarkupError(
                f"Character '{char}' is reserved and must be escaped with the preceding '\\'"
            )
        out.append(char)
        out_len += utf16_len(char)
        i += 1
    if stack:
        kind, _, at = stack[-1]
        if kind == "text_link":
            raise MarkupError(f"Can't find end of the entity starting at byte offset {at}")
        raise MarkupError(f"Can't find end of {_MDV2_NAMES[kind]} entity at byte offset {at}")
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


def _find_unescaped(source: str, mark: str, start: int) -> int:
    i = start
    while i < len(source):
        if source[i] == "\\":
            i += 2
            continue
        if source.startswith(mark, i):
            return i
        i += 1
    return -1


def parse_markdown_legacy(source: str) -> tuple[str, list[Entity]]:
    """Parse the legacy Markdown mode: *bold*, _italic_, `code`, [text](url)."""
    out: list[str] = []
    out_len = 0
    entities: list[Entity] = []
    i = 0
    n = len(source)
    kinds = {"*": "bold", "_": "italic", "`": "code"}
    while i < n:
        char = source[i]
        if char in kinds:
            end = source.find(char, i + 1)
            if end < 0:
                raise MarkupError(
                    f"Can't find end of the entity starting at byte offset "
                    f"{_byte_offset(source, i)}"
                )
            body = source[i + 1 : end]
            if body:
                entities.append({"type": kinds[char], "offset": out_len, "length": utf16_len(body)})
            out.append(body)
            out_len += utf16_len(body)
            i = end + 1
            continue
        out.append(char)
        out_len += utf16_len(char)
        i += 1
    return "".join(out), entities
