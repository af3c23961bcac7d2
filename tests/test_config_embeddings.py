"""The profile keys of recall's embeddings deployment: read from a profile, checked, and
carried in the invocation with their origin."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosmem_tui import cli
from cosmem_tui.cli.options import flags
from cosmem_tui.config.files import ConfigError
from cosmem_tui.config.invocation import Invocation
from cosmem_tui.config.invocation import resolve as resolve_invocation


def invocation_of(*argv: str) -> Invocation:
    return resolve_invocation(flags(cli.build_parser().parse_args(list(argv))))


def profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> Path:
    monkeypatch.delenv("COSMEM_PROFILE", raising=False)
    path = tmp_path / "cosmem.toml"
    path.write_text(f'default_profile = "p"\n\n[profiles.p]\n{body}\n', encoding="utf-8")
    monkeypatch.setenv("COSMEM_CONFIG", str(path))
    return path


def test_a_profile_names_its_embeddings_deployment(tmp_path, monkeypatch, demo_path) -> None:
    path = profile(
        tmp_path,
        monkeypatch,
        f'workspace = "{demo_path}"\n'
        'embeddings_endpoint = "https://contoso-ai.openai.azure.com"\n'
        'embeddings_deployment = "text-embedding-3-small"',
    )
    invocation = invocation_of("tenants")
    assert invocation.embeddings_endpoint == "https://contoso-ai.openai.azure.com"
    assert invocation.embeddings_deployment == "text-embedding-3-small"
    assert invocation.origin("embeddings_deployment") == f"profile p in {path}"


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('embeddings_endpoint = "http://contoso-ai.openai.azure.com"', "https://"),
        ('embeddings_deployment = "a/b"', "deployment"),
    ],
)
def test_a_bad_embeddings_setting_is_one_line(tmp_path, monkeypatch, demo_path, line, words):
    profile(tmp_path, monkeypatch, f'workspace = "{demo_path}"\n{line}')
    with pytest.raises(ConfigError) as caught:
        invocation_of("tenants")
    assert words in str(caught.value) and "\n" not in str(caught.value)
