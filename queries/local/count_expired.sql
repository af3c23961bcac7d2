-- Items already past their ttl (stored, but invisible to every query).
SELECT COUNT(*) FROM items WHERE expires_at IS NOT NULL AND expires_at <= :now
