"""The connections and the single writer: what makes the store durable and fast,
apart from what it stores.

Durability rule (DESIGN.md): every table change is appended to the table's log in the
same transaction that bumps the table's version, and nobody is told before that
transaction commits.  Writes from all tables go through one writer task that commits
them in batches (group commit), so hundreds of busy tables cost one commit per batch
instead of one each, while every caller still waits for its own write to be durable.
A write is a `_Write`: log rows and table rows (the two statements every move makes,
committed with ``executemany`` for the whole batch) and any other statements (`Op`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import aiosqlite

from .errors import StoreError
from .files import _access_hint, _check_database, _lock
from .schema import migrate

# the package's logger, as when this was one module: log settings name "bot.store"
log = logging.getLogger("bot.store")


class _InfoAndAbove(logging.Filter):
    """aiosqlite logs every statement *with its parameters* at DEBUG: our log rows
    hold deal seeds, and a seed is every hidden card of its deal.  Those lines never
    reach a handler, whatever level the bot logs at."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.INFO


def _quiet_aiosqlite() -> None:
    lg = logging.getLogger("aiosqlite")
    if not any(isinstance(f, _InfoAndAbove) for f in lg.filters):
        lg.addFilter(_InfoAndAbove())


Op = tuple[str, Sequence[Any]]
#: A table's new status, version, deadline, time of the change, and its id.
TableRowUpdate = tuple[str, int, float | None, float, str]

#: SQLite's primary result codes for a database that cannot be written *now* (held by
#: another program, a full disk, an I/O error): a write that failed so is tried again.
_PASSING = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR}


@dataclass
class _Write:
    log_rows: list[tuple[str, int, str, float]]
    table_rows: list[TableRowUpdate]
    ops: list[Op]
    future: asyncio.Future[None] = field(
        repr=False, default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class Database:
    """The database's connections and its writer, knowing nothing of what is stored
    (the queries are in the `Store` mixins).  `exclusive`: this process's own, for as
    long as it is open — a second bot started on the same file is refused
    (`StoreError`) instead of playing the same tables from its own memory.
    `busy_timeout` is how long one attempt waits for another program's lock; a write
    that still cannot be committed is tried again for `write_retry` seconds before its
    waiter gets a `StoreError`."""

    def __init__(
        self,
        path: str | Path,
        *,
        exclusive: bool = False,
        busy_timeout: float = 5.0,
        write_retry: float = 10.0,
    ) -> None:
        self.path = str(path)
        self._exclusive = exclusive
        self._busy_ms = int(busy_timeout * 1000)
        self.write_retry = write_retry
        self._lock_fd: int | None = None
        self._db: aiosqlite.Connection | None = None
        self._ro: aiosqlite.Connection | None = None
        self._queue: asyncio.Queue[_Write] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._closing = False
        # The writer commits on a plain sqlite3 connection on its own thread, a batch
        # in one call (reads and migrations use aiosqlite); WAL
        # checkpoints (the only writes that wait for the disk) run on a thread of
        # their own with their own connection, off the path of every press.
        self._pool: ThreadPoolExecutor | None = None
        self._wpool: ThreadPoolExecutor | None = None
        self._wconn: sqlite3.Connection | None = None
        self._checkpoint: asyncio.Future[None] | None = None
        self._commits_at_checkpoint = 0
        self._catch_up = False  # a checkpoint ended: the next batch starts the log over
        self.commits = 0

    # --- lifecycle -------------------------------------------------------------------

    async def open(self) -> Self:
        """Open (and migrate) the database; `StoreError` names the file and what is
        wrong with it (not a database, a folder, no permission), with nothing left
        running — an aiosqlite thread left open would keep the process alive."""
        _quiet_aiosqlite()
        self._closing = False
        try:
            await self._open_connections()
        except (sqlite3.Error, OSError, StoreError) as e:
            for conn in (self._ro, self._db):
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.close()
            self._db = self._ro = None
            self._unlock()
            if isinstance(e, StoreError):
                raise
            hint = _access_hint(Path(self.path))
            raise StoreError(f"cannot use the database {self.path}: {e}{hint}") from None
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="store-checkpoint")
        self._wpool = ThreadPoolExecutor(1, thread_name_prefix="store-writer")
        self._wconn = self._connect_writer()
        self._writer = asyncio.create_task(self._write_loop(), name="store-writer")
        return self

    async def _open_connections(self) -> None:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            # A file that cannot be a database fails here, on a plain connection,
            # before an aiosqlite thread exists that could outlive the event loop.
            await asyncio.to_thread(_check_database, self.path)
            if self._exclusive:
                self._lock_fd = _lock(self.path)
        self._db = await aiosqlite.connect(self.path, isolation_level=None)
        db = self._db
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute(f"PRAGMA busy_timeout={self._busy_ms}")
        # FULL: a commit is on the disk before the move it holds is announced, so a
        # power cut cannot take back a move the players saw (NORMAL survives a killed
        # process, not that).  The writer's commits run on its own thread, batched:
        # the disk wait (about 0.1 ms a commit here) holds up no other table.
        await db.execute("PRAGMA synchronous=FULL")
        await db.execute("PRAGMA foreign_keys=ON")
        await self._migrate()
        # Reads use their own connection: under WAL they see only committed data and
        # never land inside the writer's open transaction.
        self._ro = await aiosqlite.connect(self.path, isolation_level=None)
        await self._ro.execute(f"PRAGMA busy_timeout={self._busy_ms}")

    def beat(self, at: float | None = None) -> None:
        """Touch the lock file (``<path>.lock``): the heartbeat a health check reads
        (`bot.health`), a file this bot holds anyway, so no other is written.  `at`:
        the time to set instead of now (0 marks a clean stop)."""
        if self._lock_fd is not None:
            os.utime(self._lock_fd, None if at is None else (at, at))

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # the lock goes with it
            self._lock_fd = None

    def _connect_writer(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout={self._busy_ms}")
        conn.execute("PRAGMA synchronous=FULL")  # see `open`: no announced move lost
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA wal_autocheckpoint=0")  # see _maybe_checkpoint
        conn.execute(f"PRAGMA journal_size_limit={self.WAL_SIZE_LIMIT}")
        return conn

    #: Commits between WAL checkpoints.  The log starts over after each
    #: (`_start_log_over`), so it holds about this many commits' pages at most: a few
    #: MB for a quiet bot, some 30 MB at bench/soak.py's busiest.
    CHECKPOINT_EVERY = 500
    #: Bytes of WAL file kept when the log starts over (a burst of writes, a big
    #: migration, leaves no larger file behind).
    WAL_SIZE_LIMIT = 16 * 2**20

    def _maybe_checkpoint(self, force: bool = False) -> None:
        """Copy the WAL into the database now and then, on the checkpoint thread.

        A PASSIVE checkpoint never blocks the writer; it is the one step that waits
        for the disk (fsync), so it must not run inside a commit, where SQLite's
        automatic checkpoints would put it (stalling every press for its duration).
        """
        if self._pool is None or (self._checkpoint is not None and not self._checkpoint.done()):
            return
        if not force and self.commits - self._commits_at_checkpoint < self.CHECKPOINT_EVERY:
            return
        self._commits_at_checkpoint = self.commits
        loop = asyncio.get_running_loop()
        self._checkpoint = loop.run_in_executor(self._pool, self._checkpoint_now)
        self._checkpoint.add_done_callback(self._checkpointed)

    def _checkpointed(self, _: asyncio.Future[None]) -> None:
        self._catch_up = True

    def _start_log_over(self) -> bool:
        """Copy into the database what was committed while the checkpoint ran (a few
        pages), on the writer's thread, before its next transaction; True when the
        whole log is copied, so that the next commit starts it over.

        SQLite starts the WAL over from its beginning only when a write transaction
        begins on a log that is wholly copied.  The checkpoint runs beside the writer,
        and under a steady stream of presses the writer has always added to the log
        by the time it ends: the log then never starts over and grows for as long as
        the bot is busy (tens of MB within minutes, for a database of a few).  Here
        no commit can come in between; a read still going on may keep part of the
        log (False), and the next batch tries again."""
        conn = self._wconn
        if conn is None:
            return True
        try:
            busy, frames, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error:  # pragma: no cover - tried again after the next checkpoint
            log.warning("WAL catch-up failed", exc_info=True)
            return True
        return bool(not busy and frames == copied)

    def _checkpoint_now(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout={self._busy_ms}")
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error:  # pragma: no cover - retried after the next commits
            log.warning("WAL checkpoint failed", exc_info=True)
        finally:
            conn.close()

    async def close(self, *, drain: bool = True) -> None:
        """Close the store.  Queued writes are committed first, unless `drain` is
        False (going down hard): then they fail with `StoreError`, and only a batch
        already being committed completes."""
        self._closing = True  # refuse new writes: nobody would commit them
        if self._writer is not None:
            if drain:
                await self._queue.join()
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        if self._checkpoint is not None:
            with contextlib.suppress(Exception):
                await self._checkpoint
            self._checkpoint = None
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        if self._wpool is not None:
            self._wpool.shutdown(wait=True)  # a batch in flight finishes first
            self._wpool = None
        if self._wconn is not None:
            self._wconn.close()
            self._wconn = None
        if self._ro is not None:
            await self._ro.close()
            self._ro = None
        if self._db is not None:
            await self._db.close()
            self._db = None
        self._unlock()

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise StoreError("the store is not open")
        return self._db

    @property
    def ro(self) -> aiosqlite.Connection:
        if self._ro is None:
            raise StoreError("the store is not open")
        return self._ro

    async def _migrate(self) -> None:
        await migrate(self.db, self.path)

    async def schema_version(self) -> int:
        async with self.db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    # --- the writer ------------------------------------------------------------------

    async def _write_loop(self) -> None:
        batch: list[_Write] = []
        try:
            while True:
                first = await self._queue.get()
                batch = [first]
                while not self._queue.empty() and len(batch) < 512:
                    batch.append(self._queue.get_nowait())
                loop = asyncio.get_running_loop()
                if self._catch_up:
                    done = await loop.run_in_executor(self._wpool, self._start_log_over)
                    self._catch_up = not done
                commit = loop.run_in_executor(self._wpool, self._commit_batch, batch)
                try:
                    errors = await asyncio.shield(commit)
                except asyncio.CancelledError:
                    # going down: the batch on the writer thread still finishes, and
                    # its waiters learn the truth (committed or not)
                    self._settle(batch, await commit)
                    batch = []
                    raise
                except Exception as e:  # pragma: no cover - the thread pool itself failed
                    errors = [e] * len(batch)
                self._settle(batch, errors)
                batch = []
                self._maybe_checkpoint()
        finally:
            # Stopped with writes queued (the loop is going down): tell their
            # waiters, so that nobody waits forever for a commit.
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
                self._queue.task_done()
            error = StoreError("the store closed before this write was committed")
            for w in batch:
                if not w.future.done():
                    w.future.set_exception(error)

    def _settle(self, batch: list[_Write], errors: list[Exception | None]) -> None:
        try:
            for w, error in zip(batch, errors, strict=True):
                if w.future.done():  # its waiter is gone (cancelled)
                    continue
                if error is None:
                    w.future.set_result(None)
                else:
                    w.future.set_exception(error)
        finally:
            for _ in batch:
                self._queue.task_done()

    def _commit_batch(self, batch: list[_Write]) -> list[Exception | None]:
        """Commit a batch in one transaction; the error of each write, None for those
        committed.  A failing write is isolated: the others are committed one by one
        without it.

        This runs on the writer's own thread, one hand-off per batch (not per
        statement, as aiosqlite would): the event loop never waits for SQLite, even
        when another process holds the database's write lock for a while."""
        conn = self._wconn
        if conn is None:
            return [StoreError("the store is not open")] * len(batch)
        try:
            self._transaction(conn, batch)
            return [None] * len(batch)
        except StoreError as e:  # the database, not a write: none of them can go in
            return [e] * len(batch)
        except Exception as e:
            if len(batch) == 1:
                return [e]
        out: list[Exception | None] = []
        for w in batch:
            try:
                self._transaction(conn, [w])
                out.append(None)
            except Exception as e:
                out.append(e)
        return out

    def _transaction(self, conn: sqlite3.Connection, batch: list[_Write]) -> None:
        """Commit `batch`, trying again for `write_retry` seconds while the database
        cannot be written (another program's lock held past the busy timeout, a full
        disk, an I/O error): what passes costs the players a wait, not their moves.
        Then, or once the store closes, `StoreError`: nothing of the batch is stored.
        A database that refuses writes for good (read-only, say) is a `StoreError` at
        once, so the player hears that his move was not saved."""
        give_up = time.monotonic() + self.write_retry
        tries = 0
        while True:
            try:
                self._attempt(conn, batch)
                return
            except sqlite3.OperationalError as e:
                if e.sqlite_errorcode & 0xFF not in _PASSING:
                    # read-only (a disk remounted so, the file's permissions), no
                    # permission, a file that cannot be opened: the database refuses
                    # every write, and trying again will not change that soon
                    raise StoreError(f"cannot write to the database {self.path}: {e}") from e
                pause = min(0.05 * 2**tries, 1.0)
                if self._closing or time.monotonic() + pause > give_up:
                    raise StoreError(f"cannot write to the database {self.path}: {e}") from e
                if tries == 0:
                    log.warning("cannot write to the database (%s); trying again", e)
                time.sleep(pause)
                tries += 1

    def _attempt(self, conn: sqlite3.Connection, batch: list[_Write]) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            logs = [row for w in batch for row in w.log_rows]
            if logs:
                conn.executemany(
                    "INSERT INTO table_log (table_id, version, entry, at) VALUES (?, ?, ?, ?)",
                    logs,
                )
            rows = [row for w in batch for row in w.table_rows]
            if rows:
                conn.executemany(
                    "UPDATE tables SET status=?, version=?, deadline=?, updated=? WHERE id=?", rows
                )
            for w in batch:
                for sql, params in w.ops:
                    conn.execute(sql, params)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):  # the error above is the one to tell
                    conn.execute("ROLLBACK")
            raise
        self.commits += 1

    async def write(
        self,
        *,
        log_rows: list[tuple[str, int, str, float]] | None = None,
        table_rows: Iterable[TableRowUpdate] = (),
        ops: Iterable[Op] = (),
    ) -> None:
        """Queue a write and wait until it is committed (all of it, in one transaction)."""
        if self._writer is None or self._closing:
            raise StoreError("the store is not open")  # nobody would ever commit it
        w = _Write(log_rows or [], list(table_rows), list(ops))
        await self._queue.put(w)
        await w.future

    # --- reads -----------------------------------------------------------------------

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        async with self.ro.execute(sql, params) as cur:
            return [tuple(r) for r in await cur.fetchall()]
