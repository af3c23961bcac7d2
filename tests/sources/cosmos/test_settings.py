"""Options and environment → where to connect and how to sign in; secrets never from argv."""

from __future__ import annotations

import pytest

from cosmem_tui.cli import build_parser
from cosmem_tui.sources.cosmos.settings import (
    AuthMode,
    CosmosConfigError,
    parse_connection_string,
    settings_from_options,
)

ENDPOINT = "https://acct.documents.azure.com:443/"
KEY = "c2VjcmV0LWtleQ=="
CONN = f"AccountEndpoint={ENDPOINT};AccountKey={KEY};"


def settings(env=None, **options):
    defaults = {"endpoint": ENDPOINT, "database": "db", "container": "c", "auth": None}
    return settings_from_options(**{**defaults, **options}, env=env or {})


def test_the_auth_mode_follows_the_environment():
    assert settings({"COSMOS_KEY": KEY}).auth is AuthMode.KEY
    assert settings({"COSMOS_CONNECTION_STRING": CONN}, endpoint=None).auth is (
        AuthMode.CONNECTION_STRING
    )
    assert settings({}).auth is AuthMode.AAD  # nothing secret set: Microsoft Entra ID


def test_the_key_comes_from_the_environment_and_never_shows():
    chosen = settings({"COSMOS_KEY": KEY}, auth="key")
    assert chosen.key == KEY
    assert KEY not in repr(chosen)
    with pytest.raises(CosmosConfigError) as caught:
        settings({}, auth="key")
    assert "COSMOS_KEY" in caught.value.message and "never from the command line" in (
        caught.value.message
    )


def test_there_is_no_option_that_takes_a_key():
    parser = build_parser()
    for flag in ("--key", "--account-key", "--connection-string"):
        with pytest.raises(SystemExit):
            parser.parse_args([flag, KEY, "tenants"])


def test_a_connection_string_names_endpoint_and_key():
    assert parse_connection_string(CONN) == (ENDPOINT, KEY)
    chosen = settings({"COSMOS_CONNECTION_STRING": CONN}, endpoint=None, auth="connection-string")
    assert (chosen.endpoint, chosen.key) == (ENDPOINT, KEY)
    with pytest.raises(CosmosConfigError, match="differs from the AccountEndpoint"):
        settings({"COSMOS_CONNECTION_STRING": CONN}, endpoint="https://other.example/")
    with pytest.raises(CosmosConfigError, match="AccountKey"):
        parse_connection_string("AccountEndpoint=https://x/;")


def test_names_and_urls_are_checked_with_one_line_each():
    env = {"COSMOS_KEY": KEY}
    for options, expected in (
        ({"endpoint": None}, "--endpoint URL or COSMOS_ENDPOINT"),
        ({"database": None}, "--database NAME or COSMOS_DATABASE"),
        ({"container": None}, "--container NAME or COSMOS_CONTAINER"),
        ({"endpoint": "acct.documents.azure.com"}, "must be a URL"),
        ({"auth": "password"}, "--auth must be one of"),
    ):
        with pytest.raises(CosmosConfigError) as caught:
            settings(env, **options)
        assert expected in caught.value.message and "\n" not in caught.value.message


def test_names_may_come_from_the_environment():
    env = {
        "COSMOS_ENDPOINT": ENDPOINT,
        "COSMOS_DATABASE": "db",
        "COSMOS_CONTAINER": "c",
        "COSMOS_KEY": KEY,
    }
    chosen = settings_from_options(endpoint=None, database=None, container=None, auth=None, env=env)
    assert (chosen.endpoint, chosen.database, chosen.container) == (ENDPOINT, "db", "c")
    assert chosen.describe() == "cosmos https://acct.documents.azure.com:443 db/c"


def test_a_pasted_connection_string_is_never_echoed():
    secret = "c2VjcmV0LWtleS1iYXNlNjQtYWFhYWFhYWFhYWFhYWFhYWE="
    pasted = f"AccountEndpoint={ENDPOINT};AccountKey={secret};"
    for env, options in (
        ({"COSMOS_KEY": KEY}, {"endpoint": pasted}),  # --endpoint "<connection string>"
        ({"COSMOS_KEY": KEY, "COSMOS_ENDPOINT": pasted}, {"endpoint": None}),
    ):
        with pytest.raises(CosmosConfigError) as caught:
            settings(env, **options)
        assert secret not in caught.value.message and "AccountKey" not in caught.value.message
        assert "COSMOS_CONNECTION_STRING" in caught.value.message
    with pytest.raises(CosmosConfigError) as caught:
        settings({"COSMOS_KEY": KEY}, endpoint="acct?sig=abc123secret&x=1")
    assert "abc123secret" not in caught.value.message and "sig=***" in caught.value.message


def test_the_key_source_is_named_where_the_key_came_from():
    chosen = settings({"COSMOS_CONNECTION_STRING": CONN}, endpoint=None, auth="connection-string")
    assert chosen.key_source == "COSMOS_CONNECTION_STRING"
    assert settings({"COSMOS_KEY": KEY}).key_source == "COSMOS_KEY"


def test_a_budget_and_a_timeout_must_be_positive():
    for tuning in ({"ru_budget": -5}, {"ru_budget": 0}, {"timeout_s": 0}):
        with pytest.raises(CosmosConfigError):
            settings({"COSMOS_KEY": KEY}, **tuning)
