-- The most recently written items, whole, from any partition: a small sample for
-- schema detection. Cross-partition, capped by count (@limit) and by the console's RU cap.
SELECT TOP @limit * FROM c ORDER BY c._ts DESC
