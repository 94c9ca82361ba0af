-- Tables, their append-only logs, players, chat settings, results and ratings.
CREATE TABLE players (
    key TEXT PRIMARY KEY,            -- "<platform>:<user id>"
    name TEXT NOT NULL,
    lang TEXT,
    updated REAL NOT NULL
);

CREATE TABLE chats (
    key TEXT PRIMARY KEY,            -- "<platform>:<chat id>"
    settings TEXT NOT NULL DEFAULT '{}',
    updated REAL NOT NULL
);

CREATE TABLE tables (
    id TEXT PRIMARY KEY,
    chat TEXT NOT NULL,
    game TEXT NOT NULL,
    status TEXT NOT NULL,
    version INTEGER NOT NULL,
    deadline REAL,                   -- when the seat to act times out (re-armed at start)
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX tables_by_status ON tables(status);
CREATE INDEX tables_by_chat ON tables(chat, status);

CREATE TABLE table_log (
    table_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    entry TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (table_id, version)
) WITHOUT ROWID;

CREATE TABLE games (
    table_id TEXT PRIMARY KEY,
    chat TEXT NOT NULL,
    game TEXT NOT NULL,
    record TEXT NOT NULL,            -- the RULES.md section 6 record
    finished REAL NOT NULL
);

CREATE TABLE results (
    table_id TEXT NOT NULL,
    chat TEXT NOT NULL,
    game TEXT NOT NULL,
    player TEXT NOT NULL,
    seat INTEGER NOT NULL,
    won INTEGER NOT NULL,
    bummerl INTEGER NOT NULL,
    schneider INTEGER NOT NULL,
    score INTEGER NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (table_id, player)
);
CREATE INDEX results_by_player ON results(player, game);
CREATE INDEX results_by_chat ON results(chat, game);

CREATE TABLE contracts (
    table_id TEXT NOT NULL,
    deal INTEGER NOT NULL,
    chat TEXT NOT NULL,
    game TEXT NOT NULL,
    player TEXT NOT NULL,
    contract TEXT NOT NULL,
    made INTEGER NOT NULL,
    PRIMARY KEY (table_id, deal)
);
CREATE INDEX contracts_by_player ON contracts(player, game);

CREATE TABLE ratings (
    scope TEXT NOT NULL,             -- "global" or a chat key
    game TEXT NOT NULL,
    player TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (scope, game, player)
);
