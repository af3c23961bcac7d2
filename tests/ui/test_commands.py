"""Command mode parsing: every command, and every mistake as one readable line."""

from __future__ import annotations

import pytest

from cosmem_tui.model.keys import split_names
from cosmem_tui.schemas import get_schema
from cosmem_tui.ui.app import the_registry
from cosmem_tui.ui.commands import Mistake, Quit, ShowHelp, SwitchView
from cosmem_tui.ui.views.browse.commands import OpenTenant, OpenThread, ShowTenants

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
    assert REGISTRY.parse(line, "browse", LAB, tenant) == expected


def test_schemas_without_tenants():
    assert REGISTRY.parse("thread s1", "browse", THREAD, None) == OpenThread(None, "s1")
    assert isinstance(REGISTRY.parse("tenant x", "browse", THREAD, None), Mistake)
    assert isinstance(REGISTRY.parse("thread x s1", "browse", THREAD, None), Mistake)
    assert isinstance(REGISTRY.parse("tenants", "browse", THREAD, None), Mistake)


def test_user_keyed_schemas_say_user():
    assert REGISTRY.parse("user alice", "browse", AMT, None) == OpenTenant("alice")
    assert REGISTRY.parse("users", "browse", AMT, "alice") == ShowTenants()
    mistake = REGISTRY.parse("thread t1", "browse", AMT, None)
    assert mistake == Mistake("open a user first, or use :thread USER ID")


def test_the_verbs_are_the_registry_s():
    """Every command the help lists parses, and nothing else does."""
    for command, action in REGISTRY.commands("browse"):
        for name in command.names:
            parsed = REGISTRY.parse(name, "browse", LAB, "acme")
            assert not (isinstance(parsed, Mistake) and "unknown command" in parsed.message), (
                name,
                action.id,
            )
    assert REGISTRY.parse("requests", None) == SwitchView("requests")
    # browse's own commands do not exist where browse is not
    assert isinstance(REGISTRY.parse("tenant acme", "requests", LAB), Mistake)


def _commands_needing_an_argument():
    registry = the_registry()
    registry.writes_allowed = True
    return [
        (command, action)
        for action in registry.actions
        for command in action.commands
        if command.args and not all(arg.startswith("[") for arg in command.args)
    ]


@pytest.mark.parametrize("view", ["browse", "requests", "throttle", "hot", "advise", "ttl"])
def test_a_command_without_its_argument_says_its_usage_in_every_view(view):
    """``:tenant`` alone, or typed in a view it does not apply to, says how it is used
    (and where), never "unknown command"."""
    registry = the_registry()
    registry.writes_allowed = True
    for command, action in _commands_needing_an_argument():
        for verb in command.names:
            said = registry.parse(verb, view, LAB, None)
            assert isinstance(said, Mistake), (view, verb)
            assert said.message.startswith("usage: :"), (view, verb, said)
            if not action.applies_to(view):
                assert command.usage in said.message
                assert all(f"the {v} view (:{v})" in said.message for v in action.views or ())


def test_a_command_of_another_view_says_where_it_works():
    said = REGISTRY.parse("tenant acme", "requests", LAB, None)
    assert said == Mistake("usage: :tenant NAME, in the browse view (:browse)")
    assert REGISTRY.parse("frobnicate", "requests") == Mistake(
        "unknown command: frobnicate (try :help)"
    )


def test_a_key_printed_with_spaces_is_one_word_of_a_command():
    """The names a listing prints may hold spaces (a JSON-looking string, ``"x y"``, a
    composite): typed after ``:thread`` or ``:tenant``, each is one name."""
    role = '{"role": "system", "content": "x"}'
    assert REGISTRY.parse(f":thread {role}", "browse", LAB, "json") == OpenThread("json", role)
    assert REGISTRY.parse(f':thread "a b" {role}', "browse", LAB) == OpenThread(
        '"a b"', role, tenant_given=True
    )
    assert REGISTRY.parse(':tenant "a b"', "browse", LAB) == OpenTenant('"a b"')
    assert REGISTRY.parse(':ttl ["a", "b c"] t', "browse", LAB) == SwitchView(
        "ttl", ('["a", "b c"]', "t")
    )


def test_a_command_line_keeps_a_json_value_one_word():
    assert split_names('thread "x y"  z') == ["thread", '"x y"', "z"]
    # Not a JSON value, or one that runs into more text: cut at white space.
    assert split_names('thread "open x') == ["thread", '"open', "x"]
    assert split_names("thread [1, 2]x y") == ["thread", "[1,", "2]x", "y"]
    assert split_names(" a \t b ") == ["a", "b"]
