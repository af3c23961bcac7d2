-- Counts of one thread of a session-granularity container: messages, not documents.
SELECT SUM(MAX(1, COALESCE(json_array_length(body, :messages), 1)))   AS items,
       MAX(ts)                                                        AS last_activity,
       SUM((expires_at IS NOT NULL) * MAX(1, COALESCE(json_array_length(body, :messages), 1))) AS short_term,
       SUM((expires_at IS NULL) * MAX(1, COALESCE(json_array_length(body, :messages), 1)))     AS long_term
FROM items
WHERE thread_key = :thread
  AND tenant_key IS NULL
  AND (expires_at IS NULL OR expires_at > :now)
