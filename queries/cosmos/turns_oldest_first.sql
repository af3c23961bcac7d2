-- One page of a thread's turns, oldest first: the full partition key in WHERE (and
-- passed as partition_key=), plus any thread field outside the key (a LangChain session's
-- id); only the properties the list shows ({{projection}} keeps
-- the schema's list fields plus _ts and _etag, never an embedding), ordered by the
-- schema's order field alone (containers have no composite index for a tie-break).
SELECT VALUE {{projection}} FROM c WHERE {{partition_filter}} ORDER BY {{order}} ASC
