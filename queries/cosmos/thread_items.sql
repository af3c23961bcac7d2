-- The next items of a thread an erase deletes: single-partition, at most @limit, only
-- id, ETag, ttl and the key values ({{item_ref}}). The erase asks again after each
-- batch (the deleted items are gone), so it never follows a continuation over rows
-- it is deleting; @skip holds the ids it met and could not delete (so a page of them
-- never hides the items behind it).
SELECT TOP @limit VALUE {{item_ref}} FROM c WHERE {{partition_filter}} AND NOT ARRAY_CONTAINS(@skip, c.id)
