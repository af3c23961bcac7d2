-- Every top-level key (tenant, or thread on schemas without tenants) of ONE physical
-- partition: sent with feed_range= for that range and paged with the range's own
-- continuation. Never sent cross-partition: the SDK cannot resume a cross-partition
-- DISTINCT (it hands one partition's continuation to all, and the listing stops short).
-- {{since_where}} is empty, or `WHERE c._ts > @since` for a reload (keys written since).
SELECT DISTINCT VALUE {{top_key}} FROM c {{since_where}}
