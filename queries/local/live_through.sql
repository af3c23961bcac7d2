-- How far the demo's live workload has written (epoch seconds), kept in the workspace so
-- that two consoles on one demo never write the same second twice.
INSERT OR REPLACE INTO meta VALUES ('live_through', :through)
