-- Tenants with their visible threads and items. Expired items are invisible.
SELECT tenant_key                 AS tenant,
       COUNT(DISTINCT thread_key) AS threads,
       COUNT(*)                   AS items,
       MAX(ts)                    AS last_activity
FROM items
WHERE tenant_key IS NOT NULL
  AND (expires_at IS NULL OR expires_at > :now)
GROUP BY tenant_key
ORDER BY tenant_key
