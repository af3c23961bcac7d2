-- The items of one tenant (:thread NULL) or thread that expire in (:now, :until], soonest
-- first, at most :limit, with how many there are in all (`total`). `kind` is the schema's
-- kind: the field at :kind_path renamed by :kind_map (a JSON object), else :default_kind;
-- `body`, last, is read for the row's order value and text (as the turn list reads them).
SELECT id, pk, ts, tenant_key, thread_key,
       json_type(body, '$.ttl')    AS ttl_type,
       json_extract(body, '$.ttl') AS ttl_value,
       CASE
           WHEN json_type(body, :kind_path) = 'text' AND json_extract(body, :kind_path) <> ''
           THEN COALESCE((SELECT m.value FROM json_each(:kind_map) AS m
                          WHERE m.key = json_extract(body, :kind_path)),
                         json_extract(body, :kind_path))
           ELSE :default_kind
       END                         AS kind,
       COUNT(*) OVER ()            AS total,
       body
FROM items
WHERE tenant_key IS :tenant
  AND (:thread IS NULL OR thread_key = :thread)
  AND expires_at > :now
  AND expires_at <= :until
ORDER BY expires_at, id, pk
LIMIT :limit
