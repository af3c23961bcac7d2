-- Threads of one tenant (or user) of a session-granularity container; see
-- list_threads_all_sessions.sql for why messages, not documents, are counted.
SELECT thread_key                                                     AS thread,
       SUM(MAX(1, COALESCE(json_array_length(body, :messages), 1)))   AS items,
       MAX(ts)                                                        AS last_activity,
       SUM((expires_at IS NOT NULL) * MAX(1, COALESCE(json_array_length(body, :messages), 1))) AS short_term,
       SUM((expires_at IS NULL) * MAX(1, COALESCE(json_array_length(body, :messages), 1)))     AS long_term
FROM items
WHERE tenant_key = :tenant
  AND thread_key IS NOT NULL
  AND (expires_at IS NULL OR expires_at > :now)
GROUP BY thread_key
ORDER BY thread_key
