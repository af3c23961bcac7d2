INSERT OR REPLACE INTO items
    (pk, id, ts, etag, expires_at, tenant_key, thread_key, order_rank, order_value, size_bytes, body)
VALUES
    (:pk, :id, :ts, :etag, :expires_at, :tenant_key, :thread_key, :order_rank, :order_value,
     :size_bytes, :body)
