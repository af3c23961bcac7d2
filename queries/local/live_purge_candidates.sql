-- Items that expired in (:floor, :until]: the demo's live workload purges each once its
-- own lag has passed (a TTL purge trails the expiry). Oldest expiry first.
SELECT pk, id, expires_at
FROM main.items
WHERE expires_at > :floor
  AND expires_at <= :until
ORDER BY expires_at, id
LIMIT :limit
