-- The newest last write (_ts) of a scope's visible items: how long a thread has been
-- idle. {{where}} is the scope (a thread's full key, a tenant, or true).
SELECT VALUE MAX(c._ts) FROM c WHERE {{where}}
