"""The console's own requests say so: every request azure-cosmos sends carries the
``cosmem/<version>`` User-Agent suffix the request-log KQL leaves out."""

from __future__ import annotations

from cosmem_tui import __version__
from cosmem_tui.sources.agent import CONSOLE_MARK, USER_AGENT_SUFFIX
from tests.helpers import all_keys
from tests.peer.spy import SpyTransport


async def test_every_request_carries_the_consoles_user_agent_suffix(containers, open_store):
    seeded = await containers()
    spy = SpyTransport()
    store = open_store(seeded.settings(), transport=spy)
    await all_keys(store)
    assert spy.sent
    for sent in spy.sent:
        agent = sent.headers["user-agent"]
        # azure-cosmos 4.17.1 appends ``user_agent_suffix`` after its own product token
        # (and, when enabled, a feature flag ``| F…`` after that).
        assert agent.startswith("azsdk-python-cosmos-async/"), agent
        assert f" {USER_AGENT_SUFFIX}" in agent, agent
        assert CONSOLE_MARK in agent  # what the KQL's `contains p_console` looks for
    assert f"cosmem/{__version__}" == USER_AGENT_SUFFIX
