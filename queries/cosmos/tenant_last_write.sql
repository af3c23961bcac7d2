-- The newest last-write time (_ts, epoch seconds) among one tenant's items: the first
-- entry of the _ts index read newest first (an index seek, whatever the tenant's size;
-- MAX(c._ts) would load every item of the tenant).
SELECT TOP 1 VALUE c._ts FROM c WHERE {{tenant}} = @tenant ORDER BY c._ts DESC
