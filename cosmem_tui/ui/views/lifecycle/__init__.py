"""The lifecycle view (``:ttl``, ``L``)."""
