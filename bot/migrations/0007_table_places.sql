-- Where each table was played, as its adapter names it (Discord: the channel or
-- thread), kept after the table closes, when its message refs are dropped. A Discord
-- chat is a whole server, whose private channels not every member sees: /record hands
-- a named match to a person who sat at it, or to one asking where it was played.
-- Tables closed before this have no place (their players still get their records);
-- those open now have their channel among their message refs.
CREATE TABLE IF NOT EXISTS table_places (
    table_id TEXT PRIMARY KEY,
    place TEXT NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO table_places (table_id, place)
    SELECT table_id, ref FROM message_refs WHERE slot = 'channel';
