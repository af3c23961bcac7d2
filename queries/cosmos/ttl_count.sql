-- How many visible items of a scope meet one lifecycle condition: a TTL class, expiry
-- within a forecast horizon, a kind, a drift (sources/cosmos/ttl_sql.py writes them from
-- the rules of model/ttl.py). {{where}} joins the scope (a thread's full key, a tenant,
-- or nothing for the container: then sent to each physical partition in turn) and the
-- condition. Expired items are already invisible to the service.
SELECT VALUE COUNT(1) FROM c WHERE {{where}}
