-- How many threads one tenant has: a count of its distinct thread identities (the thread
-- field's values, read from its index, when one field names a thread; items without one
-- are no thread, as in the thread list). Sent with the tenant as a prefix partition key;
-- a thread never spans physical partitions, so the counts of the (at most few) ranges
-- the prefix covers add up.
SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE {{thread_distinct}} FROM c WHERE {{tenant}} = @tenant) AS t
