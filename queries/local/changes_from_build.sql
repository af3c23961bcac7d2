-- A new workspace's change log: every item built into it, as a create at its _ts, oldest
-- first, so lsn and crts rise together. The body stays in items (NULL here) until the
-- item changes; change_log.py copies it into this row first.
INSERT INTO changes (op, pk, id, tenant_key, thread_key, crts, previous_lsn, current, body)
SELECT 'create', pk, id, tenant_key, thread_key, ts, NULL, 1, NULL
FROM items
ORDER BY ts, rowid
