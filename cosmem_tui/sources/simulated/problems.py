"""Problems the simulator answers with, worded as Azure Monitor words them."""

from __future__ import annotations

from cosmem_tui.model.telemetry import ProblemKind, TelemetryProblem


def metrics_about(name: str) -> str:
    return f"metrics: {name}"


def logs_about(name: str) -> str:
    return f"logs: {name}"


def bad_metrics_request(name: str, detail: str) -> TelemetryProblem:
    """What a metrics:getBatch 400 says (``(BadRequest) …``)."""
    return TelemetryProblem(
        ProblemKind.QUERY_ERROR,
        f"(BadRequest) {detail}",
        "change the query: the metric, aggregation, grain or dimension is not available",
        about=metrics_about(name),
    )


def bad_logs_request(name: str, detail: str) -> TelemetryProblem:
    """What a Log Analytics 400 says (``(BadArgumentError) …``)."""
    return TelemetryProblem(
        ProblemKind.QUERY_ERROR,
        f"(BadArgumentError) The request had some invalid properties: {detail}",
        "change the query's window or row limit",
        about=logs_about(name),
    )


def simulator_failed(about: str, error: BaseException) -> TelemetryProblem:
    """A fault of the simulator itself (a bug, or the workspace could not be read)."""
    return TelemetryProblem(
        ProblemKind.UNREACHABLE,
        f"the simulated workload could not answer ({type(error).__name__}: {error})",
        "reopen the workspace; if it persists, report it with the ledger",
        about=about,
    )
