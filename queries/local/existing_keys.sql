-- Which of the (pk, id) pairs in :keys (a JSON array of [pk, id] pairs) were stored before
-- row :before (by an earlier batch): an import reports those as duplicates, the first copy
-- kept.
SELECT json_extract(k.value, '$[0]') AS pk,
       json_extract(k.value, '$[1]') AS id
FROM json_each(:keys) AS k
WHERE EXISTS (
    SELECT 1 FROM items
    WHERE items.pk = json_extract(k.value, '$[0]')
      AND items.id = json_extract(k.value, '$[1]')
      AND items.rowid <= :before
)
