-- Where each adapter shows a table: platform message references by slot
-- ("lobby", "table", "hand:<user>", ...), so messages are edited, not re-sent,
-- across restarts.
CREATE TABLE message_refs (
    table_id TEXT NOT NULL,
    slot TEXT NOT NULL,
    ref TEXT NOT NULL,
    updated REAL NOT NULL,
    PRIMARY KEY (table_id, slot)
) WITHOUT ROWID;
