"""What adapters exchange with the core: who is pressing, where, and what changed.

These are the core's ports (DESIGN.md): adapters build `UserRef`/`ChatRef` from
platform input, receive `Outcome`s from `TableService` calls, and implement `Listener`
to hear of every `TableUpdate`.  Nothing here knows a platform.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Protocol

from engine.events import Event

from .views import HandView, LobbyView, ResultView


@dataclass(frozen=True, slots=True)
class UserRef:
    """A person on a platform.  `key` is how the core knows them: ``"tg:123"``."""

    platform: str
    id: str
    name: str
    lang: str | None = None
    #: The name the person goes by everywhere on the platform, where `name` is one
    #: place's own (a Discord server nickname): what leaderboards and records of
    #: every chat show, so a nickname given in one server is not shown in another.
    account_name: str | None = None
    #: The language he reads where `lang` (his own, one we speak) is None: the chat's
    #: for a command typed there, the table's for a press on its buttons (a French
    #: app in a German group reads German there, not English).  Never stored as his.
    reads: str | None = None

    @property
    def speaks(self) -> str | None:
        """The language to answer him in here."""
        return self.lang or self.reads

    def __post_init__(self) -> None:
        # a name is shown inside our lines (boards, tables, results): it must not turn
        # them around or break them
        object.__setattr__(self, "name", display_name(self.name) or self.key)
        if self.account_name is not None:
            object.__setattr__(self, "account_name", display_name(self.account_name) or None)

    @property
    def key(self) -> str:
        return f"{self.platform}:{self.id}"


#: Characters that change the direction of the text after them (LRM/RLM, the
#: embeddings and overrides, the isolates, the Arabic letter mark).
_BIDI_CONTROLS = frozenset("\u200e\u200f\u061c") | frozenset(
    chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
)


def display_name(name: str) -> str:
    """A person's name as we show it: without bidi controls, which in a line such as
    "2. Anna — rating 3.1" would show the rest of the line reversed, nor control
    characters (a newline would break the line), and with its spaces squeezed."""
    kept = "".join(
        " " if unicodedata.category(ch) == "Cc" else ch for ch in name if ch not in _BIDI_CONTROLS
    )
    return " ".join(kept.split())


@dataclass(frozen=True, slots=True)
class ChatRef:
    platform: str
    id: str
    title: str = ""
    #: The chat's own language where the platform names one (a Discord server's
    #: preferred locale): what its tables speak until an admin sets `language`.
    lang: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "title", display_name(self.title))  # as for names

    @property
    def key(self) -> str:
        return f"{self.platform}:{self.id}"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The answer to one press or command, for the user who made it."""

    ok: bool
    text: str | None = None  # a short note or refusal reason, for that user only
    code: str = "ok"  # stable reason code for tests and adapters
    table_id: str | None = None
    hand: HandView | None = None  # a hand menu to show that user (menus change nothing)
    lobby: LobbyView | None = None
    #: (label, payload) of the one button that carries out what `text` asks to confirm
    #: (/resign: bound to the asker's seat; /forgetme: shown to the asker only)
    confirm: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class TableUpdate:
    """Something changed at a table: adapters re-render what they show of it.

    `kind`: ``lobby`` (lobby changed), ``started``, ``action`` (a game action),
    ``deal_end`` (a deal was scored; `result` is set), ``finished``, ``aborted``,
    ``reminder``, ``replaced`` and ``back`` (he took his seat back from the computer;
    `user` is the player concerned).
    """

    table_id: str
    chat: str
    platform: str
    version: int
    kind: str
    events: tuple[Event, ...] = ()  # public (redacted for nobody's seat)
    user: str | None = None
    result: ResultView | None = None


class Listener(Protocol):
    async def table_update(self, update: TableUpdate) -> None: ...


@dataclass(frozen=True, slots=True)
class Timings:
    """A table's clocks, in seconds.  Frozen: a service keeps the one it is given, so
    a change made in place would reach every other holder (a test's shared timings
    did once); `dataclasses.replace` makes another."""

    turn_timeout: float = 60.0
    reminder_before: float = 20.0
    missed_turns_limit: int = 3
    ai_delay: float = 1.0
    lobby_expiry: float = 15 * 60.0


class PlatformUnreachable(Exception):
    """An adapter could not reach its platform while starting (no connection, a
    timeout, the platform's server failing): the runner tries again later, since a
    network or an outage usually comes back.  The message must not hold a token."""


class NothingToServe(Exception):
    """An adapter has nobody to serve and never will this run (the terminal table
    with no keyboard: `docker run` without -i and no token): the runner stops with
    this one-line message and exit code 2, a setting to fix, not a clean stop that
    a service manager would take for success."""


class TokenRejected(Exception):
    """The platform refused the configured token: trying again cannot help, so the
    runner stops with this one-line message (which names the setting, never the token)."""
