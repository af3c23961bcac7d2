"""The Cosmos DB for NoSQL backend: the real account through the async azure-cosmos SDK.

Importing this package loads no Azure SDK: ``settings`` is plain data the CLI and the
session build from options and environment variables. The SDK is imported by
``store`` (and the modules it uses), which ``core.session`` loads only when an
endpoint is given, so the local workspace starts without it.
"""
