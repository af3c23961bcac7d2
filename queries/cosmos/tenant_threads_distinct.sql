-- The distinct threads of one tenant; {{thread_identity}} is an object of the
-- schema's thread properties, e.g. {"threadId": c["threadId"]}.
SELECT DISTINCT VALUE {{thread_identity}} FROM c WHERE {{tenant}} = @tenant
