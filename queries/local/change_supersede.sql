-- Before an item changes: its newest logged change stops being current. A build's create
-- (body NULL: the item's stored body was that version) keeps a copy of the version
-- first, since the item is about to change. The lsn is the new change's previous_lsn.
UPDATE changes
SET current = 0,
    body = CASE
        WHEN op IN ('create', 'replace')
        THEN coalesce(body, (SELECT i.body FROM main.items AS i WHERE i.pk = :pk AND i.id = :id))
    END
WHERE pk = :pk AND id = :id AND current = 1
RETURNING lsn
