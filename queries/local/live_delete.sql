-- A delete (or TTL purge) by the demo's live workload, of a row it has just read.
DELETE FROM main.items WHERE rowid = :rowid
