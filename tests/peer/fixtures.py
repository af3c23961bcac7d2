"""The Cosmos-protocol peer as a pytest session fixture.

``cosmos_peer`` installs the pinned npm package on first use (``npm ci`` when
``tests/peer/node_modules`` is missing), starts ``cosmos-peer.js`` on a free
127.0.0.1 port (the launcher binds port 0 and prints the one it got), waits until
it answers, and stops it when the session ends. Without ``node``/``npm`` every test
that needs the peer fails with a message saying so: a missing peer is never a skip.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.npm import npm_ci, require_tool
from tests.peer.fault_proxy import FaultProxy

PEER_DIR = Path(__file__).resolve().parent
LAUNCHER = PEER_DIR / "cosmos-peer.js"
PACKAGE = PEER_DIR / "node_modules" / "@vercel" / "cosmosdb-server" / "package.json"
# The peer accepts any key; this is the well-known emulator key, so a real emulator works too.
PEER_KEY = (
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
)
_READY = re.compile(r"cosmos-peer listening on (https?://[\d.]+:\d+)")
START_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Peer:
    endpoint: str  # https://127.0.0.1:PORT
    key: str
    log: Path


PURPOSE = "the Cosmos peer tests (@vercel/cosmosdb-server)"


def _require(tool: str) -> str:
    return require_tool(tool, PURPOSE)


def ensure_installed() -> None:
    """``npm ci`` from the committed lock file, once, when node_modules is missing."""
    npm_ci(PEER_DIR, PACKAGE, PURPOSE)


def start_peer(log: Path) -> tuple[subprocess.Popen[bytes], str]:
    node = _require("node")
    ensure_installed()
    out = log.open("wb")
    process = subprocess.Popen(
        [node, str(LAUNCHER), "--port", "0", "--host", "127.0.0.1"],
        cwd=PEER_DIR,
        stdout=out,
        stderr=subprocess.STDOUT,
        env={**os.environ, "NODE_NO_WARNINGS": "1"},
    )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        match = _READY.search(log.read_text(encoding="utf-8", errors="replace"))
        if match:
            return process, match.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    process.wait()
    text = log.read_text(encoding="utf-8", errors="replace")[-2000:]
    pytest.fail(f"the Cosmos peer did not start: {text}", pytrace=False)


def stop_peer(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def cosmos_peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Peer]:
    log = tmp_path_factory.mktemp("cosmos-peer") / "peer.log"
    process, endpoint = start_peer(log)
    try:
        yield Peer(endpoint, PEER_KEY, log)
    finally:
        stop_peer(process)


@pytest.fixture
def fault_proxy(cosmos_peer: Peer) -> Iterator[FaultProxy]:
    """A fresh fault-injecting proxy in front of the session's peer."""
    proxy = FaultProxy(cosmos_peer.endpoint).start()
    try:
        yield proxy
    finally:
        proxy.stop()
