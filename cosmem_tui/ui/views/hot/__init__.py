"""The hot tenants view (``:hot``, ``H``)."""
