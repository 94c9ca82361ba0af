-- The results each player's ratings stand on, marked when they moved. The board
-- counted a row's won/games by looking at the other rows of the same match (people
-- on two sides?), so an opponent's /forgetme, which deletes his rows, took those
-- matches off the board rows of everyone he had played, whose ratings still stood on
-- them. A table of its own rather than a column of results: copies of results rows
-- (bench/soak.py) keep their shape.
CREATE TABLE IF NOT EXISTS rated_results (
    player TEXT NOT NULL,
    table_id TEXT NOT NULL,
    PRIMARY KEY (player, table_id)
) WITHOUT ROWID;
-- The matches rated so far, by the rule the board used: people on two sides at least
-- (Bauern's sides are the teams). A match whose other side forgot himself before
-- this cannot be told apart from one against computers any more: it stays off the
-- board, as it already was.
INSERT OR IGNORE INTO rated_results (player, table_id)
    SELECT x.player, x.table_id FROM results x
    WHERE (SELECT COUNT(DISTINCT CASE WHEN y.game = 'bauern' THEN y.seat % 2 ELSE y.seat END)
           FROM results y WHERE y.table_id = x.table_id) >= 2;
