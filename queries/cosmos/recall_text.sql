-- Recall probe by key terms: full-text BM25 rank (FullTextScore cannot be projected).
SELECT TOP @k c["id"] AS id, {{recall_identity}} AS thread
FROM c
WHERE {{where}}
ORDER BY RANK FullTextScore({{text}}, {{terms}})
