"""Which embedder a session's recall probe gets: the demo's own, the profile's Azure
OpenAI deployment (signed with the session's Entra ID credential), or none."""

from __future__ import annotations

import pytest

from cosmem_tui.compose.building import SessionBuilder, choose_embedder
from cosmem_tui.config.invocation import Invocation, SettingsConflict, embeddings_deployment
from cosmem_tui.core.demo.embedder import DemoEmbedder
from cosmem_tui.model import FrozenClock
from cosmem_tui.model.recall import EmbeddingsDeployment
from cosmem_tui.sources.embeddings import AzureOpenAIEmbedder
from tests.conftest import ANCHOR
from tests.sources.test_embeddings import StaticToken, openai  # noqa: F401  (the fixture)


def test_the_demo_embeds_with_its_own_embedder_whatever_the_profile_says() -> None:
    deployment = EmbeddingsDeployment("https://x.openai.azure.com", "embed-small")
    chosen = choose_embedder(is_demo=True, deployment=deployment)
    assert isinstance(chosen, DemoEmbedder) and chosen.label == "demo embeddings"


def test_no_deployment_no_embedder() -> None:
    builder = SessionBuilder(FrozenClock(ANCHOR))
    assert choose_embedder(is_demo=False, deployment=None, builder=builder) is None


async def test_the_profile_deployment_is_used_with_the_session_credential(openai) -> None:  # noqa: F811
    fake, endpoint = openai
    builder = SessionBuilder(FrozenClock(ANCHOR))
    credential = StaticToken()
    chosen = choose_embedder(
        is_demo=False,
        deployment=EmbeddingsDeployment(endpoint, "embed-small"),
        builder=builder,
        credential=credential,
    )
    assert isinstance(chosen, AzureOpenAIEmbedder)
    assert await chosen.embed("ferry") == (5.0, 0.5, -0.25)
    assert len(fake.requests) == 1 and credential.scopes  # the session's token, no other
    assert [r.kind.value for r in builder.ledger.records()] == ["embeddings"]
    await builder.close()


def test_one_profile_key_alone_is_refused_in_one_line() -> None:
    assert embeddings_deployment(Invocation()) is None
    both = Invocation(embeddings_endpoint="https://x", embeddings_deployment="d")
    assert embeddings_deployment(both) == EmbeddingsDeployment("https://x", "d")
    with pytest.raises(SettingsConflict, match="embeddings_endpoint but not embeddings_deployment"):
        embeddings_deployment(Invocation(embeddings_endpoint="https://x"))
