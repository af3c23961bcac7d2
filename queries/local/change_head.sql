-- The log's newest change: its lsn and commit time (no row when the log is empty). Read
-- by rowid (NOT INDEXED), never by scanning an index, however small the log once was.
SELECT lsn, crts FROM changes NOT INDEXED ORDER BY lsn DESC LIMIT 1
