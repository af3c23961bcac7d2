UPDATE items SET expires_at = :expires_at WHERE rowid = :rowid
