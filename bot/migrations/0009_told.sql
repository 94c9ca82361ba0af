-- How far a table's ends reached its chat: the newest version whose deal result or
-- close an adapter confirmed it sent (`Store.set_told`). A kill -9 between the commit
-- that scores a deal or closes a table and the adapter's sending of it left it stored,
-- counted and never shown: a start tells again what lies beyond. A table without a row
-- was told nothing yet. A table of its own rather than a column of tables: copies of
-- tables rows (bench/soak.py, old schemas in tests) keep their shape.
CREATE TABLE IF NOT EXISTS table_told (
    table_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL
) WITHOUT ROWID;
-- Tables of older versions of the bot were told, or lost, long ago: they count as told.
INSERT OR IGNORE INTO table_told (table_id, version) SELECT id, version FROM tables;
