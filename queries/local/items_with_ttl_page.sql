-- One batch of items that may carry a ttl property (a cheap text pre-filter; the caller
-- parses each body), after rowid :after. Items without one expire the same whether
-- container TTL is off or -1, so only these need their expiry recomputed.
SELECT rowid, ts, body
FROM items
WHERE rowid > :after
  AND instr(body, '"ttl"') > 0
ORDER BY rowid
LIMIT :limit
