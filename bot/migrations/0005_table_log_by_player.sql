-- /forgetme scrubs a player's key from every log entry that names him.  It found them
-- with a LIKE over every entry ever stored, a scan on the read connection that grew
-- with the history and held up every other read (bench/soak.py --history).  Entries
-- name a person under "user" (join, host, vote, forget) or "host" (create), the rest
-- (deals, moves, ...) are left out of the indexes, which stay a small part of the log.
CREATE INDEX IF NOT EXISTS table_log_by_user ON table_log(json_extract(entry, '$.user'))
    WHERE json_extract(entry, '$.user') IS NOT NULL;
CREATE INDEX IF NOT EXISTS table_log_by_host ON table_log(json_extract(entry, '$.host'))
    WHERE json_extract(entry, '$.host') IS NOT NULL;
