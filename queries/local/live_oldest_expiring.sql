-- The oldest visible item of one thread that will expire (a short-term turn): what the
-- demo's live workload deletes when a simulated agent forgets.
SELECT id
FROM main.items
WHERE pk = :pk
  AND expires_at > :now
ORDER BY order_rank, order_value, id
LIMIT 1
