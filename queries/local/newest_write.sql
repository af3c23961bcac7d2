-- The newest write in the workspace (_ts): the simulated workload's anchor for a
-- workspace that records no build or import time.
SELECT MAX(ts) FROM main.items
