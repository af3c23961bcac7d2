-- An item named by id within one tenant (:thread NULL) or one thread, expired or not:
-- the expired row says where it was and when it expired. Visible rows first.
SELECT id, pk, ts, etag, body, tenant_key, thread_key, expires_at
FROM items
WHERE id = :id
  AND tenant_key IS :tenant
  AND (:thread IS NULL OR thread_key = :thread)
ORDER BY (expires_at IS NULL OR expires_at > :now) DESC, expires_at DESC
