SELECT id, pk, ts, etag, body
FROM items
WHERE pk = :pk
  AND id = :id
  AND (expires_at IS NULL OR expires_at > :now)
