"""Log Analytics and metrics faults in the telemetry views, through the real Azure Monitor
clients (the fake Azure behind their transport): each failure is explained in the tile or
column it feeds, with the fix, while the tiles fed by the other service keep drawing."""

from __future__ import annotations

import threading

import pytest

from cosmem_tui.model import FrozenClock
from cosmem_tui.model.telemetry import SERVER_LATENCY_GATEWAY
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.views.hot.screen import HotScreen
from cosmem_tui.ui.views.throughput.screen import ThroughputScreen
from cosmem_tui.ui.widgets.row_list import RowList
from tests.sources.monitor.azure_fake import (
    AzureFake,
    Reply,
    Responder,
    Sent,
    error_body,
)
from tests.sources.monitor.test_logs import Workspace, with_partial_usage
from tests.test_cli_telemetry import NOW, metrics_answer
from tests.ui.conftest import cells, settle
from tests.ui.test_telemetry_views import status, text_of
from tests.ui.test_views_over_azure_monitor import over_azure


def whole_call(status: int, body, headers: dict[str, str] | None = None):
    def reply(_sent: Sent) -> Reply:
        return Reply(status, body, headers or {})

    return reply


HUNG = threading.Event()  # set by a test once it has seen the timeout: the hang ends


def slow(_sent: Sent) -> Reply:
    # Past the 2 s the session gives a call (this blocks a thread of the transport, not
    # the loop); long enough on a busy machine, and released as soon as the test is done.
    HUNG.wait(20.0)
    return Reply(500, error_body("Late", "too late"))


LOGS_FAULTS = {
    "400": (
        whole_call(400, error_body("BadArgumentError", "The request had some invalid properties")),
        ["400 bad request: The request had some invalid properties", "diagnostic setting sends"],
    ),
    "403": (
        whole_call(403, error_body("InsufficientAccessError", "insufficient access")),
        ["403 forbidden: Log Analytics refused the call", "Log Analytics Reader on the workspace"],
    ),
    "429": (
        whole_call(429, error_body("TooManyRequests", "Too many requests"), {"Retry-After": "30"}),
        ["Log Analytics throttled the console", "not asked again for 30 s"],
    ),
    "503": (
        whole_call(503, error_body("ServiceUnavailable", "Service is unavailable")),
        ["503 from Log Analytics: Service is unavailable", "asks again on the next refresh"],
    ),
    "timeout": (slow, ["Log Analytics did not answer within 2 s", "asks again"]),
    "partial": (with_partial_usage().responder(), ["partial"]),
}


class Switch:
    """A route's answer that the test changes: the fault, then the cure."""

    def __init__(self, responder) -> None:
        self.responder = responder

    def __call__(self, sent: Sent) -> Reply:
        return self.responder(sent)


def faulty_app(demo_path, fault: str, *, metrics: Responder, logs: Responder) -> CosmemApp:
    """The app over the fake Azure answering with ``metrics`` and ``logs``; a timeout fault
    gets a 2 s call limit, so the hang is met quickly."""
    fake = AzureFake()
    fake.answer("metrics", metrics)
    fake.answer("logs", logs)
    changes = {"timeout_s": 2.0} if fault == "timeout" else {}
    HUNG.clear()
    return over_azure(demo_path, FrozenClock(NOW), fake, **changes)


def keys_message(app: CosmemApp) -> str:
    message = app.screen.query_one("#keys", RowList).message
    return message[0] if message else ""


def answered(fake: AzureFake, route: str) -> int:
    return len(fake.requests_to(route))


@pytest.mark.parametrize("fault", sorted(LOGS_FAULTS))
async def test_a_log_analytics_fault_is_explained_where_logs_are_shown(demo_path, fault):
    responder, says = LOGS_FAULTS[fault]
    logs = Switch(responder)
    app = faulty_app(demo_path, fault, metrics=metrics_answer, logs=logs)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        assert isinstance(app.screen, HotScreen) and app.is_running
        problems = text_of(app, "#problems")
        if fault == "partial":  # the rows that came stay, marked
            assert [r[0] for r in cells(app, "keys")] == ["contoso"]
            assert "returned part of the answer" in problems
            assert "a shorter window may answer in full" in problems
        else:  # explained in the table itself, with the fix
            shown_in_table = keys_message(app)
            for words in says:
                assert words in shown_in_table
            assert "Traceback" not in shown_in_table and "—" in shown_in_table  # " — fix"
            assert cells(app, "keys") == []
        # The throughput view reads metrics alone: every tile draws.
        await pilot.press("T")
        await settle(pilot)
        assert isinstance(app.screen, ThroughputScreen)
        assert "provisioned 4,000 RU/s" in str(app.screen.query_one("#ru").border_subtitle)
        assert "now 4.5 · avg 4.5 · peak 4.5 ms" in text_of(app, "#latency")
        assert "7" in text_of(app, "#throttles")
        if fault == "429":
            return  # held off for the 30 s the service asked for (tested on the source)
        logs.responder = Workspace().responder()  # the fault clears
        HUNG.set()
        await pilot.press("H")
        await settle(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert [r[0] for r in cells(app, "keys")] == ["contoso", "42"]
        assert "⚠ logs" not in text_of(app, "#problems")


def latency_fails(fault: Responder) -> Responder:
    """Every metrics question answers but server-side latency, which meets ``fault``."""

    def reply(sent: Sent) -> Reply:
        if SERVER_LATENCY_GATEWAY in sent.params["metricnames"]:
            return fault(sent)
        return metrics_answer(sent)

    return reply


METRICS_FAULTS = {
    "429": (
        whole_call(429, error_body("TooManyRequests", "Too many requests"), {"Retry-After": "1"}),
        ["429: Azure Monitor metrics is throttling the console", "asks again after 1 s"],
    ),
    "400": (
        whole_call(400, error_body("BadRequest", "Metric filter is invalid")),
        ["400 bad request: Metric filter is invalid", "check --resource-id and --region"],
    ),
    "503": (
        whole_call(503, error_body("ServiceUnavailable", "Service is unavailable")),
        ["503 from Azure Monitor metrics", "asks again on the next refresh"],
    ),
    "timeout": (slow, ["Azure Monitor metrics did not answer within 2 s", "asks again"]),
}


@pytest.mark.parametrize("fault", sorted(METRICS_FAULTS))
async def test_a_metrics_fault_is_explained_in_its_tile_while_the_others_draw(demo_path, fault):
    responder, says = METRICS_FAULTS[fault]
    metrics = Switch(latency_fails(responder))
    app = faulty_app(demo_path, fault, metrics=metrics, logs=Workspace().responder())
    async with app.run_test(size=(200, 45)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        assert isinstance(app.screen, ThroughputScreen) and app.is_running
        latency = " ".join(text_of(app, "#latency").split())  # the tile wraps
        assert latency.startswith(f"⚠ {says[0]}")  # what happened, in the tile it concerns
        # All of it, the fix too, where the tile points when it cannot hold it.
        line = status(app)
        assert line.startswith(f"⚠ metrics: latency: {says[0]}")
        for words in says:
            assert words in line
        assert "window 15m" in line
        assert "provisioned 4,000 RU/s" in str(app.screen.query_one("#ru").border_subtitle)
        assert "7" in text_of(app, "#throttles") and "1,500" in text_of(app, "#statuses")
        await pilot.press("H")  # the hot table reads logs: it is whole
        await settle(pilot)
        assert [r[0] for r in cells(app, "keys")] == ["contoso", "42"]
        if fault == "429":
            return  # held off as the service asked, on the session's frozen clock
        metrics.responder = metrics_answer  # the fault clears
        HUNG.set()
        await pilot.press("T")
        await settle(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert "now 4.5 · avg 4.5 · peak 4.5 ms" in text_of(app, "#latency")
        assert not status(app).startswith("⚠")
