-- Queries that scanned every finished match, or every rating of a scope, and so grew
-- slower with each match ever played (bench/soak.py --history):
-- /record without a table id: a chat's newest match.
CREATE INDEX IF NOT EXISTS games_by_chat ON games(chat, finished);
-- /stats and /forgetme: one player's ratings (the primary key starts with the scope).
CREATE INDEX IF NOT EXISTS ratings_by_player ON ratings(player);
