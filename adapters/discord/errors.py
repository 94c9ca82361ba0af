"""Discord's failures, as the adapter tells them apart.

The answers to interactions, the outbox and the hands each meet them: the few error
codes that change what the adapter does, which channel a refusal is about, and what
may pass when tried again (`OUTAGES`).
"""

from __future__ import annotations

import re

import aiohttp
import discord

UNKNOWN_MESSAGE = 10008
ALREADY_ACKNOWLEDGED = 40060
OLD_MESSAGE = 30046
DMS_CLOSED = 50007
#: Discord's answers when the bot may not use a channel (any more).
CHANNEL_REFUSALS = frozenset({10003, 50001, 50013})  # unknown channel, no access, no right
#: What may pass on a second try: Discord's 5xx, the network.
OUTAGES = (discord.DiscordServerError, aiohttp.ClientError, OSError, TimeoutError)

_CHANNEL_PATH = re.compile(r"/channels/(\d+)(?:/|$)")


def refused_channel(error: discord.HTTPException) -> int | None:
    """The channel Discord says the bot may not use (any more), if that is the error."""
    if error.code not in CHANNEL_REFUSALS:
        return None
    found = _CHANNEL_PATH.search(str(getattr(error.response, "url", "")))
    return int(found[1]) if found else None
