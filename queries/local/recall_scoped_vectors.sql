-- recall_scoped.sql on a workspace with a vectors table: an item with a row there comes
-- with its embedding's numbers and its body without them (the long body is not read).
SELECT i.id, i.tenant_key, i.thread_key,
       CASE WHEN v.item_rowid IS NULL THEN i.body ELSE v.slim END,
       v.dims, v.norm, v.vector
FROM items AS i
LEFT JOIN vectors AS v ON v.item_rowid = i.rowid
WHERE i.tenant_key IS :tenant
  AND (:thread IS NULL OR i.thread_key = :thread)
  AND (i.expires_at IS NULL OR i.expires_at > :now)
