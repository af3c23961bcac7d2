"""The SDKs' logging: out of the terminal by default, masked under ``--debug``.

The subprocess tests run the real ``cosmem`` where the SDKs really log: an Entra ID
sign-in that fails offline (azure-identity's credential chain report) and an account
whose gateway answers 403/1008 (azure-cosmos' "Marking … unavailable").
"""

from __future__ import annotations

import base64
import logging
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cosmem_tui import cli
from cosmem_tui.cli.main import sdk_logging
from cosmem_tui.core import debug_log
from tests.helpers import run_cli as run

# A well-formed account key no log line may ever show.
CANARY = base64.b64encode(b"cosmem-canary-" + bytes(range(50))).decode()
SDK_WARNING = "Marking https://acct-westus.documents.azure.com unavailable for read"


@pytest.fixture(autouse=True)
def sdk_logging_restored() -> Iterator[None]:
    yield
    debug_log.silence()  # the state every CLI run leaves; no handler on a closed stream


@pytest.mark.parametrize(
    "line",
    [
        f"key {CANARY} in a message",
        f"AccountEndpoint=https://a.documents.azure.com:443/;AccountKey={CANARY};",
        "AccountEndpoint=https://a.documents.azure.com:443/;AccountKey=c2VjcmV0LXZhbHVl;",
        "'Authorization': 'type%3Dmaster%26ver%3D1.0%26sig%3DSECRETSIGNATURE%3D'",
        "authorization: type=master&ver=1.0&sig=SECRETSIGNATURE=",
        "Authorization: Bearer SECRETSIGNATURE.abc.def",
        '{"token_type": "Bearer", "access_token": "SECRETSIGNATURE"}',
        "https://acct.blob.core.windows.net/c?sv=2024&sig=SECRETSIGNATURE%3D&se=1",
        "token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.SECRETSIGNATURE",
    ],
)
def test_debug_output_masks_every_form_of_secret(capsys, monkeypatch, demo_path, line):
    monkeypatch.setenv("COSMOS_KEY", CANARY)
    code, _, _ = run(capsys, "--debug", "tenants", "--workspace", str(demo_path), "--no-counts")
    assert code == 0
    logging.getLogger("azure.cosmos._cosmos_http_logging_policy").info("request: %s", line)
    err = capsys.readouterr().err
    assert "azure.cosmos._cosmos_http_logging_policy" in err and "***" in err
    assert CANARY not in err and "SECRETSIGNATURE" not in err and "c2VjcmV0" not in err


def test_a_traceback_in_the_debug_output_is_masked(capsys, demo_path):
    run(capsys, "tenants", "--debug", "--workspace", str(demo_path), "--no-counts")
    try:
        raise ValueError(f"AccountKey={CANARY}")
    except ValueError:
        logging.getLogger("azure.identity").exception("sign-in failed")
    err = capsys.readouterr().err
    assert "sign-in failed" in err and "ValueError: AccountKey=***" in err and CANARY not in err


def test_without_debug_no_sdk_line_reaches_stderr(capsys, demo_path):
    code, _, err = run(capsys, "tenants", "--workspace", str(demo_path), "--no-counts")
    assert code == 0 and err == ""
    for name in ("azure.cosmos._location_cache", "azure.identity.aio._credentials.chained"):
        logging.getLogger(name).warning(SDK_WARNING)
        logging.getLogger(name).critical(SDK_WARNING)  # not even through logging.lastResort
    assert capsys.readouterr().err == ""


def test_cosmem_debug_in_the_environment_is_debug(capsys, monkeypatch, demo_path):
    monkeypatch.setenv("COSMEM_DEBUG", "1")
    run(capsys, "tenants", "--workspace", str(demo_path), "--no-counts")
    logging.getLogger("azure.cosmos").warning(SDK_WARNING)
    assert SDK_WARNING in capsys.readouterr().err
    for off in ("0", "", "false"):
        assert not debug_log.debug_requested(False, {"COSMEM_DEBUG": off})


def test_the_tui_debug_log_is_a_private_file_whose_path_is_printed(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("COSMOS_KEY", CANARY)
    args = cli.build_parser().parse_args(["--debug"])
    sdk_logging(args, to_file=True)  # no command: the TUI, which owns the terminal
    path = debug_log.debug_log_path()
    assert capsys.readouterr().err == f"cosmem: debug log: {path}\n"
    logging.getLogger("azure.cosmos").warning("%s with key %s", SDK_WARNING, CANARY)
    for handler in logging.getLogger("azure").handlers:
        handler.flush()
    text = path.read_text()
    assert path.is_relative_to(tmp_path / "state") and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert f"{SDK_WARNING} with key ***" in text and CANARY not in text
    assert capsys.readouterr().err == ""  # the terminal belongs to the TUI


def test_an_unwritable_debug_log_is_one_line_and_the_error_status(capsys, tmp_path, monkeypatch):
    state = tmp_path / "state"
    state.write_text("")  # a file where the log folder would go: no folder can be made
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    code, out, err = run(capsys, "--debug")
    assert code == cli.EXIT_ERROR and out == ""
    assert err.startswith(f"cosmem: --debug: cannot write {state}") and err.count("\n") == 1


# -- the real command, where the SDKs really log ---------------------------------------


def offline_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """No Azure settings, no az / azd / pwsh on PATH, a fresh HOME: every credential of
    DefaultAzureCredential fails without asking anyone."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AZURE_", "COSMOS_", "COSMEM_", "MSI_", "IDENTITY_"))
    }
    empty = tmp_path / "bin"
    empty.mkdir(exist_ok=True)
    env.update(PATH=str(empty), HOME=str(tmp_path), **extra)
    return env


def cosmem(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cosmem_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_a_failed_sign_in_is_one_line_not_the_credential_chain_report(tmp_path):
    env = offline_env(tmp_path)
    account = ("--endpoint", "https://127.0.0.1:9/", "--database", "d", "--container", "c")
    quiet = cosmem(env, "tenants", "--auth", "aad", *account)
    assert quiet.returncode == 1 and quiet.stdout == ""
    assert quiet.stderr.count("\n") == 1 and quiet.stderr.startswith("cosmem: ")
    assert "Microsoft Entra sign-in failed" in quiet.stderr
    assert "Attempted credentials" not in quiet.stderr
    loud = cosmem(env, "tenants", "--auth", "aad", "--debug", *account)
    assert loud.returncode == 1
    assert "WARNING azure.identity" in loud.stderr and "Attempted credentials" in loud.stderr
    assert loud.stderr.endswith(quiet.stderr)  # cosmem's own line comes last, as without


def test_marking_unavailable_stays_out_unless_debug_and_the_key_never_shows(tmp_path, fake_cosmos):
    from tests.fake_cosmos import Fault

    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=2, default_ttl=-1
    )
    fake_cosmos.seed(
        "db",
        "memory",
        [{"id": f"i{i}", "tenantId": f"t{i}", "threadId": "th", "turnIndex": 1} for i in range(4)],
    )
    fake_cosmos.faults.add(Fault(status=403, sub_status=1008, kind="query"))
    env = offline_env(tmp_path, COSMOS_KEY=CANARY, XDG_DATA_HOME=str(tmp_path / "data"))
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    account = (
        *("--endpoint", fake_cosmos.endpoint, "--database", "db", "--container", "memory"),
        *("--auth", "key", "--timeout", "2"),
    )
    quiet = cosmem(env, "tenants", *account)
    assert quiet.returncode == 1 and quiet.stderr.count("\n") == 1, quiet.stderr
    assert "Marking" not in quiet.stderr
    loud = cosmem(env, "--debug", "tenants", *account)
    assert "WARNING azure.cosmos.LocationCache: Marking" in loud.stderr
    assert "Request headers" in loud.stderr and loud.stderr.endswith(quiet.stderr)
    assert CANARY not in loud.stderr and CANARY not in quiet.stderr


def test_a_key_read_from_a_profiles_variable_is_masked_too():
    """A profile's key_env fills the settings, not the environment the mask is given."""
    from cosmem_tui.sources.cosmos.settings import keep_secret

    key = "PROFILEKEY" + "q" * 30 + "=="
    keep_secret(key)  # what CosmosSettings does with the key it is given
    mask = debug_log.SecretMask(secrets=())
    assert key not in mask.mask(f"request refused: {key} is not valid here")
