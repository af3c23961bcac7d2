"""Find schemas by name: the built-in TOML files, then the user's own directory."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from cosmem_tui.schemas.schema import Schema, SchemaError, schema_from_mapping


def _load_text(text: str, source: str) -> Schema:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SchemaError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses into arrays and inline tables
        raise SchemaError(f"{source}: not valid TOML: nested too deeply to read") from None
    return schema_from_mapping(data, source)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SchemaError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None


# Not files: "auto" detects a schema, "generic" derives one (core/schemas.py resolves them).
SPECIAL_NAMES = ("auto", "generic")


def builtin_schemas() -> dict[str, Schema]:
    found: dict[str, Schema] = {}
    folder = resources.files("cosmem_tui.schemas") / "builtin"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            schema = _load_text(entry.read_text(encoding="utf-8"), f"builtin/{entry.name}")
            found[schema.name] = schema
    return found


def user_schemas(directory: Path | None) -> dict[str, Schema]:
    found: dict[str, Schema] = {}
    if directory is None or not directory.is_dir():
        return found
    for path in sorted(directory.glob("*.toml")):
        schema = _load_text(_read(path), str(path))
        found[schema.name] = schema
    return found


def all_schemas(user_dir: Path | None = None) -> dict[str, Schema]:
    """Built-ins first; a user file with the same name replaces the built-in."""
    schemas = builtin_schemas()
    schemas.update(user_schemas(user_dir))
    return schemas


def get_schema(name: str, user_dir: Path | None = None) -> Schema:
    schemas = all_schemas(user_dir)
    try:
        return schemas[name]
    except KeyError:
        known = ", ".join([*sorted(schemas), *SPECIAL_NAMES])
        raise SchemaError(f"unknown schema {name!r} (known: {known})") from None
