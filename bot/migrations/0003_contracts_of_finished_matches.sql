-- Contracts were written deal by deal, so a match aborted after a few deals left
-- its contracts in /stats although it counts nowhere else. They are now written
-- with the finished match. Drop those of matches that never finished: a table still
-- running writes all of its contracts again when it finishes.
DELETE FROM contracts WHERE table_id NOT IN (SELECT table_id FROM games);
