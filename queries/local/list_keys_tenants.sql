-- Every tenant (top-level key) with a visible item; the console sorts them in Cosmos order.
SELECT DISTINCT tenant_key
FROM items
WHERE tenant_key IS NOT NULL
  AND (expires_at IS NULL OR expires_at > :now)
  AND ts > :since  -- a reload: only keys written since the last listing (-1: all)
