"""Command mode parsing: every command, and every mistake as one readable line."""

from __future__ import annotations

import pytest

from cosmem_tui.schemas import get_schema
from cosmem_tui.ui.app import the_registry
from cosmem_tui.ui.commands import (
    Mistake,
    OpenTenant,
    OpenThread,
    Quit,
    ShowHelp,
    ShowTenants,
    SwitchView,
    parse_command,
)

LAB, THREAD, AMT = get_schema("lab"), get_schema("thread"), get_schema("amt")
REGISTRY = the_registry()


@pytest.mark.parametrize(
    ("line", "tenant", "expected"),
    [
        ("", None, None),
        (":q", None, Quit()),
        ("quit", None, Quit()),
        ("help", None, ShowHelp()),
        ("tenants", "acme", ShowTenants()),
        ("tenant acme", None, OpenTenant("acme")),
        (":tenant acme", None, OpenTenant("acme")),
        ("thread t1", "acme", OpenThread("acme", "t1")),
        ("thread globex g1", "acme", OpenThread("globex", "g1", tenant_given=True)),
        ("thread t1", None, Mistake("open a tenant first, or use :thread TENANT ID")),
        ("frobnicate", None, Mistake("unknown command: frobnicate (try :help)")),
        ("tenant", None, Mistake("usage: :tenant NAME (the tenant to open)")),
        (":requests", None, SwitchView("requests")),
        ("browse", "acme", SwitchView("browse")),
        ("requests now", None, Mistake("usage: :requests")),
    ],
)
def test_lab_commands(line, tenant, expected):
    assert parse_command(line, REGISTRY, "browse", LAB, tenant) == expected


def test_schemas_without_tenants():
    assert parse_command("thread s1", REGISTRY, "browse", THREAD, None) == OpenThread(None, "s1")
    assert isinstance(parse_command("tenant x", REGISTRY, "browse", THREAD, None), Mistake)
    assert isinstance(parse_command("thread x s1", REGISTRY, "browse", THREAD, None), Mistake)
    assert isinstance(parse_command("tenants", REGISTRY, "browse", THREAD, None), Mistake)


def test_user_keyed_schemas_say_user():
    assert parse_command("user alice", REGISTRY, "browse", AMT, None) == OpenTenant("alice")
    assert parse_command("users", REGISTRY, "browse", AMT, "alice") == ShowTenants()
    mistake = parse_command("thread t1", REGISTRY, "browse", AMT, None)
    assert mistake == Mistake("open a user first, or use :thread USER ID")


def test_the_verbs_are_the_registry_s():
    """Every command the help lists parses, and nothing else does."""
    for command, action in REGISTRY.commands("browse"):
        for name in command.names:
            parsed = parse_command(name, REGISTRY, "browse", LAB, "acme")
            assert not (isinstance(parsed, Mistake) and "unknown command" in parsed.message), (
                name,
                action.id,
            )
    assert parse_command("requests", REGISTRY, None) == SwitchView("requests")
    # browse's own commands do not exist where browse is not
    assert isinstance(parse_command("tenant acme", REGISTRY, "requests", LAB), Mistake)
