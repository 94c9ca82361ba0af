"""The Discord adapter (discord.py 2.7): slash commands, persistent buttons, hands by DM.

`serve(service, config, stop)` is what `bot.app` runs; `DiscordAdapter` is the same
bot with its parts reachable (tests, other runners).  See `adapter` for the design.
"""

from __future__ import annotations

from .adapter import DiscordAdapter, serve

__all__ = ["DiscordAdapter", "serve"]
