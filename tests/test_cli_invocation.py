"""No ``argparse.Namespace`` leaves ``cli``: the console gets one typed ``Invocation``
(settings from flags, environment and profile, each with its origin), ``:profile NAME``
resolves one without building a command line, and nothing in ``config`` knows argparse
or calls back into the CLI."""

from __future__ import annotations

import argparse
import ast
import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import cosmem_tui.config
from cosmem_tui import cli
from cosmem_tui.cli.console import action_ids
from cosmem_tui.config.invocation import Invocation
from cosmem_tui.config.profiles import ConfigProfiles, ProfileChoice

CONFIG = Path(cosmem_tui.config.__file__).parent


def namespaces_in(value: Any, seen: set[int] | None = None) -> list[str]:
    """Where a Namespace hides in ``value``: its fields, mappings, sequences, all the way."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, argparse.Namespace):
        return [type(value).__name__]
    found: list[str] = []
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            found += [f"{field.name}.{p}" for p in namespaces_in(getattr(value, field.name), seen)]
    elif isinstance(value, Mapping):
        for key, item in value.items():
            found += [f"[{key!r}].{p}" for p in namespaces_in(item, seen)]
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            found += namespaces_in(item, seen)
    return found


@pytest.fixture
def profiles(tmp_path: Path, demo_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(
        f'[profiles.red]\nworkspace = "{demo_path}"\ntheme = "production"\nrefresh_s = 9\n'
        '[profiles.red.keys]\n"app.quit" = "ctrl+q"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("COSMEM_CONFIG", str(path))
    return path


PLAIN = []
FLAGS = ["--theme", "high-contrast", "--ru-budget", "50"]
PROFILE = ["--profile", "red"]
PROFILE_AND_FLAGS = ["--profile", "red", "--allow-writes", "--resource-id", "/subscriptions/x"]


@pytest.mark.parametrize(
    ("argv", "with_file"),
    [
        (PLAIN, True),
        (FLAGS, True),
        (PROFILE, True),
        (PROFILE_AND_FLAGS, True),
        (PLAIN, False),  # no config file: the invocation is built without pydantic
        (FLAGS, False),
    ],
    ids=["plain", "flags", "profile", "profile-and-flags", "plain-no-file", "flags-no-file"],
)
def test_the_console_gets_one_typed_invocation_and_no_namespace(
    argv, with_file, profiles, demo_path, monkeypatch
):
    if not with_file:
        profiles.unlink()
    given: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def run_app(*args: Any, **kwargs: Any) -> int:
        given.append((args, kwargs))
        return 0

    monkeypatch.setattr("cosmem_tui.ui.app.run_app", run_app)
    assert cli.main([*argv, "--workspace", str(demo_path)]) == 0
    ((args, kwargs),) = given
    assert kwargs == {} and len(args) == 1 and isinstance(args[0], Invocation)
    assert namespaces_in(args[0]) == []
    invocation = args[0]
    assert invocation.workspace == demo_path and invocation.origin("workspace") == "flag"
    if "--profile" in argv:
        assert invocation.profile == "red" and invocation.theme == "production"
        assert invocation.origin("theme") == f"profile red in {profiles}"
        assert invocation.keymap == {"app.quit": "ctrl+q"} and invocation.refresh_s == 9
    assert invocation.configured is with_file  # profiles to switch to only with a file


def test_switching_profile_builds_no_command_line(profiles, demo_path, monkeypatch):
    """Before, ``choose`` made a fake Namespace and handed it to the CLI's own function."""

    def refuse(self: argparse.Namespace, **kwargs: Any) -> None:
        raise AssertionError("a Namespace was built to switch profiles")

    monkeypatch.setattr(argparse.Namespace, "__init__", refuse)
    choice = ConfigProfiles(action_ids).choose("red")
    assert isinstance(choice, ProfileChoice) and namespaces_in(choice) == []
    assert choice.options.workspace == demo_path and choice.name == "red"
    assert choice.theme == "production" and choice.keymap == {"app.quit": "ctrl+q"}
    assert choice.invocation.origin("workspace") == f"profile red in {profiles}"


def test_config_knows_neither_argparse_nor_the_cli():
    """config sits under ui and cli: it takes typed flags, and resolves settings itself."""
    for path in CONFIG.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                assert name != "argparse", f"{path.name} imports argparse"
                assert not name.startswith("cosmem_tui.cli"), f"{path.name} imports {name}"
            assert not (isinstance(node, ast.Name) and node.id == "Namespace"), path.name


def test_settings_that_cannot_go_together_stop_the_console_before_it_starts(
    capsys, demo_path, monkeypatch
):
    monkeypatch.setattr(
        "cosmem_tui.ui.app.CosmemApp.run", lambda self: pytest.fail("the app started")
    )
    code = cli.main(["--workspace", str(demo_path), "--endpoint", "https://x.example"])
    assert code == 1
    assert capsys.readouterr().err == (
        "cosmem: --workspace reads a local file; it cannot be combined with --endpoint\n"
    )


def test_an_invocation_never_shows_its_environment(monkeypatch):
    """The environment it carries holds the account key; its repr (a log line, a test
    failure) leaves it out."""
    monkeypatch.setenv("COSMOS_KEY", "CANARY-not-to-be-shown")
    invocation = Invocation(theme="production", environment={"COSMOS_KEY": "CANARY-too"})
    for text in (repr(invocation), str(invocation), repr((invocation,))):
        assert "CANARY" not in text and "theme='production'" in text
