"""Tables and their logs: creating a table, appending to its log in the transaction
that moves its version, closing it, and reading tables, logs and finished games back."""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .bookkeeping import _drop_refs
from .database import Database, Op, TableRowUpdate
from .errors import StoreError

#: Table statuses after which nothing happens at a table any more.
CLOSED = ("finished", "aborted")


@dataclass(frozen=True)
class TableRow:
    id: str
    chat: str
    game: str
    status: str
    version: int
    deadline: float | None
    #: The newest version whose end (a deal's result, the close) its chat was shown
    #: (`set_told`): a start tells again the ends after it.
    told: int = 0
    #: When it last changed (for a closed table: when it closed), wall time.
    updated: float = 0.0


@dataclass(frozen=True)
class TableChange:
    """Entries appended to a table as versions ``first_version, ...``, and the status
    and deadline they leave it with: `append`'s `also`."""

    table_id: str
    first_version: int
    entries: Sequence[dict[str, Any]]
    status: str
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


class Tables(Database):
    """The queries of tables and their logs (a mixin of `Store`)."""

    #: Draws a new table id (`Store`'s `table_ids`).
    _table_ids: Callable[[], str]

    async def create_table(
        self,
        chat: str,
        game: str,
        create_entry: dict[str, Any],
        entries: Sequence[dict[str, Any]] = (),
        ops: Iterable[Op] = (),
    ) -> str:
        """Store a new lobby: its first log entry and `entries` (versions 2, 3, ...),
        in one transaction with `ops`; returns its new short id.

        `entries` seat its host: stored apart, a bot killed in between would come
        back with a lobby nobody sits at, which its host never heard of.  Ids are 7
        random base-36 characters (short enough for button payloads); the primary
        key catches the rare collision and we draw again.
        """
        ops = list(ops)
        for _ in range(10):
            table_id = self._table_ids()
            try:
                await self._insert_table(table_id, chat, game, [create_entry, *entries], ops)
            except sqlite3.IntegrityError:
                continue
            return table_id
        raise StoreError("could not find a free table id")

    async def _insert_table(
        self,
        table_id: str,
        chat: str,
        game: str,
        entries: list[dict[str, Any]],
        ops: list[Op],
    ) -> None:
        now = time.time()
        await self.write(
            ops=[
                (
                    "INSERT INTO tables (id, chat, game, status, version, deadline, created, updated)"
                    " VALUES (?, ?, ?, 'lobby', ?, NULL, ?, ?)",
                    (table_id, chat, game, len(entries), now, now),
                ),
                *(
                    (
                        "INSERT INTO table_log (table_id, version, entry, at) VALUES (?, ?, ?, ?)",
                        (table_id, version, _compact(entry), now),
                    )
                    for version, entry in enumerate(entries, 1)
                ),
                *ops,
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
        also: Sequence[TableChange] = (),
    ) -> None:
        """Append entries as versions ``first_version, first_version + 1, ...`` and set
        the table's version, status and deadline, in one transaction (with `ops`, and
        the changes of other tables in `also`: one request that changes several, which
        a kill must not leave half done).  `ops` run after the entries are in: they
        may rewrite them (/forgetme scrubs his key from the entries that hand over his
        seats)."""
        now = time.time()
        rows: list[tuple[str, int, str, float]] = []
        table_rows: list[TableRowUpdate] = []
        ops = list(ops)
        for c in (TableChange(table_id, first_version, entries, status, deadline), *also):
            rows += [
                (c.table_id, c.first_version + i, _compact(e), now) for i, e in enumerate(c.entries)
            ]
            last = c.first_version + len(c.entries) - 1
            table_rows.append((c.status, last, c.deadline, now, c.table_id))
        # A change that closes a table leaves its message refs: they go when adapters
        # delivered its last messages (`set_told`), so a kill before that leaves what
        # a restart needs to show its end there.
        await self.write(log_rows=rows, table_rows=table_rows, ops=ops)

    async def close_unrestorable(self, table_id: str, version: int) -> None:
        """Close a table whose log no longer replays (a damaged file, a rule changed by
        an update), without a log entry: its log is kept as it is, for whoever looks
        into why.  Closed, it is not tried again at every start, and its players'
        buttons answer that the table is closed."""
        now = time.time()
        await self.write(
            table_rows=[("aborted", version, None, now, table_id)],
            # nothing of it can be drawn any more: no end to tell
            ops=[
                _drop_refs(table_id),
                (
                    "INSERT OR REPLACE INTO table_told (table_id, version) VALUES (?, ?)",
                    (table_id, version),
                ),
            ],
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
            f"SELECT {_ROW} FROM tables WHERE status IN ('lobby', 'playing') ORDER BY created"
        ) as cur:
            return [TableRow(*r) for r in await cur.fetchall()]

    async def closed_untold(self) -> list[TableRow]:
        """Closed tables whose close no adapter confirmed it delivered (`set_told`):
        the bot stopped between storing it and showing it."""
        async with self.ro.execute(
            f"SELECT {_ROW} FROM tables WHERE status IN ('finished', 'aborted')"
            f" AND {_TOLD} < version ORDER BY updated"
        ) as cur:
            return [TableRow(*r) for r in await cur.fetchall()]

    async def table_row(self, table_id: str) -> TableRow | None:
        async with self.ro.execute(f"SELECT {_ROW} FROM tables WHERE id=?", (table_id,)) as cur:
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
        self, chat: str | None, table_id: str | None = None
    ) -> FinishedGame | None:
        """A finished match of `chat` (its newest without `table_id`), with the names
        of the people who sat at it: a record is only handed out in the chat it was
        played in, where its table id was shown.  `chat` None, with a `table_id`: that
        match, in whatever chat it was played (its `chat` and `place` say where, for
        the caller to decide)."""
        conditions = {"g.chat=?": chat, "g.table_id=?": table_id or None}
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

    async def matches_joined(self, chat: str, player: str, limit: int = 20) -> list[str]:
        """The table ids of `chat`'s finished or closed matches `player` sat down at,
        newest first.  A closed match wrote no results: its log's joins say who sat at
        it (a join is no proof he was still there at its end; the caller checks)."""
        rows = await self.fetchall(
            "SELECT table_id FROM games WHERE chat=? AND (table_id IN"
            " (SELECT table_id FROM results WHERE player=?) OR table_id IN"
            " (SELECT table_id FROM table_log WHERE json_extract(entry, '$.user') = ?))"
            " ORDER BY finished DESC LIMIT ?",
            (chat, player, player, limit),
        )
        return [str(r[0]) for r in rows]

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


#: How far a table's ends were told (`set_told`), for a query of `tables`.
_TOLD = "COALESCE((SELECT k.version FROM table_told k WHERE k.table_id = tables.id), 0)"
#: The columns of a `TableRow`, in its order.
_ROW = f"id, chat, game, status, version, deadline, {_TOLD}, updated"

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
