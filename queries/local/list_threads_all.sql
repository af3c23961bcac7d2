-- Every thread of a container whose schema has no tenant level (a fan-out on Cosmos).
SELECT thread_key                     AS thread,
       COUNT(*)                       AS items,
       MAX(ts)                        AS last_activity,
       SUM(expires_at IS NOT NULL)    AS short_term,
       SUM(expires_at IS NULL)        AS long_term
FROM items
WHERE thread_key IS NOT NULL
  AND (expires_at IS NULL OR expires_at > :now)
GROUP BY thread_key
ORDER BY thread_key
