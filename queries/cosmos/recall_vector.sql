-- Recall probe by vector: the memory system's own retrieval query, ranked by the vector
-- index ({{brute}} empty), or by brute force for the exact answer ({{brute}} ", true").
-- Projected: the id and the thread's key fields, never the embedding.
SELECT TOP @k c["id"] AS id, {{recall_identity}} AS thread, VectorDistance({{vector}}, @v{{brute}}) AS score
FROM c
WHERE {{where}}
ORDER BY VectorDistance({{vector}}, @v{{brute}})
