"""What the bot sends to Telegram: a message's content, a file, and the handle of a
message it keeps editing; with the text helpers that make a text one Telegram takes.

Why a module of its own: these are plain values, used by everything that shapes a
message (`layout`, `commands`, `tables`, …) as much as by the `outbox` that sends
them; they need none of its queue.  Lengths are counted as Telegram counts them, in
UTF-16 code units (`units`: an emoji is two): a text longer than `MAX_TEXT` is cut
(`fit`) or, for a long reply, split between lines into several messages (`parts`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from telegram import InlineKeyboardButton, InlineKeyboardMarkup


@dataclass(frozen=True, slots=True)
class Btn:
    """An inline button: callback data for the bot, or a URL (deep links)."""

    label: str
    data: str | None = None
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Content:
    """What a message shows: plain text and rows of buttons."""

    text: str
    rows: tuple[tuple[Btn, ...], ...] = ()

    def markup(self) -> InlineKeyboardMarkup | None:
        if not self.rows:
            return None
        return InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(b.label, url=b.url)
                    if b.url
                    else InlineKeyboardButton(b.label, callback_data=b.data)
                    for b in row
                ]
                for row in self.rows
            ]
        )

    def bare(self) -> Content:
        return Content(self.text)


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file sent as a document."""

    filename: str
    data: bytes = field(repr=False)


@dataclass(eq=False)
class Handle:
    """One message the bot keeps editing (a lobby, a deal's table, a player's hand).

    `slot` is where its reference is remembered in the store (``None``: not kept).
    `thread`: the forum topic it is posted in (``None``: the chat itself, or a forum's
    General topic); its edits need none, message ids being per chat.
    """

    chat_id: int
    table_id: str
    slot: str | None
    message_id: int | None = None
    shown: Content | None = None  # what Telegram shows now (None: unknown)
    latest: Content | None = None  # the newest content asked for
    dead: bool = False  # the chat refused it (`refuses`): nothing more is sent for it
    thread: int | None = None

    @property
    def ref(self) -> str:
        return f"{self.chat_id}/{self.message_id}"


MAX_TEXT = 4096  # Telegram's limit for a message text
MAX_CAPTION = 1024  # and for a document's caption


def units(text: str) -> int:
    """A text's length as Telegram counts it: in UTF-16 code units (an emoji is two)."""
    return len(text.encode("utf-16-le")) // 2


def fit(text: str, limit: int = MAX_TEXT) -> str:
    """Text Telegram accepts: not empty, at most `limit` characters."""
    text = text.strip() or "…"
    if units(text) <= limit:
        return text
    # cut in UTF-16 units; half an emoji cut off is dropped, not sent broken
    kept = text.encode("utf-16-le")[: 2 * (limit - 1)].decode("utf-16-le", errors="ignore")
    return kept + "…"


def parts(text: str, limit: int = MAX_TEXT) -> list[str]:
    """`text` as messages Telegram takes, cut between lines, never inside one: a reply
    longer than a message (every game's board in a busy chat, the asker's own row
    last) goes on in the next one instead of losing its end to `fit`.  Lengths are
    counted as Telegram counts them (`units`).  Only a single line longer than a
    whole message is still cut, by `fit`, when it is sent."""
    out: list[str] = []
    lines: list[str] = []
    size = -1  # the units of "\n".join(lines)
    for line in text.split("\n"):
        n = units(line)
        if lines and size + 1 + n > limit:
            out.append("\n".join(lines))
            lines, size = [], -1
        lines.append(line)
        size += 1 + n
    out.append("\n".join(lines))
    # blank lines at a cut go; an indented first line keeps its indent
    return [part.strip("\n") for part in out if part.strip()] or ["…"]
