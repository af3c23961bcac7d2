-- The threads of one tenant, one row per item with only what the thread list needs:
-- the thread properties, _ts and ttl (never the messages or an embedding). The console
-- groups rows by thread. Sent with the tenant as a prefix partition key.
SELECT VALUE {{thread_activity}} FROM c WHERE {{tenant}} = @tenant
