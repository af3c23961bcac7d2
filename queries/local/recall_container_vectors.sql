-- recall_container.sql on a workspace with a vectors table (see recall_scoped_vectors.sql).
SELECT i.id, i.tenant_key, i.thread_key,
       CASE WHEN v.item_rowid IS NULL THEN i.body ELSE v.slim END,
       v.dims, v.norm, v.vector
FROM items AS i
LEFT JOIN vectors AS v ON v.item_rowid = i.rowid
WHERE (i.expires_at IS NULL OR i.expires_at > :now)
