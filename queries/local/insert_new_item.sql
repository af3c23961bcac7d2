-- An item whose (pk, id) must be new, its columns in order (sources/local/columns.py
-- COLUMNS): a row whose key is already stored is skipped, never replacing the first copy,
-- and the importer names it (existing_keys.sql) as a duplicate.
INSERT OR IGNORE INTO items
    (pk, id, ts, etag, expires_at, tenant_key, thread_key, order_rank, order_value, size_bytes, body)
VALUES
    (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
