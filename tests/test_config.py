"""Config profiles: precedence (flag > environment > profile > default), ``cosmem config``,
secrets masked, one-line errors with exit status 2, and no pydantic without a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from cosmem_tui import cli
from cosmem_tui.cli.console import action_ids
from cosmem_tui.cli.options import flags
from cosmem_tui.config.files import ConfigError
from cosmem_tui.config.invocation import FLAG_SETTINGS, Invocation, session_options
from cosmem_tui.config.invocation import resolve as resolve_invocation
from cosmem_tui.config.settings import AuthName, resolve
from cosmem_tui.config.show import show_rows
from cosmem_tui.sources.cosmos.settings import AuthMode
from tests.helpers import run_cli

CANARY = "CANARY-c2VjcmV0LWFjY291bnQta2V5LTQy"
RESOURCE = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/"
    "Microsoft.DocumentDB/databaseAccounts/contoso"
)
WORKSPACE = "99999999-8888-7777-6666-555555555555"
THEMES = "cosmem-dark, cosmem-light, high-contrast, production"


def write_config(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, demo_path: Path) -> Path:
    """A file with two profiles: dev (the demo workspace) and prod (a Cosmos account)."""
    for name in ("COSMEM_PROFILE", "COSMEM_RU_BUDGET", "COSMEM_THEME", "COSMEM_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)
    path = write_config(
        tmp_path / "cosmem.toml",
        f"""
default_profile = "dev"

[profiles.dev]
workspace = "{demo_path}"
ru_budget = 100
theme = "cosmem-light"
refresh_s = 7

[profiles.prod]
endpoint = "https://contoso.documents.azure.com:443/"
database = "memory"
container = "turns"
key_env = "PROD_COSMOS_KEY"
tenant_id = "11111111-2222-3333-4444-555555555555"
theme = "production"
allow_writes = true
schema = "generic"
ru_budget = 250
resource_id = "{RESOURCE}"
workspace_id = "{WORKSPACE}"

[profiles.prod.keys]
"app.quit" = "ctrl+q"
""",
    )
    monkeypatch.setenv("COSMEM_CONFIG", str(path))
    return path


def invocation_of(*argv: str, keys_checked: bool = False) -> Invocation:
    """The invocation ``cosmem ARGV`` resolves (keys checked as for the console)."""
    args = cli.build_parser().parse_args(list(argv))
    return resolve_invocation(flags(args), known_actions=action_ids if keys_checked else None)


def shown(rows: list[dict[str, str]]) -> dict[str, tuple[str, str]]:
    return {row["setting"]: (row["value"], row["source"]) for row in rows}


# -- precedence ----------------------------------------------------------------------------------


def test_each_level_beats_the_next(config: Path, monkeypatch: pytest.MonkeyPatch):
    # default: no file, nothing in the environment
    settings = resolve({}, env={"COSMEM_CONFIG": str(config.parent / "absent.toml")})
    assert settings.settings.ru_budget is None and settings.origins["ru_budget"] == "default"
    # profile
    dev = resolve({})
    assert dev.profile == "dev" and dev.settings.ru_budget == 100
    assert dev.origins["ru_budget"] == f"profile dev in {config}"
    # environment beats the profile
    monkeypatch.setenv("COSMEM_RU_BUDGET", "300")
    env = resolve({})
    assert env.settings.ru_budget == 300 and env.origins["ru_budget"] == "env COSMEM_RU_BUDGET"
    # the flag beats the environment
    flag = resolve({"ru_budget": 50.0})
    assert flag.settings.ru_budget == 50 and flag.origins["ru_budget"] == "flag"


def test_the_tails_flood_share_is_a_setting_with_a_default(config, monkeypatch, capsys):
    code, out, err = run_cli(capsys, "config", "show", "--json")
    assert code == 0, err
    assert shown(json.loads(out))["tail_flood_share"] == ("0.5", "default")
    monkeypatch.setenv("COSMEM_TAIL_FLOOD_SHARE", "0.3")
    env = resolve({})
    assert env.settings.tail_flood_share == 0.3
    assert env.origins["tail_flood_share"] == "env COSMEM_TAIL_FLOOD_SHARE"


def test_config_show_says_where_each_value_came_from(config, monkeypatch, capsys):
    monkeypatch.setenv("COSMEM_THEME", "high-contrast")
    code, out, err = run_cli(capsys, "--ru-budget", "42", "config", "show", "--json")
    assert code == 0, err
    rows = shown(json.loads(out))
    assert rows["profile"] == ("dev", f"default_profile in {config}")
    assert rows["ru_budget"] == ("42", "flag")
    assert rows["theme"] == ("high-contrast", "env COSMEM_THEME")
    assert rows["refresh_s"] == ("7", f"profile dev in {config}")
    assert rows["endpoint"] == ("", "default")
    code, out, _ = run_cli(capsys, "config", "show")  # the table: one line a setting
    assert code == 0
    line = next(t for t in out.splitlines() if t.startswith("theme "))
    assert "high-contrast" in line and line.endswith("env COSMEM_THEME")


def test_precedence_through_the_real_command(config: Path, demo_path: Path, tmp_path: Path):
    """A profile's workspace feeds a headless command; the environment and a flag beat it."""
    env = {"COSMEM_CONFIG": str(config)}
    result = cosmem("tenants", "--json", "--no-counts", env=env)
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)) == 48  # the demo workspace, named by profile dev
    by_env = tmp_path / "from-env.sqlite"
    result = cosmem("tenants", "--no-counts", env={**env, "COSMEM_WORKSPACE": str(by_env)})
    assert result.returncode == 1 and f"no workspace at {by_env}" in result.stderr
    by_flag = tmp_path / "from-flag.sqlite"
    result = cosmem(
        "tenants",
        "--no-counts",
        "--workspace",
        str(by_flag),
        env={**env, "COSMEM_WORKSPACE": str(by_env)},
    )
    assert result.returncode == 1 and f"no workspace at {by_flag}" in result.stderr
    result = cosmem("--profile", "dev", "config", "show", "--json", env=env)
    rows = shown(json.loads(result.stdout))
    assert rows["profile"] == ("dev", "flag --profile")
    assert rows["workspace"] == (str(demo_path), f"profile dev in {config}")


def test_a_profile_feeds_the_session_options(config: Path, monkeypatch: pytest.MonkeyPatch):
    """prod: a Cosmos container, the key from the variable key_env names, writes allowed,
    the tenant for azure-identity; dev: the workspace."""
    monkeypatch.setenv("PROD_COSMOS_KEY", CANARY)
    monkeypatch.delenv("AZURE_TENANT_ID", raising=False)
    invocation = invocation_of("--profile", "prod", "tenants")
    options = session_options(invocation)
    assert options.cosmos is not None and options.cosmos.key == CANARY
    assert options.cosmos.auth == "key" and options.cosmos.key_source == "COSMOS_KEY"
    assert options.cosmos.container == "turns" and options.allow_writes
    assert options.cosmos.ru_budget == 250 and options.schema == "generic"
    assert options.telemetry is not None and options.telemetry.workspace_id == WORKSPACE
    assert options.telemetry.resource.account == "contoso"
    assert invocation.theme == "production" and invocation.keymap == {"app.quit": "ctrl+q"}
    assert invocation.environment["AZURE_TENANT_ID"] == "11111111-2222-3333-4444-555555555555"
    assert invocation.origin("theme") == f"profile prod in {config}"
    assert "COSMOS_KEY" not in os.environ  # the process environment is left alone
    # COSMOS_KEY in the environment beats the profile's key_env
    monkeypatch.setenv("COSMOS_KEY", "from-the-environment")
    options = session_options(invocation_of("--profile", "prod", "tenants"))
    assert options.cosmos is not None and options.cosmos.key == "from-the-environment"
    dev = invocation_of("tenants")
    assert dev.refresh_s == 7 and not session_options(dev).allow_writes


def test_a_connection_string_from_the_variable_a_profile_names(tmp_path, monkeypatch):
    path = write_config(
        tmp_path / "c.toml",
        '[profiles.cs]\nconnection_string_env = "PROD_CONN"\ndatabase = "memory"\n'
        'container = "turns"\n',
    )
    monkeypatch.setenv("COSMEM_CONFIG", str(path))
    connection = f"AccountEndpoint=https://contoso.documents.azure.com:443/;AccountKey={CANARY};"
    monkeypatch.setenv("PROD_CONN", connection)
    options = session_options(invocation_of("--profile", "cs", "tenants"))
    assert options.cosmos is not None and options.cosmos.auth == "connection-string"
    assert options.cosmos.key == CANARY and options.cosmos.account.startswith("contoso.")
    rows = shown(show_rows(resolve({}, "cs")))
    assert rows["secret"] == ("***", "env PROD_CONN")


def test_a_key_variable_that_is_not_set_is_one_line(config, monkeypatch, capsys):
    monkeypatch.delenv("PROD_COSMOS_KEY", raising=False)
    code, out, err = run_cli(capsys, "--profile", "prod", "tenants")
    assert code == 2 and out == ""
    assert err == f"cosmem: {config}: profiles.prod.key_env: PROD_COSMOS_KEY is not set\n"


# -- secrets -------------------------------------------------------------------------------------


def test_secrets_never_appear_in_any_output(config: Path, tmp_path: Path):
    """The key, by key_env or COSMOS_KEY or a connection string, is masked in show; a key
    pasted into the file is refused without being repeated."""
    env = {"COSMEM_CONFIG": str(config), "PROD_COSMOS_KEY": CANARY}
    outputs = []
    for args in (
        ("--profile", "prod", "config", "show"),
        ("--profile", "prod", "config", "show", "--json"),
        ("config", "validate"),
    ):
        result = cosmem(*args, env=env)
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout + result.stderr)
    assert "***" in outputs[0] and "env PROD_COSMOS_KEY" in outputs[0]
    rows = shown(json.loads(outputs[1]))
    assert rows["secret"] == ("***", "env PROD_COSMOS_KEY")
    connection = f"AccountEndpoint=https://contoso.documents.azure.com:443/;AccountKey={CANARY};"
    result = cosmem("config", "show", env={**env, "COSMOS_CONNECTION_STRING": connection})
    assert result.returncode == 0 and "env COSMOS_CONNECTION_STRING" in result.stdout
    outputs.append(result.stdout + result.stderr)
    pasted = write_config(tmp_path / "pasted.toml", f'[profiles.x]\nendpoint = "{connection}"\n')
    result = cosmem("--profile", "x", "config", "show", env={"COSMEM_CONFIG": str(pasted)})
    assert result.returncode == 0 and "AccountKey=***" in result.stdout
    outputs.append(result.stdout + result.stderr)
    literal = write_config(tmp_path / "literal.toml", f'[profiles.y]\nkey = "{CANARY}"\n')
    for args in (("config", "validate"), ("--profile", "y", "tenants")):
        result = cosmem(*args, env={"COSMEM_CONFIG": str(literal)})
        assert result.returncode == 2
        assert "profiles.y.key: secrets never go in the file" in result.stderr
        outputs.append(result.stdout + result.stderr)
    for text in outputs:
        assert CANARY not in text


def test_show_masks_a_key_pasted_into_a_value(tmp_path: Path, monkeypatch):
    connection = f"AccountEndpoint=https://contoso.documents.azure.com:443/;AccountKey={CANARY};"
    path = write_config(tmp_path / "c.toml", f'[profiles.x]\nendpoint = "{connection}"\n')
    monkeypatch.setenv("COSMEM_CONFIG", str(path))
    rows = shown(show_rows(resolve({}, "x")))
    assert rows["endpoint"][0].endswith("AccountKey=***;") and CANARY not in str(rows)


# -- mistakes: one line, exit 2 ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            '[profiles.prod]\nru_budget = "lots"\n',
            '{file}: profiles.prod.ru_budget: expected a positive number, got "lots"',
        ),
        (
            "[profiles.prod]\nrefresh_s = 1\n",
            "{file}: profiles.prod.refresh_s: expected a number of seconds, at least 2, got 1",
        ),
        (
            "[profiles.prod]\ntail_flood_share = 1.5\n",
            "{file}: profiles.prod.tail_flood_share: expected a share above 0 and at most 1",
        ),
        (
            "[profiles.prod]\nendpont = 'https://x'\n",
            "{file}: profiles.prod.endpont: unknown setting (the settings are workspace, schema,",
        ),
        ("[profiles.prod]\nru_budget = \n", "{file}:2: invalid TOML: Invalid value"),
        (
            '[profiles.prod]\ntheme = "bogus"\n',
            f'{{file}}: profiles.prod.theme: expected one of the themes {THEMES}, got "bogus"',
        ),
        (
            '[profiles.prod]\nauth = "magic"\n',
            "{file}: profiles.prod.auth: expected one of aad, device-code, key, "
            'connection-string, got "magic"',
        ),
        (
            '[profiles.prod.keys]\n"browse.nothing" = "x"\n',
            "{file}: profiles.prod.keys.browse.nothing: no such action",
        ),
        ('default_profile = "qa"\n[profiles.prod]\n', "{file}: default_profile: no profile 'qa'"),
    ],
)
def test_validate_names_the_file_the_key_and_what_is_expected(tmp_path, text, line):
    path = write_config(tmp_path / "bad.toml", text)
    result = cosmem("config", "validate", env={"COSMEM_CONFIG": str(path)})
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(line.format(file=path)), result.stderr


def test_a_profiles_auth_takes_exactly_the_auth_modes():
    assert get_args(AuthName) == tuple(mode.value for mode in AuthMode)


def test_an_invalid_file_stops_every_command_with_one_line(tmp_path: Path):
    path = write_config(tmp_path / "bad.toml", "[profiles.prod]\nru_budget = [1]\n")
    env = {"COSMEM_CONFIG": str(path)}
    for args in (("tenants",), ("--profile", "prod", "threads", "x"), ("config", "show")):
        result = cosmem(*args, env=env)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert result.stderr.count("\n") == 1
        assert f"{path}: profiles.prod.ru_budget: expected a positive number" in result.stderr


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            "[profiles.prod]\nkeys = " + "[" * 50_000 + "]" * 50_000 + "\n",
            "invalid TOML: arrays or tables nested too deeply to read",
        ),
        (
            "[profiles.prod]\nkeys = " + "{a = " * 50_000 + "1" + "}" * 50_000 + "\n",
            "invalid TOML: arrays or tables nested too deeply to read",
        ),
        ("[profiles.prod]\nschema = '\xff'\n", "cannot read"),  # written as Latin-1 below
    ],
    ids=["arrays", "inline-tables", "not-utf8"],
)
def test_a_config_nested_50000_deep_is_one_line_from_every_command(tmp_path, text, says):
    """Before: a RecursionError traceback from every command (tomllib recurses)."""
    path = tmp_path / "deep.toml"
    path.write_bytes(text.encode("latin-1"))
    env = {"COSMEM_CONFIG": str(path)}
    for args in (("tenants",), ("config", "show"), ("config", "validate"), ("threads", "x")):
        result = cosmem(*args, env=env)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1
        assert result.stderr.startswith(f"cosmem: {path}: {says}") or result.stderr.startswith(
            f"{path}: {says}"
        ), result.stderr


def test_an_unknown_profile_lists_the_profiles(config: Path):
    result = cosmem("--profile", "qa", "tenants", env={"COSMEM_CONFIG": str(config)})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr == "cosmem: no profile 'qa' (flag --profile): the profiles are dev, prod\n"
    result = cosmem("tenants", env={"COSMEM_CONFIG": str(config), "COSMEM_PROFILE": "qa"})
    assert result.returncode == 2
    assert "no profile 'qa' (env COSMEM_PROFILE): the profiles are dev, prod" in result.stderr


def test_a_bogus_theme_lists_the_themes(tmp_path: Path):
    result = cosmem("--theme", "bogus", "tenants", env={"COSMEM_CONFIG": str(tmp_path / "none")})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr == f"cosmem: --theme: no theme 'bogus'; the themes are {THEMES}\n"
    result = cosmem(
        "tenants", env={"COSMEM_CONFIG": str(tmp_path / "none"), "COSMEM_THEME": "bogus"}
    )
    assert result.returncode == 2
    assert f"COSMEM_THEME: expected one of the themes {THEMES}" in result.stderr


def test_init_writes_a_starter_that_validates_and_never_overwrites(tmp_path, monkeypatch, capsys):
    path = tmp_path / "new" / "config.toml"
    monkeypatch.setenv("COSMEM_CONFIG", str(path))
    code, out, _ = run_cli(capsys, "config", "path")
    assert code == 0 and out == f"{path}\n"
    code, out, _ = run_cli(capsys, "config", "validate")  # no file: the defaults, valid
    assert code == 0 and "no config file, the defaults apply" in out and not path.exists()
    code, out, _ = run_cli(capsys, "config", "init")
    assert code == 0 and path.exists() and "key_env" in path.read_text()
    path.write_text(path.read_text() + "\n# mine\n")
    code, _, err = run_cli(capsys, "config", "init")
    assert code == 1 and "--force" in err and "# mine" in path.read_text()
    code, out, _ = run_cli(capsys, "config", "validate")
    assert code == 0 and out == f"{path}: ok (profiles: demo)\n"
    code, _, _ = run_cli(capsys, "config", "init", "--force")
    assert code == 0 and "# mine" not in path.read_text()
    assert resolve({}).profile == "demo"


def test_the_config_file_is_in_the_user_config_dir(isolated_user_dirs, monkeypatch, capsys):
    monkeypatch.delenv("COSMEM_CONFIG", raising=False)
    code, out, _ = run_cli(capsys, "config", "path")
    assert code == 0 and Path(out.strip()) == isolated_user_dirs / "config/cosmem/config.toml"


def test_unknown_action_ids_in_a_profile_are_refused_before_the_ui(tmp_path, monkeypatch):
    bad = write_config(tmp_path / "keys.toml", '[profiles.x.keys]\n"no.such" = "z"\n')
    monkeypatch.setenv("COSMEM_CONFIG", str(bad))
    with pytest.raises(ConfigError, match=r"profiles\.x\.keys\.no\.such: no such action"):
        invocation_of("--profile", "x", keys_checked=True)
    assert invocation_of("--profile", "x", "tenants").keymap == {"no.such": "z"}  # not bound


# -- start-up cost -------------------------------------------------------------------------------

PROBE = (
    "import sys\n"
    "from cosmem_tui.cli import main\n"
    "status = main(sys.argv[1:])\n"
    "print('pydantic' in sys.modules, status, file=sys.stderr)\n"
)


def test_pydantic_loads_only_when_a_config_file_is_in_play(config: Path, demo_path: Path):
    args = ["tenants", "--workspace", str(demo_path), "--no-counts", "--json"]
    env = {**os.environ, "COSMEM_CONFIG": str(config.parent / "absent.toml")}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.stderr.splitlines()[-1] == "False 0", result.stderr
    env["COSMEM_CONFIG"] = str(config)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.stderr.splitlines()[-1] == "True 0", result.stderr


def cosmem(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cosmem_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_the_readme_example_is_a_valid_file(tmp_path, monkeypatch, capsys):
    import re

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Profiles", 1)[1].split("\n## ", 1)[0]
    (example,) = re.findall(r"```toml\n(.*?)```", section, re.S)
    path = write_config(tmp_path / "readme.toml", example)
    monkeypatch.setenv("COSMEM_CONFIG", str(path))
    monkeypatch.setenv("PROD_COSMOS_KEY", CANARY)
    code, out, err = run_cli(capsys, "config", "validate")
    assert code == 0, err
    code, out, err = run_cli(capsys, "--profile", "prod", "config", "show", "--json")
    rows = shown(json.loads(out))
    assert rows["theme"][0] == "production" and rows["secret"] == ("***", "env PROD_COSMOS_KEY")
    assert CANARY not in out + err


# -- the invocation: the same settings with or without the settings model ----------------------


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        ((), {}),
        (("--workspace", "/w.sqlite", "--ru-budget", "50", "--allow-writes"), {}),
        (
            ("--endpoint", "https://a.documents.azure.com:443/", "--schema", "generic"),
            {"COSMOS_DATABASE": "db", "COSMOS_CONTAINER": "c"},
        ),
        (
            ("--resource-id", RESOURCE),
            {"COSMOS_ENDPOINT": "https://b.documents.azure.com/", "COSMOS_DATABASE": "db"},
        ),
        ((), {"COSMEM_RESOURCE_ID": RESOURCE, "COSMEM_WORKSPACE_ID": WORKSPACE}),
        (("--container", "c", "--theme", "production"), {"COSMOS_CONTAINER": "", "X": "y"}),
        (("--workspace", "/w.sqlite"), {"COSMOS_ENDPOINT": "https://b.documents.azure.com/"}),
    ],
)
def test_an_invocation_is_the_same_without_the_settings_model(tmp_path, argv, env):
    """Without a config file the flags and the environment are read without pydantic; an
    empty config file brings the settings model in: every value and origin agrees."""
    args = cli.build_parser().parse_args([*argv, "tenants"])
    absent = {**env, "COSMEM_CONFIG": str(tmp_path / "absent.toml")}
    empty = write_config(tmp_path / "empty.toml", "")
    fast = resolve_invocation(flags(args), env=absent)
    model = resolve_invocation(flags(args), env={**env, "COSMEM_CONFIG": str(empty)})
    assert not fast.configured and model.configured
    for name in (*FLAG_SETTINGS, "allow_writes", "demo_live"):
        assert (getattr(fast, name), fast.origin(name)) == (
            getattr(model, name),
            model.origin(name),
        ), name
    assert outcome(fast) == outcome(model)


def outcome(invocation: Invocation) -> object:
    """The session options, or the one-line problem they end in."""
    try:
        return session_options(invocation)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize(
    ("argv", "profile", "live"),
    [
        ((), "", True),
        (("--still",), "", False),
        (("demo", "--still"), "", False),
        ((), "demo_live = false\n", False),
        (("--still",), "demo_live = true\n", False),  # the flag beats the profile
    ],
)
def test_still_and_demo_live_turn_the_demo_s_workload_off(tmp_path, argv, profile, live):
    path = write_config(tmp_path / "c.toml", f'default_profile = "p"\n[profiles.p]\n{profile}')
    args = cli.build_parser().parse_args(list(argv))
    invocation = resolve_invocation(flags(args), env={"COSMEM_CONFIG": str(path)})
    assert invocation.demo_live is live
    assert session_options(invocation).live_demo is live
    assert invocation.origin("demo_live") == (
        "flag" if "--still" in argv else (f"profile p in {path}" if profile else "default")
    )
    fast = resolve_invocation(flags(args), env={"COSMEM_CONFIG": str(tmp_path / "none.toml")})
    assert fast.demo_live is ("--still" not in argv)  # no file: the flag alone, no pydantic


def test_cosmem_demo_still_opens_the_console_on_the_demo_still(capsys, monkeypatch):
    """``cosmem demo`` alone makes the file and says so; with --still it opens the console
    on the demo (which the console builds on first run) with the live workload off."""
    opened: list[Invocation] = []

    def console(args, invocation):
        opened.append(invocation)
        return 0

    monkeypatch.setattr("cosmem_tui.cli.console.run_console", console)
    assert run_cli(capsys, "demo", "--still")[0] == 0
    assert run_cli(capsys, "--still", "demo")[0] == 0
    assert len(opened) == 2
    for invocation in opened:
        options = session_options(invocation)
        assert options.is_demo and not options.live_demo
