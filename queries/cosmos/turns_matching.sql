-- One page of a thread's turns whose text contains @text, ignoring case, oldest first:
-- the same partition filter, projection and order as turns_oldest_first.sql.
-- {{text_match}} is a flat OR of CONTAINS(…, @text, true) over the places the schema
-- reads text from (sources/text_search.py: arrays unrolled, guard values as @g0, @g1…)
-- and of ARRAY_LENGTH(…) > n for each unrolled array: a longer item is a candidate the
-- store checks whole, so no text past the unrolled elements goes unfound.
SELECT VALUE {{projection}} FROM c WHERE {{partition_filter}} AND ({{text_match}}) ORDER BY {{order}} ASC
