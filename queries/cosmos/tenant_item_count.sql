-- Visible items of one tenant (expired items are already invisible to queries).
-- Sent with the tenant as a prefix partition key on a hierarchical container.
SELECT VALUE COUNT(1) FROM c WHERE {{tenant}} = @tenant
