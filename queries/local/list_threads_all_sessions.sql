-- Every thread of a session-granularity container with no tenant level. One document
-- holds a whole session, so a thread counts the messages of its documents (:messages is
-- the SQLite JSON path of the array, e.g. '$."messages"'); a broken array counts as one.
SELECT thread_key                                                     AS thread,
       SUM(MAX(1, COALESCE(json_array_length(body, :messages), 1)))   AS items,
       MAX(ts)                                                        AS last_activity,
       SUM((expires_at IS NOT NULL) * MAX(1, COALESCE(json_array_length(body, :messages), 1))) AS short_term,
       SUM((expires_at IS NULL) * MAX(1, COALESCE(json_array_length(body, :messages), 1)))     AS long_term
FROM items
WHERE thread_key IS NOT NULL
  AND (expires_at IS NULL OR expires_at > :now)
GROUP BY thread_key
ORDER BY thread_key
