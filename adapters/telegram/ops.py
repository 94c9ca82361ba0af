"""What the outbox's queues hold: the operations, a chat's queue, and the counters.

Why a module of its own: these are the records the `outbox` keeps and the
`requests` module reads, each field said once; how they move through a queue is the
outbox's business.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from .content import Attachment, Content, Handle
from .throttle import _Bucket

OpKind = Literal["post", "edit", "strip", "send", "document", "call", "delete"]


@dataclass(eq=False)
class Op:
    """One queued request (or, `call`, a function run in the chat's order)."""

    kind: OpKind
    handle: Handle | None = None
    content: Content | None = None
    fn: Callable[[], Awaitable[None]] | None = None
    sending: bool = False
    attempts: int = 0  # requests made that may have reached Telegram
    failures: int = 0  # network failures in a row, for the pause before the next try
    force: bool = False  # an edit sent even if the message shows its content already
    reply_to: Handle | None = None  # a one-off message that answers this one
    file: Attachment | None = None  # a document's file (its caption is `content`)
    fallback: Content | None = None  # sent instead if Telegram will not take this
    then: Content | None = None  # a message sent right after this one, once it went through
    uncertain: bool = False  # a try may have reached Telegram (timed out, answer lost or unread)
    thread: int | None = None  # the forum topic a one-off message goes to (None: General)


@dataclass(eq=False)
class ChatQueue:
    """One chat's queue: its ops in order, the one being sent, its worker and pace."""

    id: int
    ops: deque[Op] = field(default_factory=deque)
    current: Op | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    blocked: bool = False
    buckets: list[_Bucket] = field(default_factory=list)


@dataclass
class Stats:
    """Counters for tests and logs."""

    requests: int = 0
    coalesced: int = 0
    retry_after: int = 0
    not_modified: int = 0
    forbidden: int = 0
    unreachable: int = 0  # requests that could not connect (tried again)
    failed: int = 0
    migrated: int = 0
