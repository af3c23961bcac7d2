"""The secrets canary: account key, connection string and token values that must never
be shown, logged or written anywhere.

Use the ``secret_canary`` fixture (it puts the key in ``COSMOS_KEY``) and call
``assert_no_canary`` on every output a test sees: screen text, an SVG screenshot,
stdout, stderr, a ``--ledger`` file, an export, ``config show`` or ``--debug`` output.
Import both into a test module: ``from tests.canary import assert_no_canary,
secret_canary  # noqa: F401``.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

# Shaped like the real thing (an account key is 64 bytes in base64), marked so a leak
# is unmistakable and easy to find.
KEY = base64.b64encode(b"CANARY-account-key-never-shown-" * 2 + b"!!").decode()
TOKEN = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJDQU5BUlkiOiJhYWQtdG9rZW4ifQ.Q0FOQVJZLXNpZw"


@dataclass(frozen=True)
class Canary:
    key: str = KEY
    token: str = TOKEN

    def connection_string(self, endpoint: str) -> str:
        return f"AccountEndpoint={endpoint};AccountKey={self.key};"


# A whole value, a part of one a message might keep after cutting it short, and the
# marker inside the key (in case something decodes it).
FRAGMENTS = (KEY, KEY[:24], KEY[-24:], "CANARY-account-key", TOKEN, TOKEN.split(".")[1])


def assert_no_canary(output: str | bytes, where: object = "") -> None:
    """Fail if ``output`` holds any canary secret or a recognisable part of one."""
    text = output.decode("utf-8", "replace") if isinstance(output, bytes) else output
    found = [fragment for fragment in FRAGMENTS if fragment in text]
    assert found == [], f"a secret leaked into {where or 'the output'}: {found}"


@pytest.fixture
def secret_canary(monkeypatch: pytest.MonkeyPatch) -> Iterator[Canary]:
    """The canary account key in COSMOS_KEY (a test may set COSMOS_CONNECTION_STRING too)."""
    canary = Canary()
    monkeypatch.setenv("COSMOS_KEY", canary.key)
    yield canary
