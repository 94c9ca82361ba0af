"""Schema migrations: numbered SQL files in ``bot/migrations`` applied in order and
tracked with ``PRAGMA user_version``, here so that the connection machinery and the
queries need not know how the schema came to be."""

from __future__ import annotations

import logging
from importlib import resources

import aiosqlite

from .errors import StoreError

# the package's logger, as when this was one module: log settings name "bot.store"
log = logging.getLogger("bot.store")


def migrations() -> list[tuple[int, str, str]]:
    """(number, name, sql) of every migration file, in order."""
    out = []
    for res in resources.files("bot.migrations").iterdir():
        name = res.name
        if name.endswith(".sql") and name[:4].isdigit():
            out.append((int(name[:4]), name, res.read_text(encoding="utf-8")))
    return sorted(out)


def _statements(sql: str) -> list[str]:
    """Split a migration file into statements (no semicolons inside our literals)."""
    out = []
    for part in sql.split(";"):
        lines = [ln for ln in part.splitlines() if not ln.strip().startswith("--")]
        text = "\n".join(lines).strip()
        if text:
            out.append(text)
    return out


async def migrate(db: aiosqlite.Connection, path: str) -> None:
    """Bring the database on `db` up to the newest migration, each in a transaction of
    its own; `StoreError` if it is newer than this version of the bot knows."""
    async with db.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    current = int(row[0]) if row else 0
    known = migrations()
    newest = max((number for number, _, _ in known), default=0)
    if current > newest:
        # written by a newer version of the bot (rolled back since?): this code
        # does not know its tables and would misread or damage them
        raise StoreError(
            f"the database {path} has schema version {current}, newer than this"
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
