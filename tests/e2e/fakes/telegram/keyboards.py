"""Inline keyboards: the buttons of a reply markup and finding the one a user
presses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

from tests.e2e.fakes.telegram.protocol import _BUTTON_ACTIONS

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.protocol import JSONDict


class Button(NamedTuple):
    """One inline button as a user sees it: its label and its ``callback_data`` (or URL)."""

    text: str
    data: str


def _keyboard_rows(markup: JSONDict | None) -> list[list[Button]]:
    if not markup:
        return []
    rows: list[list[Button]] = []
    for row in markup.get("inline_keyboard", []):
        buttons = []
        for raw in row:
            # callback_data first, then url, then whatever other action the button has.
            actions = ["callback_data", "url", *sorted(_BUTTON_ACTIONS)]
            data = next((raw[k] for k in actions if k in raw), "")
            buttons.append(Button(str(raw.get("text", "")), str(data)))
        rows.append(buttons)
    return rows


def _callback_data(markup: JSONDict | None) -> set[str]:
    rows = (markup or {}).get("inline_keyboard", [])
    return {str(b["callback_data"]) for row in rows for b in row if "callback_data" in b}


def _find_button(rows: list[list[Button]], wanted: str) -> str:
    """The callback_data of a button named by its data or, failing that, its label."""
    buttons = [b for row in rows for b in row]
    for button in buttons:
        if button.data == wanted:
            return button.data
    labelled = [b for b in buttons if b.text == wanted]
    if len(labelled) > 1:
        raise ValueError(f"several buttons are labelled {wanted!r}: {labelled}")
    if not labelled:
        raise LookupError(f"no button {wanted!r} in keyboard {rows}")
    return labelled[0].data
