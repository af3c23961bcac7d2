-- Fallback for services that reject DISTINCT (some emulators, the test peer): the
-- tenant of every item, paged and de-duplicated by the console under the RU budget.
SELECT VALUE {{tenant}} FROM c
