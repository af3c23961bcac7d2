-- Embeddings kept apart from their items (sources/local/vector_table.py), so a recall
-- probe reads numbers instead of parsing a long JSON array per candidate. Written once,
-- after a build's load, for the schema's retrieval embedding path (meta vectors_path);
-- an item without a row here is read from its body, as in older workspaces.
CREATE TABLE vectors (
    item_rowid INTEGER PRIMARY KEY,  -- rowid of the item in items
    dims       INTEGER NOT NULL,     -- how many numbers
    norm       REAL NOT NULL,        -- math.hypot of the numbers, as the probe computes it
    vector     BLOB NOT NULL,        -- the numbers as float64, little-endian
    slim       TEXT NOT NULL         -- the body without the embedding: what filters and text read
);

-- A row describes its item's body as it was built: any later change of the body, or the
-- item's removal, drops it (the probe then reads the body), so no write can leave a stale
-- vector, whichever version of cosmem makes it. INSERT OR REPLACE removes the item it
-- replaces without firing the delete trigger: the insert drops that item's row first.
CREATE TRIGGER vectors_drop_on_delete AFTER DELETE ON items
BEGIN
    DELETE FROM vectors WHERE item_rowid = old.rowid;
END;

CREATE TRIGGER vectors_drop_on_body AFTER UPDATE OF body ON items
BEGIN
    DELETE FROM vectors WHERE item_rowid = old.rowid;
END;

CREATE TRIGGER vectors_drop_on_replace BEFORE INSERT ON items
BEGIN
    DELETE FROM vectors
    WHERE item_rowid IN (SELECT rowid FROM items WHERE pk = new.pk AND id = new.id);
END;
