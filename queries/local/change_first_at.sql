-- The first change committed at or after :at (crts never decreases with lsn).
SELECT lsn FROM changes WHERE crts >= :at ORDER BY crts, lsn LIMIT 1
