-- A recall probe's candidates in the whole container (a fan-out on Cosmos).
SELECT id, tenant_key, thread_key, body, NULL, NULL, NULL  -- no stored vector
FROM items
WHERE (expires_at IS NULL OR expires_at > :now)
