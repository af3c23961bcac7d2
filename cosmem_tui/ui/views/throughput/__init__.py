"""The throughput view (``:throttle``, ``T``)."""
