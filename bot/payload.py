"""Button payloads: the one codec for every press on every platform.

A payload is ``"{table}:{version}:{verb}"``: the table's short id, the table version
the button was drawn at, and what the button does.  It fits Telegram's 64-byte
callback data and Discord's 100-character custom_id with room for an adapter prefix.

Verbs: ``a<code>`` a game action (the engine's int action code); the table verbs of
`TABLE_VERBS` (``j`` join, ``l`` leave, ``ai`` add an AI seat, ``st`` start, ``ru``
rules, ``h`` show my hand, ``tb`` take my seat back, ``ab`` vote to abort, ``re`` a
rematch of a finished match); and verbs
with a number (``rm<seat>`` remove an AI seat, ``s<seat>`` sit in a seat,
``rs<seat>`` resign the match, the confirmation of /resign, bound to the seat that
asked, and the hand menus ``pg<page>``, ``dp<mask>`` — the cards of a discard
picked so far — and ``gv<card>`` — the card of a gift picked, its index plus one),
which change nothing but what the presser's hand shows.

The presser's own verbs name no table: ``me:0:fg`` confirms /forgetme (whoever
presses it deletes his own data; it is only ever shown to the one who asked).  Table
ids are seven characters, so ``me`` is never one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_BYTES = 64

TABLE_VERBS = frozenset({"j", "l", "ai", "st", "ru", "h", "tb", "ab", "re"})
ARG_VERBS = frozenset({"rm", "s", "pg", "dp", "gv", "rs"})
SELF = "me"  # the table field of the presser's own verbs
SELF_VERBS = frozenset({"fg"})
MENU_VERBS = frozenset({"pg", "dp", "gv"})

_PAYLOAD = re.compile(r"^([0-9a-z]{1,12}):([0-9]{1,9}):([a-z]{1,3})([0-9]{0,8})$")


class PayloadError(ValueError):
    """A payload that this codec did not make (forged, truncated or foreign)."""


@dataclass(frozen=True, slots=True)
class Payload:
    table: str
    version: int
    verb: str
    arg: int | None = None

    @property
    def is_game_action(self) -> bool:
        return self.verb == "a"

    def encode(self) -> str:
        return encode(self)


def encode(p: Payload) -> str:
    arg = "" if p.arg is None else str(p.arg)
    text = f"{p.table}:{p.version}:{p.verb}{arg}"
    if len(text.encode()) > MAX_BYTES or not _PAYLOAD.match(text):
        raise PayloadError(f"cannot encode {p!r}")
    return text


def loggable(text: str) -> str:
    """A payload as a log line may show it: table, version and verb, never the
    argument (a card code, or the cards picked for a discard, is hidden information
    until played)."""
    p = parsed(text)
    return "malformed payload" if p is None else f"{p.table}:{p.version}:{p.verb}"


def parsed(text: str) -> Payload | None:
    """`decode`, or None for a text that is no payload of ours: for readers that only
    look (a button's style, which table a press is about), where the core's `act`
    is the one to refuse it."""
    try:
        return decode(text)
    except PayloadError:
        return None


def decode(text: str) -> Payload:
    """Parse a payload, refusing anything that is not exactly what `encode` makes."""
    if not isinstance(text, str) or len(text.encode("utf-8", "replace")) > MAX_BYTES:
        raise PayloadError("malformed payload")
    m = _PAYLOAD.match(text)
    if m is None:
        raise PayloadError("malformed payload")
    table, version, verb, arg = m.groups()
    if table == SELF:
        if verb in SELF_VERBS and not arg:
            return Payload(table, int(version), verb)
        raise PayloadError("malformed payload")
    if verb == "a":
        if not arg:
            raise PayloadError("malformed payload")
        return Payload(table, int(version), verb, int(arg))
    if verb in ARG_VERBS:
        if not arg:
            raise PayloadError("malformed payload")
        return Payload(table, int(version), verb, int(arg))
    if verb in TABLE_VERBS and not arg:
        return Payload(table, int(version), verb)
    raise PayloadError("malformed payload")


def game_action(table: str, version: int, code: int) -> str:
    return encode(Payload(table, version, "a", code))


def table_verb(table: str, version: int, verb: str, arg: int | None = None) -> str:
    return encode(Payload(table, version, verb, arg))


def self_verb(verb: str) -> str:
    return encode(Payload(SELF, 0, verb))
