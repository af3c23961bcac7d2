-- Threads of one tenant (a key-prefix scope on a hierarchical container).
SELECT thread_key                     AS thread,
       COUNT(*)                       AS items,
       MAX(ts)                        AS last_activity,
       SUM(expires_at IS NOT NULL)    AS short_term,
       SUM(expires_at IS NULL)        AS long_term
FROM items
WHERE tenant_key = :tenant
  AND thread_key IS NOT NULL
  AND (expires_at IS NULL OR expires_at > :now)
GROUP BY thread_key
ORDER BY thread_key
