-- Which of the (pk, id) pairs in :keys (a JSON array of [pk, id] pairs) are already stored:
-- an import reports those as duplicates instead of replacing the first copy.
SELECT json_extract(k.value, '$[0]') AS pk,
       json_extract(k.value, '$[1]') AS id
FROM json_each(:keys) AS k
WHERE EXISTS (
    SELECT 1 FROM items
    WHERE items.pk = json_extract(k.value, '$[0]')
      AND items.id = json_extract(k.value, '$[1]')
)
