-- Every thread with a visible item, on schemas without a tenant level (the threads are
-- the top-level keys there).
SELECT DISTINCT thread_key
FROM items
WHERE thread_key IS NOT NULL
  AND tenant_key IS NULL
  AND (expires_at IS NULL OR expires_at > :now)
  AND ts > :since  -- a reload: only keys written since the last listing (-1: all)
