"""Small helpers for what goes over the wire: snowflake ids, timestamps and JSON
answers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from tests.e2e.fakes.discord.protocol import DISCORD_EPOCH_MS


class _Snowflakes:
    """Time-based ids like Discord's. discord.py derives creation times — and so an
    interaction's expiry — from them, so they must encode the real clock."""

    def __init__(self) -> None:
        self._last = 0
        self._past = 0

    def __call__(self, ago: float = 0.0) -> int:
        """A new id; `ago`: made that many seconds in the past (its low bits, the
        increment, from a range of their own so it is still unique)."""
        candidate = (int((time.time() - ago) * 1000) - DISCORD_EPOCH_MS) << 22
        if ago > 0:
            self._past += 1
            return candidate | 0x200000 | (self._past & 0x1FFFFF)
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=UTC).isoformat()


def _json_response(
    status: int, data: Any, headers: Mapping[str, str] | None = None
) -> web.Response:
    """A JSON answer whose Content-Type is exactly ``application/json``: discord.py
    compares the header verbatim, so aiohttp's ``json_response`` (which appends
    ``; charset=utf-8``) would make every answer look like text and break login."""
    all_headers = {"Content-Type": "application/json", "Via": "1.1 google"}
    if headers:
        all_headers.update(headers)
    return web.Response(status=status, body=json.dumps(data).encode(), headers=all_headers)


def _no_content(headers: Mapping[str, str] | None = None) -> web.Response:
    """204 without a Content-Type, as Discord answers; with one, discord.py would try
    to parse the empty body as JSON."""
    all_headers = {"Via": "1.1 google"}
    if headers:
        all_headers.update(headers)
    return web.Response(status=204, headers=all_headers)


def _truthy(value: str | None) -> bool:
    return value is not None and value.lower() in {"1", "true"}
