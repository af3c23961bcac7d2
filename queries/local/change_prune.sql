-- The retention window: history older than :cutoff goes (replaced versions, deletes, TTL
-- purges). An item's current version stays whatever its age, as the latest-version feed
-- keeps it; changes_prunable holds exactly the rows this may remove.
DELETE FROM changes INDEXED BY changes_prunable
WHERE (current = 0 OR op IN ('delete', 'expired'))
  AND crts < :cutoff
