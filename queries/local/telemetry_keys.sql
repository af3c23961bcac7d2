-- The simulated workload's keys: every partition key with items visible at :now, how
-- many, and how many bytes they hold (one pass; the item bodies are never read).
-- main.items: the stored partition key, whatever schema the session reads with.
SELECT pk, COUNT(*) AS items, SUM(size_bytes) AS size_bytes
FROM main.items
WHERE expires_at IS NULL OR expires_at > :now
GROUP BY pk
