"""Telegram adapter (python-telegram-bot 22): `serve(service, config, stop)`.

See `adapters.telegram.adapter` for its parts, `tables` for how tables are shown
and `outbox` for how the bot keeps within Telegram's limits.
"""

from __future__ import annotations

from .adapter import TelegramAdapter, serve
from .content import Content, Handle
from .outbox import Outbox
from .throttle import Throttle

__all__ = ["Content", "Handle", "Outbox", "TelegramAdapter", "Throttle", "serve"]
