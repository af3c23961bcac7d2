-- A recall probe's candidates in one tenant (:thread NULL) or one thread: every visible
-- item's keys and body, read in batches and ranked in the console (exact search).
SELECT id, tenant_key, thread_key, body, NULL, NULL, NULL  -- no stored vector
FROM items
WHERE tenant_key IS :tenant
  AND (:thread IS NULL OR thread_key = :thread)
  AND (expires_at IS NULL OR expires_at > :now)
