-- One change of one item, in the transaction that changes the item (change_log.py).
INSERT INTO changes (op, pk, id, tenant_key, thread_key, crts, previous_lsn, current, body)
VALUES (:op, :pk, :id, :tenant_key, :thread_key, :crts, :previous_lsn, 1, :body)
