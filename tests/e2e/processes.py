"""A real `python -m bot` that a test kills: SIGKILL, as a power cut or the kernel's
OOM killer would, so no `finally` of the bot runs and only what it committed stays."""

from __future__ import annotations

import asyncio
import os
import signal


async def sigkill(proc: asyncio.subprocess.Process) -> None:
    """Kill the bot at once (if it still runs) and reap it."""
    if proc.returncode is None:
        os.kill(proc.pid, signal.SIGKILL)
        await proc.wait()
