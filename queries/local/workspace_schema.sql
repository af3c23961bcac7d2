-- A local workspace is one container: its properties, free-form metadata, and items.
-- Columns after `body` are derived: pk and expires_at from the container settings,
-- tenant_key / thread_key / order_* from the schema it was built for (meta derived_for);
-- a session reading with another computes its own (session_keys.sql), never written here.
CREATE TABLE IF NOT EXISTS container (
    singleton        INTEGER PRIMARY KEY CHECK (singleton = 1),
    database_name    TEXT NOT NULL,
    container_name   TEXT NOT NULL,
    partition_key    TEXT NOT NULL,          -- JSON {"paths": [...], "kind": ..., "version": 2}
    default_ttl      INTEGER,                -- NULL = TTL off
    indexing_policy  TEXT NOT NULL DEFAULT '{}',
    vector_policy    TEXT,
    full_text_policy TEXT
);

CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS items (
    pk          TEXT NOT NULL,               -- canonical JSON array of partition key values
    id          TEXT NOT NULL,
    ts          INTEGER NOT NULL,            -- _ts
    etag        TEXT NOT NULL,               -- _etag
    expires_at  INTEGER,                     -- NULL = never expires
    tenant_key  TEXT,
    thread_key  TEXT,
    order_rank  INTEGER NOT NULL,            -- Cosmos type order: undefined, null, bool, number, string, array, object
    order_value NOT NULL,                    -- the order value within its rank (0 when it has none)
    size_bytes  INTEGER NOT NULL,
    body        TEXT NOT NULL,               -- the whole item as JSON, system properties included
    PRIMARY KEY (pk, id)
);
