"""``python -m bot --health``: is a bot running on this database, and answering?

For Docker's HEALTHCHECK (and any supervisor).  A running bot touches its database's
lock file (``<DATABASE_PATH>.lock``, which it holds while it runs) every `BEAT`
seconds from its event loop.  So a fresh touch means the loop turns; a stale one, a bot
that is stuck (its loop blocked) or gone.  The check only reads the file's time: it
takes no lock, so it can never keep a bot from starting.
"""

from __future__ import annotations

import time
from pathlib import Path

from .store import lock_path

#: Seconds between two heartbeats of a running bot.
BEAT = 30.0
#: A heartbeat older than this (three missed ones) is a bot that does not answer.
STALE = 3 * BEAT
#: The time a bot that stopped cleanly leaves on the lock file.
STOPPED = 0.0


def check(database_path: str | Path, now: float | None = None) -> tuple[bool, str]:
    """(healthy, one line saying why) for the bot on `database_path`."""
    path = lock_path(database_path)
    try:
        beat = path.stat().st_mtime
    except FileNotFoundError:
        return False, f"no bot has run on {database_path} (no {path.name})"
    except OSError as e:
        return False, f"cannot read {path}: {e.strerror or e}"
    if beat == STOPPED:
        return False, f"the bot on {database_path} has stopped"
    age = (time.time() if now is None else now) - beat
    if age > STALE:
        return False, f"the bot on {database_path} has not answered for {age:.0f} s"
    return True, f"the bot on {database_path} answers (heartbeat {max(age, 0):.0f} s ago)"
