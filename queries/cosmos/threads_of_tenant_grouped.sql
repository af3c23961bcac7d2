-- The threads of one tenant with their counts, one row per thread, grouped by the
-- service: {{thread_select}} names the thread fields (t0, t1, …), {{weight}} is 1 per item
-- (or the number of messages of a session document), {{expiring}} is true for items whose
-- effective ttl is positive under this container's DefaultTimeToLive. Sent with the
-- tenant as a prefix partition key, paged per physical partition.
SELECT {{thread_select}}, SUM({{weight}}) AS items, MAX(c._ts) AS last, SUM(({{expiring}}) ? {{weight}} : 0) AS expiring FROM c WHERE {{tenant}} = @tenant GROUP BY {{thread_group}}
