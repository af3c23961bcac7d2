-- The newest visible items of one thread (the demo's live workload continues it from
-- them: the next turn index, the thread's retention, the item a replace rewrites).
SELECT body
FROM main.items
WHERE pk = :pk
  AND (expires_at IS NULL OR expires_at > :now)
ORDER BY order_rank DESC, order_value DESC, id DESC
LIMIT :limit
