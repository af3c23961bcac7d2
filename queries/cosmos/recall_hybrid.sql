-- Recall probe, hybrid: the service's rank fusion (RRF) of the vector and full-text
-- ranks; the vector distance is projected, the fused score cannot be.
SELECT TOP @k c["id"] AS id, {{recall_identity}} AS thread, VectorDistance({{vector}}, @v) AS score
FROM c
WHERE {{where}}
ORDER BY RANK RRF(VectorDistance({{vector}}, @v), FullTextScore({{text}}, {{terms}}))
