"""Azure region names as the services spell them: "East US" in Cosmos, "eastus" in hosts.

The account document (``GET /`` on the account endpoint) lists its regions by display
name (``writableLocations[].name``: "East US"); Azure Monitor's regional metrics host
wants the programmatic name (``eastus.metrics.monitor.azure.com``). Plain functions, no SDK.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

_REGION = re.compile(r"^[a-z][a-z0-9]*$")


def normalise_region(name: str) -> str:
    """ "East US" → "eastus", "UK South" → "uksouth", "westus2" stays; raise on anything
    that cannot be a region (it ends up in a host name)."""
    region = "".join(name.split()).lower()
    if not _REGION.match(region):
        raise ValueError(f"{name!r} is not an Azure region name (e.g. eastus, West Europe)")
    return region


def write_region(locations: Sequence[Mapping[str, Any]]) -> str | None:
    """The first write region of an account document's ``writableLocations``, normalised."""
    for location in locations:
        name = location.get("name") if isinstance(location, Mapping) else None
        if isinstance(name, str) and name.strip():
            try:
                return normalise_region(name)
            except ValueError:
                continue
    return None
