"""The doctor view (``:doctor``, ``D``)."""
