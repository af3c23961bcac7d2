-- The visible items of one tenant (:thread NULL) or thread whose kind is one of :kinds (a
-- JSON array: the schema's long-term kinds, facts and summaries), newest write first, at
-- most :limit, with how many there are in all. `kind` as in ttl_items_expiring.sql.
WITH scoped AS (
    SELECT id, pk, ts, tenant_key, thread_key, body,
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
)
SELECT id, pk, ts, tenant_key, thread_key, ttl_type, ttl_value, kind, COUNT(*) OVER () AS total,
       body
FROM scoped
WHERE kind IN (SELECT value FROM json_each(:kinds))
ORDER BY ts DESC, id, pk
LIMIT :limit
