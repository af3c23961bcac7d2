"""Command mode parsing: every command, and every mistake as one readable line."""

from __future__ import annotations

import pytest

from cosmem_tui.schemas import get_schema
from cosmem_tui.ui.commands import (
    Mistake,
    OpenTenant,
    OpenThread,
    Quit,
    ShowHelp,
    ShowTenants,
    parse_command,
)

LAB, THREAD, AMT = get_schema("lab"), get_schema("thread"), get_schema("amt")


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
        ("tenant", None, Mistake("unknown command: tenant (try :help)")),
    ],
)
def test_lab_commands(line, tenant, expected):
    assert parse_command(line, LAB, tenant) == expected


def test_schemas_without_tenants():
    assert parse_command("thread s1", THREAD, None) == OpenThread(None, "s1")
    assert isinstance(parse_command("tenant x", THREAD, None), Mistake)
    assert isinstance(parse_command("thread x s1", THREAD, None), Mistake)
    assert isinstance(parse_command("tenants", THREAD, None), Mistake)


def test_user_keyed_schemas_say_user():
    assert parse_command("user alice", AMT, None) == OpenTenant("alice")
    assert parse_command("users", AMT, "alice") == ShowTenants()
    mistake = parse_command("thread t1", AMT, None)
    assert mistake == Mistake("open a user first, or use :thread USER ID")
