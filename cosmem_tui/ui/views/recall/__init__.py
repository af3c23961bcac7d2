"""The recall view (``:recall``): what the agent's memory query recalls, and why not an item."""
