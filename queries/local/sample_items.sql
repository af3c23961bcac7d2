-- The most recently written visible items of the whole container, for schema detection
-- (a cross-partition read on Cosmos; the caller bounds it by count and charge).
SELECT id, pk, ts, etag, body
FROM items
WHERE (expires_at IS NULL OR expires_at > :now)
ORDER BY ts DESC, id
LIMIT :limit
