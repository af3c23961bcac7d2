-- The most recently written items of ONE physical partition (sent with feed_range=),
-- whole: a small sample for schema detection, capped by count (@limit) and by the
-- console's RU cap. Ranges are read one after another until the sample is full.
SELECT TOP @limit * FROM c ORDER BY c._ts DESC
