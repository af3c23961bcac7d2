"""Where Azure Monitor's view of one Cosmos DB account lives: resource, workspace, endpoints.

Plain data with no Azure import. ``resolve`` combines command-line flags with the
``COSMEM_*`` environment (a flag wins) and checks every value once, so a mistake is one
readable line before anything is sent:

* the account is named by its resource id (``COSMEM_RESOURCE_ID``), or by subscription,
  resource group and account name, composed into one;
* the Log Analytics workspace is optional: without it there are metrics but no logs;
* the cloud (public, China, US Gov: ``--cloud``) gives the ARM host, the metrics host
  and the Log Analytics host, and the token audience of each, as one set;
* the region (which regional metrics host to call) is found from the account unless
  given; endpoints and token audiences can be overridden for private links. An
  audience is never derived from an overridden endpoint: Entra ID issues tokens for the
  service's audience (the cloud's), not for a private-link host name.

Each value remembers where it came from (``origins``), for ``-v`` and for messages.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urlparse

from cosmem_tui.sources.cosmos.region import normalise_region
from cosmem_tui.sources.telemetry import Flag, TelemetryConfigError

NAMESPACE = "Microsoft.DocumentDB/databaseAccounts"
DEFAULT_TIMEOUT_S = 30.0  # every metrics or logs call ends within this, retries included
REGION_SLOT = "{region}"


@dataclass(frozen=True, slots=True)
class Cloud:
    """One Azure cloud's hosts and the token audience of each service there.

    The hosts and audiences are the ones the Azure SDK for Python's own monitor tests
    pair per cloud (``sdk/monitor/azure-monitor-query/tests/base_testcase.py``: logs
    ``api.loganalytics.io`` / ``api.loganalytics.azure.cn`` / ``api.loganalytics.us``,
    metrics audience ``metrics.monitor.azure.{com,cn,us}``), the ``MetricsClient`` README
    (``usgovvirginia.metrics.monitor.azure.us`` with that audience) and Learn's getBatch
    page for China (``<region>.metrics.monitor.azure.cn``). ``LogsQueryClient`` would
    take its audience from its endpoint when given none (its ``_patch.py``), so the
    console always passes the cloud's. Sign-in itself goes to ``authority`` (azure-identity
    reads ``AZURE_AUTHORITY_HOST``).
    """

    name: str  # "public", "china", "usgov"
    arm: str  # Azure Resource Manager, also its token audience
    metrics_host: str  # the regional metrics host, {region} in it
    metrics_audience: str
    logs: str  # the Log Analytics query endpoint, also its token audience
    authority: str  # the Entra ID host azure-identity signs in at

    @property
    def arm_scope(self) -> str:
        return self.arm + "/.default"


CLOUDS: dict[str, Cloud] = {
    cloud.name: cloud
    for cloud in (
        Cloud(
            "public",
            "https://management.azure.com",
            "https://{region}.metrics.monitor.azure.com",
            "https://metrics.monitor.azure.com",  # MetricsClient's own default
            "https://api.loganalytics.io",  # LogsQueryClient's own default
            "login.microsoftonline.com",
        ),
        Cloud(
            "china",
            "https://management.chinacloudapi.cn",
            "https://{region}.metrics.monitor.azure.cn",
            "https://metrics.monitor.azure.cn",
            "https://api.loganalytics.azure.cn",
            "login.chinacloudapi.cn",
        ),
        Cloud(
            "usgov",
            "https://management.usgovcloudapi.net",
            "https://{region}.metrics.monitor.azure.us",
            "https://metrics.monitor.azure.us",
            "https://api.loganalytics.us",
            "login.microsoftonline.us",
        ),
    )
}
PUBLIC = CLOUDS["public"]
# The names people type for them (az cloud list): AzureCloud, AzureChinaCloud, AzureUSGovernment.
_CLOUD_NAMES = {
    "public": "public",
    "azurecloud": "public",
    "china": "china",
    "azurechinacloud": "china",
    "usgov": "usgov",
    "azureusgovernment": "usgov",
}

_GUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_GROUP = re.compile(r"^[-\w.()]{1,90}$")  # letters (any script), digits, _ - . ( )
_ACCOUNT = re.compile(r"^[a-z0-9][a-z0-9-]{1,42}[a-z0-9]$")  # Cosmos account names: 3–44
_SHAPE = "/subscriptions/SUBSCRIPTION/resourceGroups/GROUP/providers/" + NAMESPACE + "/ACCOUNT"


class MonitorConfigError(TelemetryConfigError):
    """Options that cannot point Azure Monitor at an account (bad id, http endpoint…)."""


ENV = {
    "resource_id": "COSMEM_RESOURCE_ID",
    "workspace_id": "COSMEM_WORKSPACE_ID",
    "subscription": "COSMEM_SUBSCRIPTION",
    "resource_group": "COSMEM_RESOURCE_GROUP",
    "account": "COSMEM_ACCOUNT",
    "region": "COSMEM_REGION",
    "cloud": "COSMEM_CLOUD",
    "metrics_endpoint": "COSMEM_METRICS_ENDPOINT",
    "logs_endpoint": "COSMEM_LOGS_ENDPOINT",
    "metrics_audience": "COSMEM_METRICS_AUDIENCE",
    "logs_audience": "COSMEM_LOGS_AUDIENCE",
    "database": "COSMOS_DATABASE",  # the container the console reads is the one it filters
    "container": "COSMOS_CONTAINER",
}

FLAGS: tuple[Flag, ...] = (
    Flag(
        "--resource-id",
        "resource_id",
        ENV["resource_id"],
        "ID",
        f"the Cosmos DB account's Azure resource id, for Azure Monitor metrics and logs ({_SHAPE})",
    ),
    Flag(
        "--workspace-id",
        "workspace_id",
        ENV["workspace_id"],
        "GUID",
        "the Log Analytics workspace (its Workspace ID) that receives the account's "
        "diagnostic logs: per-key RU, 429s by key, storage by key",
    ),
    Flag(
        "--region",
        "region",
        ENV["region"],
        "REGION",
        "the account's Azure region (eastus), when it cannot be read from the account",
    ),
    Flag(
        "--cloud",
        "cloud",
        ENV["cloud"],
        "public|china|usgov",
        "the Azure cloud of the account: its Resource Manager, metrics and Log Analytics "
        "hosts and token audiences (default public; sign-in follows AZURE_AUTHORITY_HOST)",
    ),
    Flag(
        "--metrics-endpoint",
        "metrics_endpoint",
        ENV["metrics_endpoint"],
        "URL",
        "the Azure Monitor metrics host (sovereign clouds, private links); "
        "{region} in it is replaced by the account's region",
    ),
    Flag(
        "--logs-endpoint",
        "logs_endpoint",
        ENV["logs_endpoint"],
        "URL",
        "the Log Analytics query endpoint (default: the cloud's, https://api.loganalytics.io); "
        "its token audience stays the cloud's",
    ),
)


@dataclass(frozen=True, slots=True)
class ResourceId:
    """A Cosmos DB account's resource id, in its canonical spelling."""

    subscription: str
    resource_group: str
    account: str

    @property
    def text(self) -> str:
        return (
            f"/subscriptions/{self.subscription}/resourceGroups/{self.resource_group}"
            f"/providers/{NAMESPACE}/{self.account}"
        )

    def __str__(self) -> str:
        return self.text


def _part(value: str, what: str, origin: str) -> str:
    if not value or any(ch in value for ch in "/?#%") or not value.isprintable():
        raise MonitorConfigError(f"{origin}: {value!r} is not a valid {what}")
    return value


def _subscription(value: str, origin: str) -> str:
    if not _GUID.match(value):
        raise MonitorConfigError(
            f"{origin}: the subscription must be a GUID (az account show --query id), not {value!r}"
        )
    return value.lower()


def _group(value: str, origin: str) -> str:
    _part(value, "resource group name", origin)
    if not _GROUP.match(value) or value.endswith("."):
        raise MonitorConfigError(f"{origin}: {value!r} is not a valid resource group name")
    return value


def _account(value: str, origin: str) -> str:
    name = value.lower()  # AzureDiagnostics spells resource ids in capitals
    if not _ACCOUNT.match(name):
        raise MonitorConfigError(
            f"{origin}: {value!r} is not a Cosmos DB account name "
            "(3–44 lowercase letters, digits and hyphens)"
        )
    return name


def parse_resource_id(text: str, origin: str = "--resource-id") -> ResourceId:
    """The account named by ``text``; one readable error for anything else."""
    raw = text.strip().rstrip("/")
    parts = raw.lstrip("/").split("/")
    literal = [p.lower() for p in parts[0:6:2]]  # subscriptions, resourcegroups, providers
    if len(parts) < 7 or literal != ["subscriptions", "resourcegroups", "providers"]:
        raise MonitorConfigError(
            f"{origin}: {raw!r} is not an Azure resource id; expected {_SHAPE} "
            "(az cosmosdb show -g GROUP -n ACCOUNT --query id)"
        )
    kind = f"{parts[5]}/{parts[6]}"
    if kind.lower() != NAMESPACE.lower():
        raise MonitorConfigError(
            f"{origin}: the id names a {kind} resource, not a Cosmos DB account "
            f"({NAMESPACE}); expected {_SHAPE}"
        )
    if len(parts) != 8:
        inside = "/".join(parts[8:])
        raise MonitorConfigError(
            f"{origin}: the id names {inside!r} inside the account, not the account itself; "
            f"give {_SHAPE}"
            if len(parts) > 8
            else f"{origin}: the id has no account name; expected {_SHAPE}"
        )
    return ResourceId(
        subscription=_subscription(parts[1], origin),
        resource_group=_group(parts[3], origin),
        account=_account(parts[7], origin),
    )


def check_https(value: str, origin: str, *, template: bool = False) -> str:
    """An https URL with a host (``{region}`` allowed in the host when ``template``)."""
    text = value.strip().rstrip("/")
    probe = text.replace(REGION_SLOT, "region") if template else text
    parsed = urlparse(probe)
    if parsed.scheme.lower() != "https" or not parsed.hostname:
        raise MonitorConfigError(
            f"{origin}: {value!r} must be an https:// URL (Azure Monitor sends tokens "
            "only over TLS)"
        )
    if parsed.query or parsed.fragment or parsed.username or not probe.isprintable():
        raise MonitorConfigError(
            f"{origin}: {value!r} must be a plain https://HOST URL (no query, no user)"
        )
    return text


Check = Callable[[str, str], str]  # (value, where it came from) → the checked value
_PART_CHECKS: dict[str, Check] = {
    "subscription": _subscription,
    "resource_group": _group,
    "account": _account,
}


def _workspace(value: str, origin: str) -> str:
    if not _GUID.match(value):
        hint = (
            " (that looks like the workspace's resource id; give its Workspace ID, on the "
            "workspace's Overview page)"
            if "/" in value
            else ""
        )
        raise MonitorConfigError(
            f"{origin}: the workspace must be its Workspace ID, a GUID, not {value!r}{hint}"
        )
    return value.lower()


def _cloud(value: str, origin: str) -> str:
    name = _CLOUD_NAMES.get(value.strip().lower())
    if name is None:
        raise MonitorConfigError(
            f"{origin}: {value!r} is not a cloud the console knows: public, china or usgov"
        )
    return name


def _region(value: str, origin: str) -> str:
    try:
        return normalise_region(value)
    except ValueError as exc:
        raise MonitorConfigError(f"{origin}: {exc}") from None


@dataclass(frozen=True, slots=True)
class MonitorSettings:
    resource: ResourceId
    workspace_id: str | None = None
    region: str | None = None  # None: ARM's location of the account (else its write region)
    cloud: Cloud = PUBLIC  # hosts and audiences, unless overridden one by one below
    metrics_endpoint: str | None = None  # None: the cloud's https://<region>.metrics…
    logs_endpoint: str | None = None  # None: the cloud's (public: https://api.loganalytics.io)
    metrics_audience: str | None = None  # None: the cloud's (never the endpoint's host)
    logs_audience: str | None = None
    database: str | None = None  # answers filtered to this database …
    container: str | None = None  # … and container, when a query names none
    timeout_s: float = DEFAULT_TIMEOUT_S
    # (setting, where its value came from: "--resource-id", "COSMEM_RESOURCE_ID", …)
    origins: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise MonitorConfigError(
                f"the timeout must be a positive number of seconds, not {self.timeout_s:g}"
            )

    @property
    def resource_id(self) -> str:
        return self.resource.text

    @property
    def account(self) -> str:
        return self.resource.account

    def origin(self, setting: str) -> str | None:
        return dict(self.origins).get(setting)

    @property
    def needs_region(self) -> bool:
        """Whether the metrics host depends on the account's region. An endpoint given
        without ``{region}`` (a private link, a sovereign cloud's host) does not, so the
        region — and the ARM read that finds it — is never needed."""
        return self.metrics_endpoint is None or REGION_SLOT in self.metrics_endpoint

    def metrics_url(self, region: str | None) -> str:
        """The regional metrics endpoint for ``region`` (or the override). ``region`` may
        be None only when the host does not need it (``needs_region``)."""
        if region is None and self.needs_region:
            raise ValueError("the metrics host needs the account's region")
        host = self.metrics_endpoint or self.cloud.metrics_host
        return host.replace(REGION_SLOT, region or "")

    @property
    def metrics_token_audience(self) -> str:
        return self.metrics_audience or self.cloud.metrics_audience

    @property
    def logs_url(self) -> str:
        return self.logs_endpoint or self.cloud.logs

    @property
    def logs_token_audience(self) -> str:
        """Set on its own, else the cloud's: never the host of ``--logs-endpoint``."""
        return self.logs_audience or self.cloud.logs

    @property
    def arm_url(self) -> str:
        return self.cloud.arm

    def describe(self) -> list[str]:
        """One line per setting and where it came from (for ``-v``)."""
        lines = []
        for name, origin in self.origins:
            value = self.resource_id if name == "resource_id" else getattr(self, name, None)
            if isinstance(value, Cloud):
                value = value.name
            lines.append(f"{name} = {value} (from {origin})")
        return lines


def resolve(
    flags: Mapping[str, str | None], env: Mapping[str, str] | None = None
) -> MonitorSettings | None:
    """Settings from flags (keys as in ``ENV``, plus ``timeout``) over the environment.

    None when nothing names an account or a workspace: no Azure Monitor at all. Raises
    ``MonitorConfigError`` (one line) for a value that cannot work.
    """
    env = os.environ if env is None else env
    values: dict[str, str] = {}
    origins: dict[str, str] = {}
    for key, variable in ENV.items():
        flag = flags.get(key)
        if flag is not None and flag.strip():
            values[key], origins[key] = flag.strip(), "--" + key.replace("_", "-")
        elif env.get(variable, "").strip():
            values[key], origins[key] = env[variable].strip(), variable
    parts = ("subscription", "resource_group", "account")
    monitor_keys = set(ENV) - {"database", "container"}
    if not monitor_keys & values.keys():
        return None
    if "resource_id" in values:
        resource = parse_resource_id(values["resource_id"], origins["resource_id"])
        for part in (p for p in parts if p in values):
            given = _PART_CHECKS[part](values[part], origins[part])
            if given.lower() != getattr(resource, part).lower():
                raise MonitorConfigError(
                    f"{origins[part]} ({values[part]!r}) differs from the {part.replace('_', ' ')} "
                    f"in {origins['resource_id']}; give one of them"
                )
        resource_origin = origins["resource_id"]
    elif all(p in values for p in parts):
        resource = ResourceId(
            subscription=_subscription(values["subscription"], origins["subscription"]),
            resource_group=_group(values["resource_group"], origins["resource_group"]),
            account=_account(values["account"], origins["account"]),
        )
        resource_origin = " + ".join(origins[p] for p in parts)
    else:
        missing = [ENV[p] for p in parts if p not in values]
        named = [origins[k] for k in values if k in monitor_keys]
        raise MonitorConfigError(
            f"{', '.join(named)} given but no Cosmos DB account for Azure Monitor: set "
            f"--resource-id / {ENV['resource_id']}"
            + (f" (or also {', '.join(missing)})" if len(missing) < len(parts) else "")
        )
    timeout = flags.get("timeout")
    try:
        timeout_s = float(timeout) if timeout else DEFAULT_TIMEOUT_S
    except ValueError:
        raise MonitorConfigError(
            f"--timeout must be a number of seconds, not {timeout!r}"
        ) from None

    def optional(key: str, check: Check) -> str | None:
        return check(values[key], origins[key]) if key in values else None

    settings = MonitorSettings(
        resource=resource,
        workspace_id=optional("workspace_id", _workspace),
        region=optional("region", _region),
        cloud=CLOUDS[optional("cloud", _cloud) or PUBLIC.name],
        metrics_endpoint=optional(
            "metrics_endpoint", lambda v, o: check_https(v, o, template=True)
        ),
        logs_endpoint=optional("logs_endpoint", check_https),
        metrics_audience=optional("metrics_audience", check_https),
        logs_audience=optional("logs_audience", check_https),
        database=values.get("database"),
        container=values.get("container"),
        timeout_s=timeout_s,
        origins=(
            ("resource_id", resource_origin),
            *((k, origins[k]) for k in ENV if k in origins and k not in (*parts, "resource_id")),
        ),
    )
    return settings
