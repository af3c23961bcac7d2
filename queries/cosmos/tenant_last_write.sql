-- The newest last-write time (_ts, epoch seconds) among one tenant's items.
SELECT VALUE MAX(c._ts) FROM c WHERE {{tenant}} = @tenant
