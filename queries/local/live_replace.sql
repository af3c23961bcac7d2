-- A replace by the demo's live workload: the same item (same key, same order value) with
-- a new body, _ts and _etag, so its TTL clock restarts.
UPDATE main.items
SET ts = :ts, etag = :etag, expires_at = :expires_at, size_bytes = :size_bytes, body = :body
WHERE rowid = :rowid
