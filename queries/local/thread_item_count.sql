-- Visible items of one thread (an erase counts them before the user confirms).
SELECT COUNT(*)
FROM items
WHERE thread_key = :thread
  AND tenant_key IS :tenant
  AND (expires_at IS NULL OR expires_at > :now)
