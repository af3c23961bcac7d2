-- Created after a bulk load (faster than maintaining them row by row).
CREATE INDEX IF NOT EXISTS items_by_thread
    ON items (thread_key, tenant_key, order_rank, order_value, id);

-- Covering index: tenant and thread listings never touch the item bodies.
CREATE INDEX IF NOT EXISTS items_by_tenant
    ON items (tenant_key, thread_key, expires_at, ts);
