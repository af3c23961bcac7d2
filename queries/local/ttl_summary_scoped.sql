-- Visible items of one tenant (:thread NULL) or one thread by TTL class, and how many of
-- each expire by each forecast horizon (:until1 … :until4, epoch seconds). The class
-- follows model/ttl.py `classify`: no ttl → default; TTL off (:default_ttl NULL) → any ttl
-- is ignored; a JSON integer -1 → long-term, 1..2147483647 → short-term; anything else
-- (null, 0, a string, a fraction, a boolean, out of range, an array) → invalid.
-- expires_at is the workspace's derived expiry (NULL: never), computed by the same rules.
WITH scoped AS (
    SELECT ts, expires_at,
           json_type(body, '$.ttl')    AS t,
           json_extract(body, '$.ttl') AS v
    FROM items
    WHERE tenant_key IS :tenant
      AND (:thread IS NULL OR thread_key = :thread)
      AND (expires_at IS NULL OR expires_at > :now)
)
SELECT CASE
           WHEN t IS NULL THEN 'default'
           WHEN :default_ttl IS NULL THEN 'ignored'
           WHEN t = 'integer' AND v = -1 THEN 'long-term'
           WHEN t = 'integer' AND v BETWEEN 1 AND 2147483647 THEN 'short-term'
           ELSE 'invalid'
       END                                   AS class,
       COUNT(*)                              AS items,
       SUM(expires_at <= :until1)            AS within1,
       SUM(expires_at <= :until2)            AS within2,
       SUM(expires_at <= :until3)            AS within3,
       SUM(expires_at <= :until4)            AS within4,
       MAX(ts)                               AS last_write
FROM scoped
GROUP BY class
