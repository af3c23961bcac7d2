"""The Azure Monitor telemetry source: platform metrics (getBatch) and Log Analytics KQL.

Importing this package loads no Azure SDK: ``settings`` (plain data, resolved from flags
and ``COSMEM_*`` variables) and ``kql`` (query texts and their parameters) are usable
anywhere. ``telemetry.open_monitor`` builds the source; it and the modules it uses
(``metrics``, ``logs``, ``arm``, ``clients``, ``wire``, ``failures``) import the SDKs.
"""
