-- Counts of one tenant: visible threads and items, and the newest write.
SELECT COUNT(DISTINCT thread_key) AS threads,
       COUNT(*)                   AS items,
       MAX(ts)                    AS last_activity
FROM items
WHERE tenant_key = :tenant
  AND thread_key IS NOT NULL
  AND (expires_at IS NULL OR expires_at > :now)
