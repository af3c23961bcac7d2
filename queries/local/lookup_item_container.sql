-- An item named by id anywhere in the container, expired or not (a fan-out on Cosmos).
SELECT id, pk, ts, etag, body, tenant_key, thread_key, expires_at
FROM items
WHERE id = :id
ORDER BY (expires_at IS NULL OR expires_at > :now) DESC, expires_at DESC
