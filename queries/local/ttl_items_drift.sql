-- The visible items of one tenant (:thread NULL) or thread whose effective lifetime
-- differs from the one :lifetimes (a JSON object, kind → seconds, -1 for never) expects
-- for their kind, newest write first, at most :limit, with how many there are in all.
-- The effective lifetime is expires_at - ts (the workspace derived it from the item's
-- ttl and the container default), -1 when it never expires (TTL off included).
WITH scoped AS (
    SELECT id, pk, ts, tenant_key, thread_key, body, expires_at,
           json_type(body, '$.ttl')    AS ttl_type,
           json_extract(body, '$.ttl') AS ttl_value,
           CASE
               WHEN json_type(body, :kind_path) = 'text' AND json_extract(body, :kind_path) <> ''
               THEN COALESCE((SELECT m.value FROM json_each(:kind_map) AS m
                              WHERE m.key = json_extract(body, :kind_path)),
                             json_extract(body, :kind_path))
               ELSE :default_kind
           END                         AS kind
    FROM items
    WHERE tenant_key IS :tenant
      AND (:thread IS NULL OR thread_key = :thread)
      AND (expires_at IS NULL OR expires_at > :now)
), expected AS (
    SELECT scoped.*, e.value AS lifetime
    FROM scoped JOIN json_each(:lifetimes) AS e ON e.key = scoped.kind
)
SELECT id, pk, ts, tenant_key, thread_key, ttl_type, ttl_value, kind, COUNT(*) OVER () AS total,
       body
FROM expected
WHERE (CASE WHEN expires_at IS NULL THEN -1 ELSE expires_at - ts END) <> lifetime
ORDER BY ts DESC, id, pk
LIMIT :limit
