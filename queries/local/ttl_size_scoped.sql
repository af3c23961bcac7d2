-- How many visible items one tenant (:thread NULL) or one thread holds: what the TTL
-- summary of that scope reads (its estimate, before it is asked for). An index-served
-- COUNT on Cosmos, charged as one.
SELECT COUNT(*)
FROM items
WHERE tenant_key IS :tenant
  AND (:thread IS NULL OR thread_key = :thread)
  AND (expires_at IS NULL OR expires_at > :now)
