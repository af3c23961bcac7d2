-- The full-text index of one recall probe: the scope's texts in this connection's temp
-- database (the workspace file is read-only), ranked by FTS5's bm25() and dropped after.
DROP TABLE IF EXISTS temp.recall_text;
CREATE VIRTUAL TABLE temp.recall_text USING fts5(item_id UNINDEXED, tenant UNINDEXED, thread UNINDEXED, body);
