-- The @limit most recently written items of a tenant or thread that meet a lifecycle
-- condition (the long-term kinds, or a drift from the kind's lifetime), projected as in
-- ttl_rows.sql. Their count comes from ttl_count.sql.
SELECT TOP @limit VALUE {{lifecycle_projection}} FROM c WHERE {{where}} ORDER BY c._ts DESC
