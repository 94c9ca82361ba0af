"""The SQLite store (aiosqlite, WAL): tables and their logs, players, chats, results.

`Store` is one object to its callers; its parts live in modules named for what they
hold, so that the connection machinery can be read apart from the queries:

- `database`: the connections, the single writer (group commit) and WAL checkpoints;
  the durability rule is written down there.
- `schema`: the migrations (numbered SQL files in ``bot/migrations``, tracked with
  ``PRAGMA user_version``).
- `files`: the database file itself — the lock held against a second bot, the checks
  made before connecting.
- `tables`, `chats`, `bookkeeping`: the queries — tables and their logs; players and
  chats; the message refs and handled updates that only adapters keep.

Everything callers use is imported from here, ``bot.store``, as before the split.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .bookkeeping import AdapterBookkeeping
from .chats import Chats, chat_settings_op, move_chat_ops, player_op
from .database import Op
from .errors import StoreError
from .files import lock_path
from .schema import migrations
from .tables import CLOSED, FinishedGame, TableChange, TableRow, Tables, _random_table_id

__all__ = [
    "CLOSED",
    "FinishedGame",
    "Op",
    "Store",
    "StoreError",
    "TableChange",
    "TableRow",
    "chat_settings_op",
    "lock_path",
    "migrations",
    "move_chat_ops",
    "player_op",
]


class Store(Tables, Chats, AdapterBookkeeping):
    """The database.  `exclusive`: this process's own, for as long as it is open —
    a second bot started on the same file is refused (`StoreError`) instead of playing
    the same tables from its own memory.  `busy_timeout` is how long one attempt
    waits for another program's lock; a write that still cannot be committed is tried
    again for `write_retry` seconds before its waiter gets a `StoreError`.
    `table_ids` draws the id of a new table (random base-36 by default)."""

    def __init__(
        self,
        path: str | Path,
        *,
        table_ids: Callable[[], str] | None = None,
        exclusive: bool = False,
        busy_timeout: float = 5.0,
        write_retry: float = 10.0,
    ) -> None:
        super().__init__(
            path, exclusive=exclusive, busy_timeout=busy_timeout, write_retry=write_retry
        )
        self._table_ids = table_ids or _random_table_id
