-- Every tenant of the container: the one cross-partition query on the browse path.
-- Budgeted and cached by the console. {{tenant}} is the schema's tenant property.
SELECT DISTINCT VALUE {{tenant}} FROM c
