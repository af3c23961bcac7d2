-- Loose index scan: the next top-level string key after @after in one physical partition.
SELECT TOP 1 VALUE {{top_key}} FROM c WHERE IS_STRING({{top_key}}) AND {{top_key}} > @after {{since_and}} ORDER BY {{top_key}} ASC
