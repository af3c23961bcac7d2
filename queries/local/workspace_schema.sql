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

-- The change log (sources/local/change_log.py): one row per create, replace, delete or
-- TTL purge of an item, written in the transaction that changes the item. lsn orders
-- the log (AUTOINCREMENT: a number is never reused, even after the newest rows go) and
-- crts never decreases with it. tenant_key / thread_key are the item's, as items holds
-- them (the file's derived_for schema), so a scoped read walks an index. body is the
-- version for a create or replace; NULL on a build's create while it is still the item's
-- stored body (a build does not copy every item), copied here before the item changes.
CREATE TABLE IF NOT EXISTS changes (
    lsn          INTEGER PRIMARY KEY AUTOINCREMENT,
    op           TEXT NOT NULL CHECK (op IN ('create', 'replace', 'delete', 'expired')),
    pk           TEXT NOT NULL,              -- canonical JSON array of partition key values
    id           TEXT NOT NULL,
    tenant_key   TEXT,
    thread_key   TEXT,
    crts         INTEGER NOT NULL,           -- commit time, epoch seconds
    previous_lsn INTEGER,                    -- the item's change before this one, if logged
    current      INTEGER NOT NULL DEFAULT 1, -- 0 once a later change of the item is logged
    body         TEXT
);
