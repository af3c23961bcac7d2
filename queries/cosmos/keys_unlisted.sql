-- Does one physical partition hold items whose top-level key is neither a number nor a
-- string (null, a boolean, or missing)? The loose index scan does not list those, so the
-- console says so instead of showing a silently short list.
SELECT TOP 1 VALUE {"key": {{top_key}}} FROM c WHERE NOT (IS_STRING({{top_key}}) OR IS_NUMBER({{top_key}}))
