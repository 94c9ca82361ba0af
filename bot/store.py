"""The SQLite store (aiosqlite, WAL): tables and their logs, players, chats, results.

Durability rule (DESIGN.md): every table change is appended to the table's log in the
same transaction that bumps the table's version, and nobody is told before that
transaction commits.  Writes from all tables go through one writer task that commits
them in batches (group commit), so hundreds of busy tables cost one commit per batch
instead of one each, while every caller still waits for its own write to be durable.

Schema changes are numbered SQL files in ``bot/migrations`` applied in order and
tracked with ``PRAGMA user_version``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import aiosqlite

log = logging.getLogger(__name__)


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

#: Table statuses after which nothing happens at a table any more.
CLOSED = ("finished", "aborted")


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


def _drop_refs(table_id: str) -> Op:
    return ("DELETE FROM message_refs WHERE table_id = ?", (table_id,))


class StoreError(RuntimeError):
    pass


#: SQLite's primary result codes for a database that cannot be written *now* (held by
#: another program, a full disk, an I/O error): a write that failed so is tried again.
_PASSING = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR}


@dataclass
class _Write:
    log_rows: list[tuple[str, int, str, float]]
    table_row: tuple[str, int, float | None, float, str] | None  # status, version, deadline...
    ops: list[Op]
    future: asyncio.Future[None] = field(
        repr=False, default_factory=lambda: asyncio.get_running_loop().create_future()
    )


@dataclass(frozen=True)
class TableRow:
    id: str
    chat: str
    game: str
    status: str
    version: int
    deadline: float | None


@dataclass(frozen=True)
class FinishedGame:
    table_id: str
    game: str
    record: dict[str, Any]
    finished: float  # Unix time
    names: dict[int, str]  # seat -> name of the person who sat there (computers absent)
    chat: str
    place: str | None  # where in the chat it was played (`set_place`); None: not kept
    players: frozenset[str]  # the keys of the people who sat at it to its end


def migrations() -> list[tuple[int, str, str]]:
    """(number, name, sql) of every migration file, in order."""
    out = []
    for res in resources.files("bot.migrations").iterdir():
        name = res.name
        if name.endswith(".sql") and name[:4].isdigit():
            out.append((int(name[:4]), name, res.read_text(encoding="utf-8")))
    return sorted(out)


class Store:
    """The database.  `exclusive`: this process's own, for as long as it is open —
    a second bot started on the same file is refused (`StoreError`) instead of playing
    the same tables from its own memory.  `busy_timeout` is how long one attempt
    waits for another program's lock; a write that still cannot be committed is tried
    again for `write_retry` seconds before its waiter gets a `StoreError`."""

    def __init__(
        self,
        path: str | Path,
        *,
        table_ids: Callable[[], str] | None = None,
        exclusive: bool = False,
        busy_timeout: float = 5.0,
        write_retry: float = 10.0,
    ) -> None:
        self.path = str(path)
        self._table_ids = table_ids or _random_table_id
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

    async def open(self) -> Store:
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

    async def __aenter__(self) -> Store:
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
        db = self.db
        async with db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        current = int(row[0]) if row else 0
        known = migrations()
        newest = max((number for number, _, _ in known), default=0)
        if current > newest:
            # written by a newer version of the bot (rolled back since?): this code
            # does not know its tables and would misread or damage them
            raise StoreError(
                f"the database {self.path} has schema version {current}, newer than this"
                f" version of the bot knows ({newest}): run the newer version, or a copy"
                " of the database made before it"
            )
        for number, name, sql in known:
            if number <= current:
                continue
            log.info("applying schema migration %s", name)
            await db.execute("BEGIN IMMEDIATE")
            try:
                for statement in _statements(sql):
                    await db.execute(statement)
                await db.execute(f"PRAGMA user_version={number}")
                await db.execute("COMMIT")
            except Exception:
                await db.execute("ROLLBACK")
                raise

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
            rows = [w.table_row for w in batch if w.table_row is not None]
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
        table_row: tuple[str, int, float | None, float, str] | None = None,
        ops: Iterable[Op] = (),
    ) -> None:
        """Queue a write and wait until it is committed."""
        if self._writer is None or self._closing:
            raise StoreError("the store is not open")  # nobody would ever commit it
        w = _Write(log_rows or [], table_row, list(ops))
        await self._queue.put(w)
        await w.future

    # --- tables ----------------------------------------------------------------------

    async def create_table(self, chat: str, game: str, create_entry: dict[str, Any]) -> str:
        """Store a new table and its first log entry; returns its new short id.

        Ids are 7 random base-36 characters (short enough for button payloads); the
        primary key catches the rare collision and we draw again.
        """
        for _ in range(10):
            table_id = self._table_ids()
            try:
                await self._insert_table(table_id, chat, game, create_entry)
            except sqlite3.IntegrityError:
                continue
            return table_id
        raise StoreError("could not find a free table id")

    async def _insert_table(
        self, table_id: str, chat: str, game: str, create_entry: dict[str, Any]
    ) -> None:
        now = time.time()
        await self.write(
            ops=[
                (
                    "INSERT INTO tables (id, chat, game, status, version, deadline, created, updated)"
                    " VALUES (?, ?, ?, 'lobby', 1, NULL, ?, ?)",
                    (table_id, chat, game, now, now),
                ),
                (
                    "INSERT INTO table_log (table_id, version, entry, at) VALUES (?, 1, ?, ?)",
                    (table_id, json.dumps(create_entry, separators=(",", ":")), now),
                ),
            ]
        )

    async def append(
        self,
        table_id: str,
        first_version: int,
        entries: Sequence[dict[str, Any]],
        *,
        status: str,
        deadline: float | None,
        ops: Iterable[Op] = (),
    ) -> None:
        """Append entries as versions ``first_version, first_version + 1, ...`` and set
        the table's version, status and deadline, in one transaction (with `ops`)."""
        now = time.time()
        rows = [(table_id, first_version + i, _compact(e), now) for i, e in enumerate(entries)]
        last = first_version + len(entries) - 1
        ops = list(ops)
        if status in CLOSED:
            # Where adapters showed a table is read again only for an open one (a
            # restart): a closed table forgets it with the change that closes it, so
            # no crash, shutdown or lost adapter queue can leave its rows for ever.
            ops.append(_drop_refs(table_id))
        await self.write(log_rows=rows, table_row=(status, last, deadline, now, table_id), ops=ops)

    async def close_unrestorable(self, table_id: str, version: int) -> None:
        """Close a table whose log no longer replays (a damaged file, a rule changed by
        an update), without a log entry: its log is kept as it is, for whoever looks
        into why.  Closed, it is not tried again at every start, and its players'
        buttons answer that the table is closed."""
        now = time.time()
        await self.write(
            table_row=("aborted", version, None, now, table_id), ops=[_drop_refs(table_id)]
        )

    async def set_deadline(self, table_id: str, deadline: float | None) -> None:
        """Move a table's turn deadline without a change to its log (a restart)."""
        await self.write(
            ops=[
                (
                    "UPDATE tables SET deadline=?, updated=? WHERE id=?",
                    (deadline, time.time(), table_id),
                )
            ]
        )

    async def open_tables(self) -> list[TableRow]:
        async with self.ro.execute(
            "SELECT id, chat, game, status, version, deadline FROM tables "
            "WHERE status IN ('lobby', 'playing') ORDER BY created"
        ) as cur:
            return [TableRow(*r) for r in await cur.fetchall()]

    async def table_row(self, table_id: str) -> TableRow | None:
        async with self.ro.execute(
            "SELECT id, chat, game, status, version, deadline FROM tables WHERE id=?", (table_id,)
        ) as cur:
            r = await cur.fetchone()
        return TableRow(*r) if r else None

    async def table_log(self, table_id: str) -> list[dict[str, Any]]:
        async with self.ro.execute(
            "SELECT entry FROM table_log WHERE table_id=? ORDER BY version", (table_id,)
        ) as cur:
            return [json.loads(r[0]) for r in await cur.fetchall()]

    async def game_record(self, table_id: str) -> dict[str, Any] | None:
        async with self.ro.execute("SELECT record FROM games WHERE table_id=?", (table_id,)) as cur:
            r = await cur.fetchone()
        return json.loads(r[0]) if r else None

    async def finished_game(
        self, chat: str | None, table_id: str | None = None, player: str | None = None
    ) -> FinishedGame | None:
        """A finished match of `chat` (its newest without `table_id`; of those `player`
        played, if given), with the names of the people who sat at it: a record is
        only handed out in the chat it was played in, where its table id was shown.
        `chat` None, with a `table_id`: that match, in whatever chat it was played
        (its `chat` and `place` say where, for the caller to decide)."""
        conditions = {
            "g.chat=?": chat,
            "g.table_id=?": table_id or None,
            "g.table_id IN (SELECT table_id FROM results WHERE player=?)": player,
        }
        given = {sql: arg for sql, arg in conditions.items() if arg is not None}
        where = " AND ".join(given) or "1"
        args = tuple(given.values())
        async with self.ro.execute(
            "SELECT g.table_id, g.game, g.record, g.finished, g.chat, p.place FROM games g"
            f" LEFT JOIN table_places p ON p.table_id = g.table_id WHERE {where}"
            " ORDER BY g.finished DESC LIMIT 1",
            args,
        ) as cur:
            r = await cur.fetchone()
        if r is None:
            return None
        rows = await self.fetchall(
            "SELECT r.seat, COALESCE(p.name, r.player), r.player FROM results r "
            "LEFT JOIN players p ON p.key = r.player WHERE r.table_id=? ORDER BY r.seat",
            (r[0],),
        )
        names = {int(seat): str(name) for seat, name, _ in rows}
        players = frozenset(str(key) for _, _, key in rows)
        return FinishedGame(r[0], r[1], json.loads(r[2]), float(r[3]), names, r[4], r[5], players)

    async def set_place(self, table_id: str, place: str) -> None:
        """Remember where in its chat a table is played (Discord: its channel or
        thread), for good: unlike its message refs, this outlives the table, so that
        a finished match's record can be handed out there (`finished_game`)."""
        await self.write(
            ops=[
                (
                    "INSERT OR REPLACE INTO table_places (table_id, place) VALUES (?, ?)",
                    (table_id, place),
                )
            ]
        )

    # --- players and chats -----------------------------------------------------------

    async def save_player(self, key: str, name: str, lang: str | None) -> None:
        await self.write(
            ops=[
                (
                    "INSERT INTO players (key, name, lang, updated) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET name=excluded.name, "
                    "lang=COALESCE(excluded.lang, players.lang), updated=excluded.updated",
                    (key, name, lang, time.time()),
                )
            ]
        )

    async def player(self, key: str) -> tuple[str, str | None] | None:
        async with self.ro.execute("SELECT name, lang FROM players WHERE key=?", (key,)) as cur:
            r = await cur.fetchone()
        return (r[0], r[1]) if r else None

    async def chat_settings(self, chat: str) -> dict[str, Any]:
        async with self.ro.execute("SELECT settings FROM chats WHERE key=?", (chat,)) as cur:
            r = await cur.fetchone()
        return json.loads(r[0]) if r else {}

    async def save_chat_settings(self, chat: str, settings: dict[str, Any]) -> None:
        await self.write(
            ops=[
                (
                    "INSERT INTO chats (key, settings, updated) VALUES (?, ?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET settings=excluded.settings, "
                    "updated=excluded.updated",
                    (chat, json.dumps(settings, sort_keys=True), time.time()),
                )
            ]
        )

    # --- where adapters show things -------------------------------------------------

    async def set_message_ref(self, table_id: str, slot: str, ref: str) -> None:
        """Remember a platform message (e.g. ``"chat_id/message_id"``) for a slot."""
        await self.write(
            ops=[
                (
                    "INSERT INTO message_refs (table_id, slot, ref, updated) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT(table_id, slot) DO UPDATE SET ref=excluded.ref,"
                    " updated=excluded.updated",
                    (table_id, slot, ref, time.time()),
                )
            ]
        )

    async def drop_message_ref(self, table_id: str, slot: str) -> None:
        """Forget one slot's message (a ping deleted once its turn was over)."""
        await self.write(
            ops=[("DELETE FROM message_refs WHERE table_id = ? AND slot = ?", (table_id, slot))]
        )

    async def message_refs(self, table_id: str) -> dict[str, str]:
        rows = await self.fetchall(
            "SELECT slot, ref FROM message_refs WHERE table_id = ?", (table_id,)
        )
        return {slot: ref for slot, ref in rows}

    async def drop_message_refs(self, table_id: str) -> None:
        await self.write(ops=[_drop_refs(table_id)])

    async def drop_refs_of_closed_tables(self) -> None:
        """Forget message references of tables that are not open: one an adapter
        stored after its table closed (a post that raced the end), or kept by a
        version of the bot that left them to the adapters."""
        await self.write(
            ops=[
                (
                    "DELETE FROM message_refs WHERE table_id NOT IN"
                    " (SELECT id FROM tables WHERE status IN ('lobby', 'playing'))",
                    (),
                )
            ]
        )

    # --- updates an adapter has handled ------------------------------------------------

    async def handled_updates(self, source: str) -> list[int]:
        """The update ids `source` stored as handled (`mark_handled`), oldest first."""
        rows = await self.fetchall(
            "SELECT update_id FROM handled_updates WHERE source = ? ORDER BY update_id",
            (source,),
        )
        return [int(r[0]) for r in rows]

    async def mark_handled(self, source: str, update_id: int, *, keep: int) -> None:
        """Store that `source`'s update `update_id` was handled, and forget those more
        than `keep` ids older: a platform sends again only the newest updates, those
        it was not yet told were received.  One write through the writer, so updates
        handled together share a commit (with each other and the tables' writes)."""
        await self.write(
            ops=[
                (
                    "INSERT OR IGNORE INTO handled_updates (source, update_id, at) VALUES (?, ?, ?)",
                    (source, update_id, time.time()),
                ),
                (
                    "DELETE FROM handled_updates WHERE source = ? AND update_id <= ?",
                    (source, update_id - keep),
                ),
            ]
        )

    async def forget_handled_updates(self, before: float) -> None:
        """Forget handled updates stored before `before` (Unix time), of any source:
        the platform no longer sends them again, and a source no longer used (a bot
        whose token was replaced) leaves nothing behind for ever."""
        await self.write(ops=[("DELETE FROM handled_updates WHERE at < ?", (before,))])

    # --- queries for results and ratings ---------------------------------------------

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        async with self.ro.execute(sql, params) as cur:
            return [tuple(r) for r in await cur.fetchall()]

    # --- a chat that changed its id --------------------------------------------------

    async def move_chat(self, old: str, new: str) -> None:
        """Give everything of chat key `old` to `new`, in one transaction: its tables
        (the ``tables.chat`` column and the ``chat`` of each table's ``create`` log
        entry, which rebuilds the table at start-up), its settings, its games, results
        and contracts, and its chat-scoped ratings (the leaderboard's scope).

        A Telegram group upgraded to a supergroup gets a new chat id.  Where the new
        key has settings already (made there before the move was noticed), they are
        newer and stay.  A player rated under both keys keeps one rating: that of the
        longer history, with the games of both.  Running it twice changes nothing
        the second time."""
        await self.write(
            ops=[
                (
                    "UPDATE table_log SET entry = json_set(entry, '$.chat', ?)"
                    " WHERE version = 1 AND json_extract(entry, '$.k') = 'create'"
                    " AND table_id IN (SELECT id FROM tables WHERE chat = ?)",
                    (new, old),
                ),
                ("UPDATE tables SET chat = ? WHERE chat = ?", (new, old)),
                ("UPDATE OR IGNORE chats SET key = ? WHERE key = ?", (new, old)),
                ("UPDATE games SET chat = ? WHERE chat = ?", (new, old)),
                ("UPDATE results SET chat = ? WHERE chat = ?", (new, old)),
                ("UPDATE contracts SET chat = ? WHERE chat = ?", (new, old)),
                # a player rated in both (the move noticed late): one row, the rating
                # of the longer history, the games of both
                (
                    "UPDATE ratings SET mu = (SELECT o.mu FROM ratings AS o" + _SAME_RATING + "),"
                    " sigma = (SELECT o.sigma FROM ratings AS o" + _SAME_RATING + ")"
                    " WHERE scope = ? AND EXISTS (SELECT 1 FROM ratings AS o"
                    + _SAME_RATING
                    + " AND o.games > ratings.games)",
                    (old, old, new, old),
                ),
                (
                    "UPDATE ratings SET games = games + (SELECT o.games FROM ratings AS o"
                    + _SAME_RATING
                    + ") WHERE scope = ? AND EXISTS (SELECT 1 FROM ratings AS o"
                    + _SAME_RATING
                    + ")",
                    (old, new, old),
                ),
                (
                    "DELETE FROM ratings WHERE scope = ? AND EXISTS (SELECT 1 FROM ratings AS n"
                    " WHERE n.scope = ? AND n.game = ratings.game AND n.player = ratings.player)",
                    (old, new),
                ),
                ("UPDATE ratings SET scope = ? WHERE scope = ?", (new, old)),
            ]
        )

    async def forget_message_ref(self, table_id: str, slot: str, ref: str) -> None:
        """Forget a slot's message reference if it is still `ref` (a newer one, stored
        meanwhile, stays): a message left behind in a chat that changed its id."""
        await self.write(
            ops=[
                (
                    "DELETE FROM message_refs WHERE table_id = ? AND slot = ? AND ref = ?",
                    (table_id, slot, ref),
                )
            ]
        )


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


#: The same player's rating in the same game under another scope (`o.scope = ?`).
_SAME_RATING = " WHERE o.scope = ? AND o.game = ratings.game AND o.player = ratings.player"


def _statements(sql: str) -> list[str]:
    """Split a migration file into statements (no semicolons inside our literals)."""
    out = []
    for part in sql.split(";"):
        lines = [ln for ln in part.splitlines() if not ln.strip().startswith("--")]
        text = "\n".join(lines).strip()
        if text:
            out.append(text)
    return out


_compact = json.JSONEncoder(separators=(",", ":")).encode


def _random_table_id() -> str:
    return _base36(secrets.randbelow(36**7)).rjust(7, "0")


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out
