-- How many items one thread holds now: one single-partition count (the full key in
-- WHERE and as partition_key=), what an erase asks the user to confirm.
SELECT VALUE COUNT(1) FROM c WHERE {{partition_filter}}
