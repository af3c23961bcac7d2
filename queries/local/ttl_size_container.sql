-- How many visible items the whole container holds: what its TTL summary (a fan-out on
-- Cosmos) reads, for the estimate the question before it gives.
SELECT COUNT(*)
FROM items
WHERE (expires_at IS NULL OR expires_at > :now)
