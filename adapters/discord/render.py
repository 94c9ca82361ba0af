"""The core's neutral messages as Discord messages, and the one button class.

Every button is a `PayloadButton`: a `discord.ui.DynamicItem` whose custom_id is
``s:`` plus the core's payload (``table:version:verb``).  Registered once in
`setup_hook`, it answers presses on any message that carries such a custom_id — also
messages sent before a restart — and hands the payload to the adapter untouched.  The
custom_id says *what* the button does, never *who* may press it: the core decides that
from the presser's user id.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Protocol, runtime_checkable

import discord

from bot.payload import parsed
from bot.views import Button, Message

log = logging.getLogger(__name__)

PREFIX = "s:"
MAX_CONTENT = 2000
MAX_LABEL = 80

#: Buttons by verb: moves stand out, leaving is red, the rest is grey.
_STYLES = {
    "a": discord.ButtonStyle.primary,
    "h": discord.ButtonStyle.primary,
    "j": discord.ButtonStyle.success,
    "st": discord.ButtonStyle.success,
    "tb": discord.ButtonStyle.success,
    "l": discord.ButtonStyle.danger,
    "ab": discord.ButtonStyle.danger,
    "rs": discord.ButtonStyle.danger,
    "fg": discord.ButtonStyle.danger,
}


@runtime_checkable
class PressHandler(Protocol):
    async def press(self, interaction: discord.Interaction[Any], payload: str) -> None: ...


class PayloadButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    # Anything after the prefix reaches the core, which refuses what it did not make
    # (so a forged custom_id gets an answer instead of "This interaction failed").
    template=r"s:(?P<payload>\S{1,98})",
):
    def __init__(self, payload: str, label: str = "?", *, row: int | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=_clip(label, MAX_LABEL),
                custom_id=PREFIX + payload,
                style=_style(payload),
            ),
            row=row,
        )
        self.payload = payload

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> PayloadButton:
        label = getattr(item, "label", None) or "?"
        return cls(match["payload"], label)

    def __repr__(self) -> str:
        # discord.py logs an item's repr when its callback fails; the label may be a
        # card of the presser's hand, and the payload names a card by its code
        return f"<{type(self).__name__}>"

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        handler = getattr(interaction.client, "schnapsen", None)
        if isinstance(handler, PressHandler):
            try:
                await handler.press(interaction, self.payload)
            except Exception:
                # logged here without the item: discord.py's own report names it
                log.exception("a button press failed")


def _style(payload: str) -> discord.ButtonStyle:
    p = parsed(payload)
    return _STYLES.get(p.verb if p else "", discord.ButtonStyle.secondary)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parts(text: str, limit: int = MAX_CONTENT) -> list[str]:
    """`text` in pieces Discord takes, cut at a line end where there is one: a reply
    longer than one message goes on in the next instead of losing its end."""
    out: list[str] = []
    while len(text) > limit:
        cut = text.rfind("\n", 0, limit + 1)
        if cut <= 0:
            cut = limit
        out.append(text[:cut])
        text = text[cut:].lstrip("\n")
    out.append(text)
    return [part for part in out if part.strip()] or ["…"]


def content(message: Message) -> str:
    return _clip(message.text, MAX_CONTENT) or "…"


def view(message: Message) -> discord.ui.View | None:
    """The buttons, row by row (the core keeps to Discord's 5 rows of 5)."""
    if not message.buttons:
        return None
    out = discord.ui.View(timeout=None)
    for row, buttons in enumerate(message.buttons[:5]):
        for button in buttons[:5]:
            out.add_item(PayloadButton(button.payload, button.label, row=row))
    return out


def without_buttons(message: Message) -> Message:
    return Message(message.text)


def noted(message: Message, note: str) -> Message:
    """`message` with a note below it (why a hand stopped following the game)."""
    return Message(f"{message.text}\n\n{note}", message.buttons)


def view_kwargs(msg: Message) -> dict[str, Any]:
    """``view=`` for a send, left out when the message has no buttons."""
    view_ = view(msg)
    return {"view": view_} if view_ is not None else {}


Fingerprint = tuple[str, tuple[tuple[Button, ...], ...]]


def fingerprint(message: Message) -> Fingerprint:
    """What a message shows; an edit to the same fingerprint is skipped."""
    return (content(message), message.buttons)
