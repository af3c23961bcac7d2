-- Created after a bulk load (faster than maintaining them row by row).
CREATE INDEX IF NOT EXISTS items_by_thread
    ON items (thread_key, tenant_key, order_rank, order_value, id);

-- Covering index: tenant and thread listings never touch the item bodies.
CREATE INDEX IF NOT EXISTS items_by_tenant
    ON items (tenant_key, thread_key, expires_at, ts);

-- The change log's scoped reads walk these in lsn order; the item index finds an item's
-- newest change (and its history); the time index finds where a start time begins and
-- which rows the retention window lets go.
CREATE INDEX IF NOT EXISTS changes_by_tenant ON changes (tenant_key, lsn);
CREATE INDEX IF NOT EXISTS changes_by_thread ON changes (thread_key, tenant_key, lsn);
CREATE INDEX IF NOT EXISTS changes_by_item ON changes (pk, id, lsn);
CREATE INDEX IF NOT EXISTS changes_by_time ON changes (crts);
-- Only the rows the retention window may remove (change_prune.sql): small, whatever the
-- size of the log's current versions.
CREATE INDEX IF NOT EXISTS changes_prunable ON changes (crts)
    WHERE current = 0 OR op IN ('delete', 'expired');
