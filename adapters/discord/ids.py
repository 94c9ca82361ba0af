"""The ids inside the adapter's strings, read back.

A user is ``dc:<id>``, a stored message ref is ``<channel>/<message>``, and a button's
payload names its table, its verb and the table version it was drawn at.  Several
parts of the adapter read them (the listener, the pings, the hands, restoring after a
restart), so they are read in one place.
"""

from __future__ import annotations

from bot.payload import parsed
from bot.views import Message

PLATFORM = "dc"
#: The payload verb of "Take my seat back".
TAKE_BACK = "tb"


def parse_ref(ref: str) -> tuple[int, int] | None:
    channel, _, message = ref.partition("/")
    if channel.isdigit() and message.isdigit():
        return int(channel), int(message)
    return None


def user_id(user_key: str) -> int | None:
    platform, _, uid = user_key.partition(":")
    return int(uid) if platform == PLATFORM and uid.isdigit() else None


def drawn_at(message: Message) -> int | None:
    """The table version a message's buttons were drawn at (None: no buttons)."""
    for button in message.all_buttons():
        if (p := parsed(button.payload)) is not None:
            return p.version
    return None


def table_of(payload: str) -> str | None:
    p = parsed(payload)
    return None if p is None else p.table


def verb_of(payload: str) -> str | None:
    p = parsed(payload)
    return None if p is None else p.verb
