-- The newest last write (_ts) of a scope's visible items: how long a thread has been
-- idle. {{where}} is the scope (a thread's full key, a tenant, or true). The first entry
-- of the _ts index read newest first: an index seek (MAX(c._ts) would load every item).
SELECT TOP 1 VALUE c._ts FROM c WHERE {{where}} ORDER BY c._ts DESC
