-- Derived columns for one session whose schema is not the one the workspace was built
-- for. The file is open read-only, so they go to this connection's temp database, one
-- row per item computed by the cosmem_* functions registered on the connection (one
-- item at a time: nothing is held but the temp pages SQLite spills to disk).
-- Unqualified names resolve to temp before main, so the view temp.items shadows
-- main.items and every other query text reads the session's columns unchanged.
DROP VIEW IF EXISTS temp.items;
DROP TABLE IF EXISTS temp.session_keys;

CREATE TEMP TABLE session_keys (
    item        INTEGER PRIMARY KEY,         -- rowid of the item in main.items
    pk          TEXT NOT NULL,
    id          TEXT NOT NULL,
    ts          INTEGER NOT NULL,
    expires_at  INTEGER,
    tenant_key  TEXT,
    thread_key  TEXT,
    order_rank  INTEGER NOT NULL,
    order_value NOT NULL
);

INSERT INTO temp.session_keys
SELECT rowid, pk, id, ts, expires_at,
       cosmem_tenant_key(body), cosmem_thread_key(body),
       cosmem_order_rank(body), cosmem_order_value(body)
FROM main.items;

-- The indexes of workspace_indexes.sql, plus the primary key read_item looks up.
CREATE INDEX temp.session_keys_by_thread
    ON session_keys (thread_key, tenant_key, order_rank, order_value, id);
CREATE INDEX temp.session_keys_by_tenant
    ON session_keys (tenant_key, thread_key, expires_at, ts);
CREATE UNIQUE INDEX temp.session_keys_by_key ON session_keys (pk, id);

-- Columns the listings need come from the keys table alone (its indexes cover them);
-- the rest are scalar subqueries, which SQLite evaluates only for queries that use them.
CREATE TEMP VIEW items AS
SELECT k.pk, k.id, k.ts,
       (SELECT etag FROM main.items WHERE rowid = k.item)       AS etag,
       k.expires_at, k.tenant_key, k.thread_key, k.order_rank, k.order_value,
       (SELECT size_bytes FROM main.items WHERE rowid = k.item) AS size_bytes,
       (SELECT body FROM main.items WHERE rowid = k.item)       AS body
FROM temp.session_keys AS k;
