-- Loose index scan of one physical partition (where DISTINCT is not available): the
-- smallest top-level key that is a number, one index seek. Cosmos orders numbers before
-- strings, so a range is walked numbers first, then strings.
SELECT TOP 1 VALUE {{top_key}} FROM c WHERE IS_NUMBER({{top_key}}) {{since_and}} ORDER BY {{top_key}} ASC
