-- An item whose (pk, id) must be new: a conflict fails the whole batch (the importer then
-- finds and reports the duplicates) instead of silently replacing the first copy.
INSERT INTO items
    (pk, id, ts, etag, expires_at, tenant_key, thread_key, order_rank, order_value, size_bytes, body)
VALUES
    (:pk, :id, :ts, :etag, :expires_at, :tenant_key, :thread_key, :order_rank, :order_value,
     :size_bytes, :body)
