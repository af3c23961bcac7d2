-- Every item of a tenant or thread that meets a lifecycle condition, with only what the
-- lifecycle lists need ({{lifecycle_projection}}: id, the key fields, the kind field, _ts,
-- ttl, and the turn list's fields for the row's order value and text, never an
-- embedding): the items expiring within one forecast horizon, whose order (_ts + ttl) no
-- ORDER BY can express; the console sorts them. The horizon is chosen from the counts
-- first, so what this reads is known before it is sent.
SELECT VALUE {{lifecycle_projection}} FROM c WHERE {{where}}
