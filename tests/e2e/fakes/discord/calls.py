"""What the fake records of each REST request and hands to its route handlers."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web


@dataclass
class RecordedRequest:
    """One REST request the bot made, with the answer's status and error code."""

    method: str
    path: str
    route: str | None
    query: dict[str, str]
    body: Any
    status: int = 0
    code: int | None = None
    at: float = 0.0
    #: Refused because a test said so (`FakeDiscord.refuse`), not by the fake's world.
    refused_on_purpose: bool = False


@dataclass
class _Call:
    """What a REST handler gets: path parameters, query and the decoded body."""

    params: dict[str, str]
    query: Mapping[str, str]
    body: Any
    files: list[tuple[str, str, bytes, str]]
    request: web.Request


_Handler = Callable[[_Call], Any]


@dataclass
class _Route:
    method: str
    template: str
    pattern: re.Pattern[str]
    handler: _Handler
    auth: bool
    bucketed: bool
    major: tuple[str, ...]
