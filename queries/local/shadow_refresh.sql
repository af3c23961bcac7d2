-- After a guarded write: bring one item's session keys (temp.session_keys, see
-- session_keys.sql) up to date with main.items: a new _ts and expiry, or gone.
DELETE FROM temp.session_keys
WHERE pk = :pk AND id = :id
  AND NOT EXISTS (SELECT 1 FROM main.items AS i WHERE i.rowid = session_keys.item);
