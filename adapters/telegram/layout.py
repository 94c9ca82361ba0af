"""How the core's views look on Telegram: plain text, and rows of callback buttons
that a phone shows whole.

The core shapes its rows for Discord (five buttons at most); Telegram gives every
button of a row the same width, so the rows are laid out anew here.  Also the
start of a long text that fits an alert.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.views import Button, Message

from .content import Btn, Content

#: How wide a row of buttons may be, in characters, before a phone cuts labels short:
#: Telegram gives every button of a row the same width, so it is the longest label
#: (with its padding) times the buttons in the row that must fit.
ROW_WIDTH = 40
_PADDING = 2


def content_of(message: Message, notes: list[str] | None = None) -> Content:
    """A core `Message` as Telegram content (plain text, callback buttons)."""
    text = message.text
    if notes:
        text = text + "\n" + "\n".join(notes)
    rows = tuple(
        tuple(Btn(b.label, data=b.payload) for b in line)
        for row in message.buttons
        for line in phone_rows(row)
    )
    return Content(text, rows)


def phone_rows(row: Sequence[Button]) -> list[list[Button]]:
    """One of the core's rows (up to five, Discord's limit) as the rows a phone shows
    whole: "K♥ + marriage in trumps (40)" beside four other cards would read "K♥ +…".
    Telegram has no five-row limit, so a row may become several; the order stays."""
    out: list[list[Button]] = []
    widest = 0
    for button in row:
        width = len(button.label) + _PADDING
        line = out[-1] if out else None
        if line is not None and (len(line) + 1) * max(widest, width) <= ROW_WIDTH:
            line.append(button)
            widest = max(widest, width)
        else:
            out.append([button])
            widest = width
    # as many lines, evened out where they fit: five bids as 3 + 2, not 4 and a
    # lone button under them
    n, k = len(row), len(out)
    sizes = [n // k + (i < n % k) for i in range(k)]
    starts = [sum(sizes[:i]) for i in range(k)]
    even = [list(row[a : a + size]) for a, size in zip(starts, sizes, strict=True)]
    if all(_fits(line) for line in even):
        return even
    return out


def _fits(line: Sequence[Button]) -> bool:
    return len(line) == 1 or len(line) * max(len(b.label) + _PADDING for b in line) <= ROW_WIDTH


def sentences_within(text: str, limit: int) -> str:
    """The start of `text` that fits `limit`, ended at a sentence or a line where
    one ends after its first third (not "(normal game, Bettler, …)…")."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    end = max(head.rfind(". "), head.rfind("\n"), head.rfind("; "))
    return head[: end + 1].rstrip() if end >= limit // 3 else head
