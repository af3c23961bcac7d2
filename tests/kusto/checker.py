"""Microsoft's KQL parser as a test tool: does Log Analytics accept this text?

``tests/kusto/check.js`` runs Kusto.Language (npm ``@kusto/language-service-next``,
pinned in ``package.json``; installed by ``npm ci`` the first time a test needs it) with
the documented tables of ``tables.json`` as its database. Loading it takes a few
seconds, so one node process serves the whole test session: ``shared_checker()`` starts
it on first use (the ``kusto`` fixture, and the fake Log Analytics workspace that checks
every query it is sent) and it ends with the interpreter. Texts are answered over JSON
lines and remembered: the console sends the same few texts over and over.

Without node/npm a test that needs the parser fails, never skips.
"""

from __future__ import annotations

import atexit
import json
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.npm import npm_ci, require_tool

KUSTO_DIR = Path(__file__).resolve().parent
SCRIPT = KUSTO_DIR / "check.js"
PACKAGE = KUSTO_DIR / "node_modules" / "@kusto" / "language-service-next" / "package.json"
PURPOSE = "the KQL parser tests (@kusto/language-service-next)"

# The workspace shapes check.js declares (see DATABASES there).
WORKSPACE = "workspace"  # every documented table
RESOURCE_SPECIFIC = "resource-specific"  # the CDB* tables only
AGGREGATED = "aggregated"  # only CDBDataPlaneRequests5M / 15M
AZURE_DIAGNOSTICS = "azurediagnostics"  # AzureDiagnostics only, with Cosmos DB's columns
AZURE_DIAGNOSTICS_BARE = "azurediagnostics-bare"  # AzureDiagnostics, documented minimum only
AZURE_DIAGNOSTICS_FALLBACKS = "azurediagnostics-fallbacks"  # …plus the texts' other spellings
TABLES_FILE = KUSTO_DIR / "tables.json"


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "Error" | "Warning" | "Suggestion" | …
    code: str  # Kusto.Language's code, e.g. KS198
    message: str
    start: int  # offset in the text
    length: int

    @property
    def is_error(self) -> bool:
        return self.severity == "Error"

    def located(self, text: str) -> str:
        """The diagnostic with its line and the text it points at, for a failure message."""
        line = text.count("\n", 0, self.start) + 1
        column = self.start - (text.rfind("\n", 0, self.start) + 1) + 1
        here = text[self.start : self.start + max(self.length, 1) + 30].split("\n")[0]
        where = f"line {line}, column {column}"
        return f"{self.severity} {self.code} at {where}: {self.message} [{here!r}]"


@dataclass(frozen=True)
class Checked:
    diagnostics: tuple[Diagnostic, ...]
    columns: tuple[tuple[str, str], ...]  # the result's (name, Kusto type), in order

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.is_error)

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if not d.is_error)


class KustoChecker:
    """One node process running check.js; ``check`` is safe from several threads."""

    def __init__(self) -> None:
        node = require_tool("node", PURPOSE)
        npm_ci(KUSTO_DIR, PACKAGE, PURPOSE)
        self._process = subprocess.Popen(
            [node, str(SCRIPT)],
            cwd=KUSTO_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, str], Checked] = {}
        ready = self._read()
        if "ready" not in ready:
            self.close()
            pytest.fail(f"the KQL checker did not start: {ready}", pytrace=False)
        self.databases: tuple[str, ...] = tuple(ready["ready"])

    def _read(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            error = self._process.stderr.read() if self._process.stderr else ""
            pytest.fail(f"the KQL checker (node {SCRIPT}) stopped: {error[-2000:]}", pytrace=False)
        answer: dict[str, Any] = json.loads(line)
        return answer

    def check(self, text: str, database: str = WORKSPACE) -> Checked:
        key = (text, database)
        with self._lock:
            if key in self._seen:
                return self._seen[key]
            assert self._process.stdin is not None
            # ensure_ascii: a lone surrogate travels as \\udxxx and JSON.parse takes it.
            self._process.stdin.write(json.dumps({"text": text, "database": database}) + "\n")
            self._process.stdin.flush()
            answer = self._read()
            if "error" in answer:
                pytest.fail(f"the KQL checker could not check a text: {answer['error']}")
            checked = Checked(
                tuple(Diagnostic(**d) for d in answer["diagnostics"]),
                tuple((c["name"], c["type"]) for c in answer["columns"]),
            )
            self._seen[key] = checked
            return checked

    def close(self) -> None:
        if self._process.poll() is None:
            if self._process.stdin is not None:
                self._process.stdin.close()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        for stream in (self._process.stdout, self._process.stderr):
            if stream is not None:
                stream.close()


_shared: KustoChecker | None = None
_shared_lock = threading.Lock()


def shared_checker() -> KustoChecker:
    """The session's checker, started on first use and stopped when Python exits."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = KustoChecker()
            atexit.register(_shared.close)
        return _shared


def rejected(text: str, database: str = WORKSPACE) -> str | None:
    """Why Log Analytics would refuse ``text`` (the parser's errors), or None."""
    errors = shared_checker().check(text, database).errors
    if not errors:
        return None
    return "; ".join(e.located(text) for e in errors)


@pytest.fixture(scope="session")
def kusto() -> Iterator[KustoChecker]:
    yield shared_checker()
