-- Counts of one thread on a schema without tenants: items, newest write, short/long term.
SELECT COUNT(*)                       AS items,
       MAX(ts)                        AS last_activity,
       SUM(expires_at IS NOT NULL)    AS short_term,
       SUM(expires_at IS NULL)        AS long_term
FROM items
WHERE thread_key = :thread
  AND tenant_key IS NULL
  AND (expires_at IS NULL OR expires_at > :now)
