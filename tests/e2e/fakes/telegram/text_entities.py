"""Message text as Telegram measures and parses it: UTF-16 lengths, HTML and
Markdown(V2) entity parsing, automatic entities (commands, mentions, links).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.protocol import JSONDict


_BOT_COMMAND = re.compile(r"(?<![\w/@])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w@/])")


_MENTION = re.compile(r"(?<![\w@])@[A-Za-z0-9_]{5,32}(?!\w)")


_URL = re.compile(r"https?://[^\s<>\"]+")


def _utf16_len(text: str) -> int:
    """Telegram measures offsets and lengths in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def _utf16_slice(text: str, offset: int, length: int) -> str:
    raw = text.encode("utf-16-le")
    return raw[offset * 2 : (offset + length) * 2].decode("utf-16-le")


class _EntityParseError(Exception):
    def __init__(self, detail: str, byte_offset: int | None = None) -> None:
        where = f" at byte offset {byte_offset}" if byte_offset is not None else ""
        super().__init__(f"Bad Request: can't parse entities: {detail}{where}")


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
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "code": "code",
    "pre": "pre",
    "a": "text_link",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}


class _HtmlEntities(HTMLParser):
    """Turns Telegram's HTML subset into plain text plus entities, rejecting other tags."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.source = source
        self.parts: list[str] = []
        self.position = 0
        self.stack: list[tuple[str, int, dict[str, str | None]]] = []
        self.entities: list[JSONDict] = []

    def byte_offset(self) -> int:
        line, column = self.getpos()
        lines = self.source.split("\n")
        prefix = "\n".join(lines[: line - 1]) + ("\n" if line > 1 else "")
        return len((prefix + lines[line - 1][:column]).encode())

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        allowed = tag in _HTML_TAGS and not (
            tag == "span" and attributes.get("class") != "tg-spoiler"
        )
        if not allowed:
            raise _EntityParseError(f'Unsupported start tag "{tag}"', self.byte_offset())
        self.stack.append((tag, self.position, attributes))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        raise _EntityParseError(f'Unsupported start tag "{tag}"', self.byte_offset())

    def handle_endtag(self, tag: str) -> None:
        if not self.stack:
            raise _EntityParseError(f'Unexpected end tag "{tag}"', self.byte_offset())
        open_tag, start, attributes = self.stack.pop()
        if open_tag != tag:
            raise _EntityParseError(
                f"Unmatched end tag at byte offset {self.byte_offset()}, "
                f'expected "</{open_tag}>", found "</{tag}>"'
            )
        length = self.position - start
        if tag == "code" and self.stack and self.stack[-1][0] == "pre":
            language = (attributes.get("class") or "").removeprefix("language-")
            if language:
                self.stack[-1][2]["language"] = language
                return
        if length == 0:
            return
        entity: JSONDict = {"type": _HTML_TAGS[tag], "offset": start, "length": length}
        if tag == "a":
            entity["url"] = attributes.get("href") or ""
        elif tag == "pre" and attributes.get("language"):
            entity["language"] = attributes["language"]
        elif tag == "blockquote" and "expandable" in attributes:
            entity["type"] = "expandable_blockquote"
        elif tag == "tg-emoji":
            entity["custom_emoji_id"] = attributes.get("emoji-id") or ""
        self.entities.append(entity)

    def handle_data(self, data: str) -> None:
        self.parts.append(data)
        self.position += _utf16_len(data)


def _parse_html(source: str) -> tuple[str, list[JSONDict]]:
    stray = re.search(r"<(?![A-Za-z/])", source)
    if stray:
        raise _EntityParseError(
            "Unexpected end of name token", len(source[: stray.start()].encode())
        )
    parser = _HtmlEntities(source)
    parser.feed(source)
    parser.close()
    if parser.stack:
        raise _EntityParseError(
            f'Can\'t find end tag corresponding to start tag "{parser.stack[-1][0]}"'
        )
    return "".join(parser.parts), parser.entities


_MD_NAMES = {
    "bold": "Bold",
    "italic": "Italic",
    "underline": "Underline",
    "strikethrough": "Strikethrough",
    "spoiler": "Spoiler",
    "text_link": "TextUrl",
    "code": "Code",
    "pre": "Pre",
}


_MD2_RESERVED = frozenset("_*[]()~`>#+-=|{}.!")


def _parse_markdown(source: str, *, v2: bool) -> tuple[str, list[JSONDict]]:
    """MarkdownV2 (and legacy Markdown) as Telegram parses it, with its escaping rules.

    The point is to catch the classic bug of an unescaped ``.``, ``-`` or ``!`` in
    MarkdownV2, which Telegram refuses with 400 rather than sending.
    """
    out: list[str] = []
    position = 0
    stack: list[tuple[str, int, int]] = []  # (entity type, utf16 start, byte offset)
    entities: list[JSONDict] = []
    i = 0

    def byte_at(index: int) -> int:
        return len(source[:index].encode())

    def emit(text: str) -> None:
        nonlocal position
        out.append(text)
        position += _utf16_len(text)

    def close(kind: str, start: int) -> None:
        if position > start:
            entities.append({"type": kind, "offset": start, "length": position - start})

    while i < len(source):
        char = source[i]
        escapable = v2 or (i + 1 < len(source) and source[i + 1] in "_*`[")
        if char == "\\" and i + 1 < len(source) and escapable:
            emit(source[i + 1])
            i += 2
            continue
        if char == "`":
            fence = source.startswith("```", i)
            width = 3 if fence else 1
            end = i + width
            body: list[str] = []
            while end < len(source) and not source.startswith("`" * width, end):
                if v2 and source[end] == "\\" and end + 1 < len(source):
                    end += 1
                body.append(source[end])
                end += 1
            if end >= len(source):
                kind = "Pre" if fence else "Code"
                raise _EntityParseError(f"Can't find end of {kind} entity", byte_at(i))
            content = "".join(body)
            entity: JSONDict = {"type": "pre" if fence else "code", "offset": position}
            if fence:
                first_line, newline, rest = content.partition("\n")
                if newline and first_line and " " not in first_line:
                    entity["language"] = first_line
                    content = rest
            emit(content)
            entity["length"] = _utf16_len(content)
            if entity["length"]:
                entities.append(entity)
            i = end + width
            continue
        if char == "[":
            stack.append(("text_link", position, byte_at(i)))
            i += 1
            continue
        if char == "]" and stack and stack[-1][0] == "text_link":
            if not source.startswith("(", i + 1):
                raise _EntityParseError("Can't find end of a URL", byte_at(i))
            end = i + 2
            url: list[str] = []
            while end < len(source) and source[end] != ")":
                if source[end] == "\\" and end + 1 < len(source):
                    end += 1
                url.append(source[end])
                end += 1
            if end >= len(source):
                raise _EntityParseError("Can't find end of a URL", byte_at(i))
            _, start, _ = stack.pop()
            if position > start:
                entities.append(
                    {
                        "type": "text_link",
                        "offset": start,
                        "length": position - start,
                        "url": "".join(url),
                    }
                )
            i = end + 1
            continue
        marker = _markdown_marker(source, i, v2=v2)
        if marker is not None:
            kind, width = marker
            open_kinds = [entry[0] for entry in stack]
            if kind in open_kinds:
                if stack[-1][0] != kind:
                    name = _MD_NAMES[stack[-1][0]]
                    raise _EntityParseError(f"Can't find end of {name} entity", stack[-1][2])
                close(kind, stack.pop()[1])
            else:
                stack.append((kind, position, byte_at(i)))
            i += width
            continue
        if char == ">" and v2 and (i == 0 or source[i - 1] == "\n"):
            line_end = source.find("\n", i)
            line_end = len(source) if line_end < 0 else line_end
            start = position
            nested, nested_entities = _parse_markdown(source[i + 1 : line_end], v2=True)
            for e in nested_entities:
                entities.append({**e, "offset": e["offset"] + start})
            emit(nested)
            close("blockquote", start)
            i = line_end
            continue
        if v2 and char in _MD2_RESERVED:
            raise _EntityParseError(
                f"Character '{char}' is reserved and must be escaped with the preceding '\\'"
            )
        emit(char)
        i += 1
    if stack:
        kind, _, offset = stack[-1]
        raise _EntityParseError(f"Can't find end of {_MD_NAMES[kind]} entity", offset)
    return "".join(out), entities


def _markdown_marker(source: str, i: int, *, v2: bool) -> tuple[str, int] | None:
    if v2 and source.startswith("__", i):
        return "underline", 2
    if v2 and source.startswith("||", i):
        return "spoiler", 2
    char = source[i]
    if char == "*":
        return "bold", 1
    if char == "_":
        return "italic", 1
    if v2 and char == "~":
        return "strikethrough", 1
    return None


def _auto_entities(text: str) -> list[JSONDict]:
    """Entities Telegram detects by itself: commands, mentions and links."""
    found: list[JSONDict] = []
    for kind, pattern in (("bot_command", _BOT_COMMAND), ("mention", _MENTION), ("url", _URL)):
        for match in pattern.finditer(text):
            found.append(
                {
                    "type": kind,
                    "offset": _utf16_len(text[: match.start()]),
                    "length": _utf16_len(match.group()),
                }
            )
    return found


def _strip_text(text: str, entities: list[JSONDict]) -> tuple[str, list[JSONDict]]:
    """Telegram trims leading and trailing whitespace; entities shift and shrink with it."""
    stripped = text.strip()
    if stripped == text:
        return text, entities
    lead = _utf16_len(text[: len(text) - len(text.lstrip())])
    end = _utf16_len(stripped)
    kept = []
    for entity in entities:
        start = max(entity["offset"] - lead, 0)
        stop = min(entity["offset"] + entity["length"] - lead, end)
        if stop > start:
            kept.append({**entity, "offset": start, "length": stop - start})
    return stripped, kept
