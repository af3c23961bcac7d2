-- bm25() is smaller for a better match: the best first, ties by id.
SELECT item_id, tenant, thread, bm25(recall_text) AS score
FROM temp.recall_text
WHERE recall_text MATCH :match
ORDER BY score, item_id
