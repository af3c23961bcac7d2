-- The shapes of the most recently written items of ONE physical partition (sent with
-- feed_range=), for the advisor: {{shape}} measures each item where it is (its JSON
-- length, the length of each candidate vector, its messages count) and returns those
-- numbers with id, _ts, ttl and the key values, never the item or an embedding. Capped by
-- count (@limit) and by the console's RU cap; ranges are read one after another.
SELECT TOP @limit VALUE {{shape}} FROM c ORDER BY c._ts DESC
