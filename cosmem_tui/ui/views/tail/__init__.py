"""The change-feed tail view (``:tail``, ``C``)."""
