-- After a guarded write that kept the item (its rowid): its new _ts and expiry.
UPDATE temp.session_keys
SET ts = (SELECT ts FROM main.items AS i WHERE i.rowid = session_keys.item),
    expires_at = (SELECT expires_at FROM main.items AS i WHERE i.rowid = session_keys.item)
WHERE pk = :pk AND id = :id
  AND EXISTS (SELECT 1 FROM main.items AS i WHERE i.rowid = session_keys.item)
