SELECT 1 FROM items WHERE thread_key = :thread AND tenant_key IS :tenant LIMIT 1
