-- One item's embedding, apart (vectors_schema.sql).
INSERT INTO vectors (item_rowid, dims, norm, vector, slim) VALUES (?, ?, ?, ?, ?)
