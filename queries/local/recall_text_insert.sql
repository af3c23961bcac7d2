INSERT INTO temp.recall_text (item_id, tenant, thread, body) VALUES (:id, :tenant, :thread, :text)
