-- Fallback when DISTINCT is rejected: one row per item, de-duplicated by the console.
SELECT VALUE {{thread_identity}} FROM c WHERE {{tenant}} = @tenant
