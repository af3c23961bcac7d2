-- Counts of one thread (a top-level key on schemas without tenants): one single-partition
-- aggregate. {{weight}} and {{expiring}} as in threads_of_tenant_grouped.sql.
SELECT SUM({{weight}}) AS items, MAX(c._ts) AS last, SUM(({{expiring}}) ? {{weight}} : 0) AS expiring FROM c WHERE {{partition_filter}}
