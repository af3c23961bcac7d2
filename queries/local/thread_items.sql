-- Up to :limit visible items of one thread with their ETags: what an erase deletes next.
-- :skip is a JSON array of the ids the erase met and could not delete.
SELECT id, pk, etag, body
FROM items
WHERE thread_key = :thread
  AND tenant_key IS :tenant
  AND (expires_at IS NULL OR expires_at > :now)
  AND id NOT IN (SELECT value FROM json_each(:skip))
ORDER BY id
LIMIT :limit
