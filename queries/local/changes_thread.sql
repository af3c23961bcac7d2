-- One page of the change log of one thread: changes_by_thread in lsn order, after :after.
-- :latest = 1 is the latest-version feed: only an item's current version, never a
-- removal. :since drops older rows (the retention window, or a start time). A build's
-- create has no body of its own: it is the item's stored body (main.items, never the
-- session's view of it).
SELECT c.lsn, c.op, c.pk, c.id, c.crts, c.previous_lsn,
       coalesce(c.body, (SELECT i.body FROM main.items AS i WHERE i.pk = c.pk AND i.id = c.id))
FROM changes AS c INDEXED BY changes_by_thread
WHERE c.thread_key = :thread
  AND c.tenant_key IS :tenant
  AND c.lsn > :after
  AND +c.crts >= :since  -- a filter: the walk is by lsn (unary + keeps the time index out)
  AND (:latest = 0 OR (c.current = 1 AND c.op IN ('create', 'replace')))
ORDER BY c.lsn
LIMIT :limit
