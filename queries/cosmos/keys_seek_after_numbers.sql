-- Loose index scan: the next top-level number key after @after in one physical partition.
SELECT TOP 1 VALUE {{top_key}} FROM c WHERE IS_NUMBER({{top_key}}) AND {{top_key}} > @after {{since_and}} ORDER BY {{top_key}} ASC
