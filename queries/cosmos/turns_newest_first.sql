-- One page of a thread's turns, newest first (see turns_oldest_first.sql).
SELECT VALUE {{projection}} FROM c WHERE {{partition_filter}} ORDER BY {{order}} DESC
