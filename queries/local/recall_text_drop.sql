DROP TABLE IF EXISTS temp.recall_text;
