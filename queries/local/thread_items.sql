-- Up to :limit visible items of one thread with their ETags: what an erase deletes next.
SELECT id, pk, etag, body
FROM items
WHERE thread_key = :thread
  AND tenant_key IS :tenant
  AND (expires_at IS NULL OR expires_at > :now)
ORDER BY id
LIMIT :limit
