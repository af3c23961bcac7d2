-- The embedding path of the workspace's vectors table, when it has one (older builds do not).
SELECT value
FROM meta
WHERE key = 'vectors_path'
  AND EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vectors')
