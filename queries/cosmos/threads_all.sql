-- Schemas without a tenant level: the top-level listing is every thread of the
-- container (cross-partition, budgeted), one small row per item.
SELECT VALUE {{thread_activity}} FROM c
