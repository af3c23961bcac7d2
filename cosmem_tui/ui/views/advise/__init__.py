"""The container advisor view (``:advise``, ``A``)."""
