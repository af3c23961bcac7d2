-- Where one item is within a tenant (by id): its thread's key fields only, so the
-- point read that follows can name its full partition key. Never the item itself.
SELECT TOP 1 {{recall_identity}} AS thread
FROM c
WHERE {{tenant}} = @tenant AND c["id"] = @id
