"""What the two telemetry views (throughput, hot tenants) share; not a view of its own."""
