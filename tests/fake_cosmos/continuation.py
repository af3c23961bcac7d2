"""Continuation tokens: range-local ones and the gateway's composite fan-out token.

A **range-local** token (``+GW:<base64url JSON>``) is what a physical partition hands
back: the range that issued it, the query it belongs to (a fingerprint of text and
parameters) and the position to resume from. It is accepted only by that range (or by
a child of it after a split, as the service accepts a parent's token) for the same
query; anything else is answered 400, so a client that replays one partition's token
against another fails loudly instead of silently skipping rows. The ``:`` keeps it from
ever decoding as the SDK's own base64 feed-range envelope.

A **composite** token is what the gateway returns for a cross-partition query it fans
out itself (no ORDER BY / DISTINCT / aggregates): a JSON list
``[{"token": <range-local or null>, "range": {"min": …, "max": …}}]``, like the service's.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

PREFIX = "+GW:"


class TokenError(ValueError):
    """A malformed or misdirected continuation: the service answers 400."""


def fingerprint(text: str, params: dict[str, Any]) -> str:
    canonical = json.dumps([text, sorted(params.items())], sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:20]


def encode(payload: dict[str, Any]) -> str:
    raw = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8")
    return PREFIX + base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode(token: str) -> dict[str, Any]:
    if not token.startswith(PREFIX):
        raise TokenError("Invalid Continuation Token: the token was not issued by this service.")
    body = token[len(PREFIX) :]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        payload = json.loads(raw)
    except (ValueError, TypeError) as exc:
        raise TokenError("Invalid Continuation Token: malformed.") from exc
    if not isinstance(payload, dict) or payload.get("v") != 1:
        raise TokenError("Invalid Continuation Token: unknown version.")
    return payload


def check(payload: dict[str, Any], *, range_id: str, lo: str, hi: str, query: str) -> None:
    """Refuse a token issued by another range (unless it is this range's ancestor) or for
    another query."""
    if payload.get("q") != query:
        raise TokenError("Invalid Continuation Token: it was issued for a different query.")
    if payload.get("r") == range_id:
        return
    token_lo, token_hi = payload.get("lo", ""), payload.get("hi", "")
    covers = token_lo <= lo and (token_hi == "FF" or (hi != "FF" and hi <= token_hi))
    if not covers:
        raise TokenError(
            f"Invalid Continuation Token: it was issued by partition key range "
            f"{payload.get('r')!r}, not {range_id!r}."
        )


def encode_composite(entries: list[tuple[str | None, str, str]]) -> str:
    return json.dumps(
        [{"token": token, "range": {"min": lo, "max": hi}} for token, lo, hi in entries],
        separators=(",", ":"),
    )


def decode_composite(token: str) -> list[tuple[str | None, str, str]]:
    try:
        raw = json.loads(token)
    except json.JSONDecodeError as exc:
        raise TokenError("Invalid Continuation Token: malformed composite token.") from exc
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise TokenError("Invalid Continuation Token: malformed composite token.")
    out: list[tuple[str | None, str, str]] = []
    for entry in raw:
        try:
            rng = entry["range"]
            out.append((entry.get("token"), str(rng["min"]), str(rng["max"])))
        except (KeyError, TypeError) as exc:
            raise TokenError("Invalid Continuation Token: malformed composite token.") from exc
    return out
