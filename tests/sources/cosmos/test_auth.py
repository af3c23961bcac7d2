"""Microsoft Entra ID sign-in: the credential each mode builds, and the bearer path on the wire.

No test reaches Entra ID (there is no network here): the token path is driven by a
local credential that hands out a fixed token, against the peer, which then sees an
AAD authorization header on every request.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from azure.core.credentials import AccessToken
from azure.identity import CredentialUnavailableError, DeviceCodeCredential
from azure.identity.aio import DefaultAzureCredential

from cosmem_tui.model import Key
from cosmem_tui.sources.cosmos.auth import ThreadedCredential, build_credential, device_code_prompt
from cosmem_tui.sources.cosmos.settings import AuthMode
from cosmem_tui.sources.errors import Unauthorized
from tests.peer.spy import SpyTransport


class FixedToken:
    """An async token credential that never leaves the machine."""

    def __init__(self, fail: Exception | None = None) -> None:
        self.scopes: list[tuple[str, ...]] = []
        self.fail = fail

    async def get_token(self, *scopes: str, **kwargs) -> AccessToken:
        self.scopes.append(scopes)
        if self.fail is not None:
            raise self.fail
        return AccessToken("cosmem-test-token", 4_102_444_800)

    async def close(self) -> None:
        pass


async def test_each_mode_builds_its_credential(containers):
    seeded = await containers([])
    key = seeded.settings()
    assert build_credential(key, print) == seeded.key
    aad = build_credential(key.__class__(**{**key.__dict__, "auth": AuthMode.AAD}), print)
    assert isinstance(aad, DefaultAzureCredential)
    await aad.close()
    device = build_credential(
        key.__class__(**{**key.__dict__, "auth": AuthMode.DEVICE_CODE}), print
    )
    assert isinstance(device, ThreadedCredential)
    assert isinstance(device._credential, DeviceCodeCredential)
    await device.close()


def test_the_device_code_prompt_is_one_line_for_the_notice_channel():
    lines: list[str] = []
    prompt = device_code_prompt(lines.append)
    prompt("https://microsoft.com/devicelogin", "ABCD-1234", datetime(2026, 11, 30, 9, 15))
    assert lines == [
        "to sign in, open https://microsoft.com/devicelogin and enter the code ABCD-1234 "
        "(valid until 09:15)"
    ]


async def test_an_entra_token_is_sent_as_a_bearer_token(containers, open_store):
    seeded = await containers()
    credential = FixedToken()  # the session that builds a credential closes it, not the store
    spy = SpyTransport()
    settings = seeded.settings(auth=AuthMode.AAD, key=None)
    from cosmem_tui.sources.cosmos.store import CosmosStore

    store = CosmosStore.open(settings, None, transport=spy, credential=credential)
    try:
        props = await store.container_properties()
    finally:
        await store.close()
    assert props.partition_key.paths == ("/tenantId", "/threadId")
    # The SDK asks for the account's own scope (scheme and host of the endpoint).
    assert credential.scopes[0] == ("https://127.0.0.1/.default",)
    assert spy.sent and all(s.headers["authorization"].startswith("type=aad&") for s in spy.sent)


async def test_no_entra_credential_is_one_readable_line(containers):
    seeded = await containers([])
    from cosmem_tui.sources.cosmos.store import CosmosStore

    failing = FixedToken(CredentialUnavailableError("no account signed in"))
    store = CosmosStore.open(seeded.settings(auth=AuthMode.AAD, key=None), None, credential=failing)
    try:
        with pytest.raises(Unauthorized) as caught:
            await store.container_properties()
    finally:
        await store.close()
    assert caught.value.message.startswith(
        "Microsoft Entra sign-in failed (no account signed in); run 'az login'"
    )


class CountedToken(FixedToken):
    def __init__(self) -> None:
        super().__init__()
        self.closed = 0

    async def close(self) -> None:
        self.closed += 1


async def test_one_credential_serves_detection_and_browsing(containers, monkeypatch, tmp_path):
    """A device-code sign-in happens once: detection and the session share one account."""
    from cosmem_tui.compose import open_cosmos_session
    from cosmem_tui.model import SystemClock
    from cosmem_tui.sources.cosmos import auth

    seeded = await containers()
    built: list[CountedToken] = []

    def build(settings, notice):
        built.append(CountedToken())
        return built[-1]

    monkeypatch.setattr(auth, "build_credential", build)
    settings = seeded.settings(auth=AuthMode.DEVICE_CODE, key=None)
    session = await open_cosmos_session(settings, None, SystemClock(), tmp_path)  # detects
    try:
        assert session.schema.name == "lab"
        await session.browse.threads(Key.of("acme"))
    finally:
        await session.close()
    assert len(built) == 1  # one credential for the session, detection included
    assert built[0].scopes  # it signed in (once: the SDK caches the token)
    assert built[0].closed == 1  # the session that built it closed it, exactly once


async def test_a_store_never_closes_a_credential_it_was_given(containers):
    from cosmem_tui.sources.cosmos.store import CosmosStore

    seeded = await containers()
    given = CountedToken()
    store = CosmosStore.open(seeded.settings(auth=AuthMode.AAD, key=None), None, credential=given)
    await store.container_properties()
    await store.close()
    assert given.closed == 0  # the embedding application owns it


def test_device_code_honours_azure_tenant_id(containers, monkeypatch):
    monkeypatch.setenv("AZURE_TENANT_ID", "11111111-2222-3333-4444-555555555555")
    from cosmem_tui.sources.cosmos.settings import CosmosSettings

    settings = CosmosSettings("https://a.example", "d", "c", AuthMode.DEVICE_CODE)
    credential = build_credential(settings, print)
    assert isinstance(credential, ThreadedCredential)
    assert credential._credential._tenant_id == "11111111-2222-3333-4444-555555555555"
