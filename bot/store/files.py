"""The database file on disk, before any connection: the lock that keeps a second
bot off it, the check that it is a database at all, and the operator's hint when it
cannot be opened.  Plain functions, kept apart from the connections they guard."""

from __future__ import annotations

import fcntl
import os
import sqlite3
from pathlib import Path

from .errors import StoreError


def lock_path(path: str | Path) -> Path:
    """``<path>.lock`` of a database, by the file's real path: a second bot given a
    symlink to it is the same database (and `bot.health` reads this file)."""
    return Path(os.path.realpath(path) + ".lock")


def _lock(path: str) -> int:
    """Lock ``<path>.lock`` for this process (the descriptor holding it).  An OS lock,
    not a PID file: the kernel drops it when the process ends, however it ends (even
    SIGKILL), so it never goes stale; `StoreError` if another process holds it."""
    fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreError(
            f"{path} is in use by another running bot; stop that one first"
            " (two bots on one database would play the same tables)"
        ) from None
    except OSError:
        os.close(fd)
        raise
    return fd


def _check_database(path: str | Path) -> None:
    """Raise `sqlite3.Error` unless `path` opens as an SQLite database (or a new one)."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA schema_version").fetchone()
    finally:
        conn.close()


def _access_hint(path: Path) -> str:
    """What SQLite's "unable to open database file" means here, in the words an
    operator can act on: the classic case is a Docker volume owned by root while the
    bot runs as another user.  The folder must be writable too (the write-ahead log
    and its index live beside the file)."""
    who = f"uid {os.getuid()}" if hasattr(os, "getuid") else "this user"
    try:
        for part in [path.parent, *path.parent.parents]:
            try:
                exists, is_dir = part.exists(), part.is_dir()
            except PermissionError:  # Python 3.11: a folder above cannot be entered
                continue
            if exists and not is_dir:
                return f" ({part} is a file, not a folder)"
            if is_dir:
                # the deepest folder there is: the file, or the folders it needs, go here
                if not os.access(part, os.X_OK):
                    return f" (the folder {part} cannot be entered by {who}, the bot's user)"
                if not os.access(part, os.W_OK):
                    return f" (the folder {part} is not writable by {who}, the bot's user)"
                break
        if path.is_file() and not os.access(path, os.R_OK | os.W_OK):
            return f" (the file is not readable and writable by {who}, the bot's user)"
    except OSError:  # the hint is a courtesy: never worse than the error itself
        return ""
    return ""
