-- One page of a thread in reverse schema order, before the keyset position.
-- The first page passes rank = 99 so every row qualifies.
SELECT id, pk, ts, etag, body, order_rank, order_value
FROM items
WHERE thread_key = :thread
  AND tenant_key IS :tenant
  AND (expires_at IS NULL OR expires_at > :now)
  AND (order_rank, order_value, id) < (:rank, :value, :id)
ORDER BY order_rank DESC, order_value DESC, id DESC
LIMIT :limit
