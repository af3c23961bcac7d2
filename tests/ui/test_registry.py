"""The action registry as the views declare it: every key runs something real, each view
declares only its own, and reading the declarations loads no screen."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from cosmem_tui.ui.actions import UiAction
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.help import help_text
from cosmem_tui.ui.registry import the_registry
from cosmem_tui.ui.shared_actions import FAMILY_ACTIONS
from cosmem_tui.ui.views import VIEWS

ACTION = re.compile(r"^(?:(?P<namespace>\w+)\.)?(?P<name>\w+)(?:\(.*\))?$")


def runs_on(action: UiAction, view: str) -> tuple[type, str]:
    """The class whose ``action_…`` method the action's Textual action string names."""
    found = ACTION.match(action.action)
    assert found is not None, action.action
    name = found["name"]
    if found["namespace"] == "app":
        return CosmemApp, name
    assert found["namespace"] in (None, "screen"), action.action
    return next(spec for spec in VIEWS if spec.name == view).screen_class(), name


@pytest.mark.parametrize("view", [spec.name for spec in VIEWS])
def test_every_action_names_a_method_of_each_view_it_applies_to(view):
    """A key (or a rebinding by id, or the palette) that runs an action nobody defines
    does nothing at all: Textual drops it silently."""
    registry = the_registry()
    registry.writes_allowed = True  # the guarded writes too
    missing = []
    for action in registry.for_view(view):
        target, name = runs_on(action, view)
        if not callable(getattr(target, f"action_{name}", None)):
            missing.append(f"{action.id}: {target.__name__} has no action_{name}")
    assert not missing, missing


def test_each_view_declares_only_its_own_actions_and_known_families():
    """A view's spec holds actions for itself (or for everywhere: ``:ttl`` from any
    view); what several views share is a family, taken by name."""
    families = {action.family for action in FAMILY_ACTIONS}
    for spec in VIEWS:
        assert spec.takes <= families, (spec.name, spec.takes - families)
        for action in spec.actions:
            assert action.views in (None, frozenset({spec.name})), (spec.name, action.id)
            assert not action.family, action.id
    for action in FAMILY_ACTIONS:
        assert action.family and action.views is None, action.id


def test_a_family_applies_to_exactly_the_views_that_take_it():
    registry = the_registry()
    for action in registry.actions:
        if action.family:
            takers = {spec.name for spec in VIEWS if action.family in spec.takes}
            assert action.views == takers, action.id
    # Esc is hot tenants' own (back to the tenants), the list keys' everywhere else
    assert registry.get("list.back").views == {
        "browse",
        "requests",
        "advise",
        "ttl",
        "recall",
        "tail",
        "doctor",
    }
    assert registry.get("hot.back").views == {"hot"}


def test_ids_are_unique_and_every_view_has_its_switch():
    registry = the_registry()
    ids = [action.id for action in registry.actions]
    assert len(ids) == len(set(ids))
    for spec in VIEWS:
        switch = registry.get(f"view.{spec.name}")
        assert switch.keys == spec.keys and switch.action == f"app.switch_view('{spec.name}')"


def test_the_help_says_what_each_view_shows():
    """The spec's description is what ``:NAME`` is listed with in the help."""
    registry = the_registry()
    for spec in VIEWS:
        assert spec.description
        listed = " ".join(help_text(registry, None, width=200).plain.split())
        if spec.name not in (
            "ttl",
            "recall",
            "tail",
        ):  # :ttl [TENANT [THREAD]] … say the same and more
            assert f":{spec.name} {spec.description}" in listed, spec.name


def test_reading_the_declarations_loads_no_screen():
    """The views' specs are plain data: the registry is built from them without importing
    a screen or a Textual widget, so a screen can be loaded when it is first shown."""
    code = (
        "import sys\n"
        "import cosmem_tui.ui.registry\n"
        "loaded = [m for m in sys.modules if m.startswith('cosmem_tui.ui.views')"
        " and not m.endswith(('.spec', '.commands')) and m.count('.') > 3]\n"
        "loaded += [m for m in ('textual.widget', 'textual.screen', 'textual.app')"
        " if m in sys.modules]\n"
        "print(loaded)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]", result.stdout


async def test_a_command_only_action_run_as_an_action_starts_its_command(make_app, demo_path):
    """``browse.tenant`` and ``browse.thread`` have no key; run as Textual runs a bound
    key or a palette pick, each writes its verb after ``:`` and waits for the name."""
    from cosmem_tui.ui.widgets.command_bar import CommandBar
    from tests.ui.conftest import settle

    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tenant, thread = (app.registry.get(f"browse.{name}") for name in ("tenant", "thread"))
        assert await app.run_action(tenant.action, app.screen)
        bar = app.screen.query_one(CommandBar)
        assert bar.is_open and bar.mode == "command" and bar.value == "tenant "
        await pilot.press(*"contoso", "enter")
        await settle(pilot)
        assert app.browse.tenant is not None and app.browse.tenant.text == "contoso"
        assert await app.run_action(thread.action, app.screen)
        assert bar.is_open and bar.value == "thread "
        await pilot.press("escape")
        assert not bar.is_open
