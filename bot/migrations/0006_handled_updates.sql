-- Updates an adapter has handled, by source (for Telegram "tg:<bot id>": a new token
-- may be a new bot, whose update ids start anew). Telegram sends again what a killed
-- bot had handled but not yet confirmed: the adapter reads these at start and drops
-- them. Kept small: each source's newest ids (`Store.mark_handled`), and nothing older
-- than Telegram keeps an update (`Store.forget_handled_updates`).
CREATE TABLE IF NOT EXISTS handled_updates (
    source TEXT NOT NULL,
    update_id INTEGER NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (source, update_id)
) WITHOUT ROWID;
