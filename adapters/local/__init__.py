"""The local terminal table: play any game against computer seats with no chat token.

`bot.app` starts it when no Discord or Telegram token is configured (``make run`` on a
fresh clone).  It uses the same core (`TableService`) and the same SQLite store as the
chat adapters, so its games, results and ratings are stored like theirs.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys

from bot.config import Config
from bot.ports import NothingToServe
from bot.service import TableService

from .lines import LineReader
from .terminal import CHAT, LocalTable, local_user
from .texts import say

__all__ = ["CHAT", "LineReader", "LocalTable", "local_user", "serve"]


async def serve(service: TableService, config: Config, stop: asyncio.Event) -> None:
    """The adapter contract: run until `stop` is set, the user quits or input ends."""
    user = local_user()
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        raise NothingToServe(say(user.lang or "en", "no_input")) from None
    if _is_devnull(fd):
        # `docker run` without -i, a service manager: no keyboard at all, so no menu
        # and prompt before saying so (a pipe or a file is input, read to its end)
        raise NothingToServe(say(user.lang or "en", "no_input"))
    reader = LineReader(fd)
    table = LocalTable(
        service,
        stop,
        readline=reader.readline,
        out=sys.stdout,
        user=user,
        keyboard=os.isatty(fd),
    )
    try:
        await table.run()
    finally:
        reader.close()
        if table.output_gone:
            # what is left in stdout's buffer would fail again at exit, with a
            # traceback of its own: it goes nowhere instead
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _is_devnull(fd: int) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(os.devnull))
    except OSError:
        return False
