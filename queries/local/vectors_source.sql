-- The next page of items large enough to be worth a row in vectors (by rowid, so each
-- page is its own finished statement and the build may write between pages).
SELECT rowid, body
FROM items
WHERE rowid > :after AND size_bytes >= :min_bytes
ORDER BY rowid
LIMIT :limit
