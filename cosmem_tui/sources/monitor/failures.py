"""What went wrong with an Azure Monitor call, as a problem a person can act on.

Every SDK or network failure becomes a ``MonitorFailure`` (kind, one-line message, the
fix, and when to come back); the source turns it into a ``TelemetryProblem`` for each
question the call was answering. The roles named are the ones each API checks: the
metrics batch API wants Monitoring Reader *on the subscription*, Log Analytics wants
Log Analytics Reader on the workspace.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

from azure.core.exceptions import (
    ClientAuthenticationError,
    HttpResponseError,
    ServiceRequestError,
    ServiceResponseError,
)

from cosmem_tui.model import Scope
from cosmem_tui.model.telemetry import ProblemKind, TelemetryProblem
from cosmem_tui.sources.monitor.settings import MonitorSettings
from cosmem_tui.sources.monitor.wire import retry_after_s

_LIMIT = 300  # characters of a service message kept in a problem


class Service(StrEnum):
    """The three Azure endpoints the source calls; each is held off on its own."""

    METRICS = "metrics"
    LOGS = "logs"
    ARM = "arm"

    @property
    def label(self) -> str:
        return {
            Service.METRICS: "Azure Monitor metrics",
            Service.LOGS: "Log Analytics",
            Service.ARM: "Azure Resource Manager",
        }[self]

    @property
    def scope(self) -> Scope:
        return {
            Service.METRICS: Scope.METRICS,
            Service.LOGS: Scope.LOGS,
            Service.ARM: Scope.METADATA,
        }[self]


class MonitorFailure(Exception):
    """A call that did not answer; ``problem(about)`` says so for one question."""

    def __init__(
        self,
        kind: ProblemKind,
        message: str,
        fix: str = "",
        *,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.fix = fix
        self.retry_after_s = retry_after_s

    def problem(self, about: str) -> TelemetryProblem:
        return TelemetryProblem(self.kind, self.message, self.fix, about, self.retry_after_s)


# An access token a service may quote back (a JWT, or after "Bearer"): masked before
# the message is cut short, so no part of one is shown either.
_TOKEN = re.compile(r"(?i)\beyJ[\w-]{6,}\.[\w-]{6,}\.[\w-]*|(?<=bearer )[\w.~+/=-]{8,}")


def one_line(text: object) -> str:
    """The first line of ``text`` without a "(Code) " prefix, kept short, with control
    characters shown as escapes (a service may echo a hostile tenant name back) and any
    access token masked."""
    lines = [line.strip() for line in _TOKEN.sub("***", str(text)).splitlines() if line.strip()]
    line = lines[0] if lines else ""
    if line.startswith("(") and ") " in line:
        line = line.split(") ", 1)[1]
    line = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in line)
    return line if len(line) <= _LIMIT else line[: _LIMIT - 1] + "…"


def _innermost(error: Any) -> str | None:
    """The deepest ``innererror.message`` of an error body (Log Analytics nests them)."""
    message = None
    while isinstance(error, dict):
        if isinstance(error.get("message"), str) and error["message"].strip():
            message = error["message"]
        error = error.get("innererror")
    return message


def service_message(exc: HttpResponseError) -> str:
    """What the service said, as precisely as it said it."""
    model_message = getattr(getattr(exc, "model", None), "message", None)
    if isinstance(model_message, str) and model_message.strip():
        return one_line(model_message)
    response: Any = exc.response
    if response is not None:
        try:
            body = response.json()
        except Exception:  # not JSON (a gateway's HTML page): fall back to the SDK's text
            body = None
        if isinstance(body, dict):
            found = _innermost(body.get("error", body))
            if found:
                return one_line(found)
    return one_line(exc.message or exc.reason or "")


def _denied(service: Service, status: int, text: str, settings: MonitorSettings) -> MonitorFailure:
    kind = ProblemKind.UNAUTHORIZED if status == 401 else ProblemKind.FORBIDDEN
    said = f" ({text})" if text else ""
    message = f"{status} {'unauthorized' if status == 401 else 'forbidden'}: "
    message += f"{service.label} refused the call{said}"
    if service is Service.METRICS:
        fix = (
            "grant your identity Monitoring Reader on the subscription "
            f"{settings.resource.subscription} — a resource-level role is not enough"
        )
        if status == 403:
            fix = (
                "register the Microsoft.Insights resource provider on the subscription "
                "(az provider register --namespace Microsoft.Insights), or " + fix
            )
    elif service is Service.LOGS:
        fix = f"grant your identity Log Analytics Reader on the workspace {settings.workspace_id}"
        if status == 403:
            fix += " (and check that --workspace-id names the workspace the logs go to)"
    else:
        fix = (
            f"grant your identity Reader on the account {settings.account} (Monitoring "
            "Reader covers it): the console reads its location, regions and throughput "
            "settings there"
        )
    return MonitorFailure(kind, message, fix)


# What a 400 usually means for each service, so the problem carries a next step.
BAD_REQUEST_FIX = {
    Service.METRICS: "check --resource-id and --region: the metrics API rejected the question",
    Service.LOGS: (
        "check that the account's diagnostic setting sends its logs to this workspace "
        "(PartitionKeyRUConsumption; DataPlaneRequests5M or DataPlaneRequests) and "
        "--workspace-id names it"
    ),
    Service.ARM: "check --resource-id (az cosmosdb show -g GROUP -n ACCOUNT --query id)",
}


def _not_found(service: Service, text: str, settings: MonitorSettings) -> MonitorFailure:
    if service is Service.ARM:
        return MonitorFailure(
            ProblemKind.NOT_COSMOS,
            f"no Azure resource at {settings.resource_id}",
            "check --resource-id (az cosmosdb show -g GROUP -n ACCOUNT --query id)",
        )
    if service is Service.LOGS:
        return MonitorFailure(
            ProblemKind.QUERY_ERROR,
            f"404 from Log Analytics: {text or 'workspace not found'}",
            f"check --workspace-id / COSMEM_WORKSPACE_ID ({settings.workspace_id})",
        )
    return MonitorFailure(
        ProblemKind.QUERY_ERROR,
        f"404 from Azure Monitor metrics: {text or 'resource not found'}",
        "check --resource-id and --region",
    )


def translate(
    exc: BaseException, service: Service, settings: MonitorSettings, *, now: float
) -> MonitorFailure | None:
    """The failure for ``exc``, or None when it is a bug that deserves its traceback."""
    if isinstance(exc, MonitorFailure):
        return exc
    response: Any = getattr(exc, "response", None)
    if isinstance(exc, HttpResponseError) and response is not None:
        status = int(exc.status_code or response.status_code or 0)
        text = service_message(exc)
        if status in (401, 403):
            return _denied(service, status, text, settings)
        if status == 404:
            return _not_found(service, text, settings)
        if status in (429, 529):
            wait = retry_after_s(response.headers, now)
            return MonitorFailure(
                ProblemKind.THROTTLED,
                f"{status}: {service.label} is throttling the console"
                + (f" ({text})" if text else ""),
                "the console holds off this service and asks again after "
                + (f"{wait:,.0f} s" if wait is not None else "a while"),
                retry_after_s=wait,
            )
        if status == 400:
            return MonitorFailure(
                ProblemKind.QUERY_ERROR, f"400 bad request: {text}", BAD_REQUEST_FIX[service]
            )
        return MonitorFailure(
            ProblemKind.UNREACHABLE,
            f"{status} from {service.label}: {text}",
            "the service could not answer; the console asks again on the next refresh",
        )
    if isinstance(exc, ClientAuthenticationError):
        return MonitorFailure(
            ProblemKind.UNAUTHORIZED,
            f"sign-in for {service.label} failed: {one_line(exc.message)}",
            "sign in again (az login, or --auth device-code on a machine without a browser)",
        )
    if isinstance(exc, ServiceRequestError | ServiceResponseError | TimeoutError):
        return MonitorFailure(
            ProblemKind.UNREACHABLE,
            f"cannot reach {service.label}: {one_line(exc) or type(exc).__name__}",
            "check the network or proxy (HTTPS_PROXY), the CA bundle (SSL_CERT_FILE, "
            "REQUESTS_CA_BUNDLE), and --metrics-endpoint / --logs-endpoint for private links",
        )
    return None
