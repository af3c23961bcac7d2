"""``cosmem import``: load exported items into a local workspace, streaming.

The input (a JSON array, JSON Lines, or a folder of such files) is read one item
at a time and written through ``Workspace.building``: a temporary file renamed into
place only when the import finishes, so a crash never leaves half a workspace.
Memory stays flat with file size: the only things held are one batch of rows and
the first ``SAMPLE_ITEMS`` items (for detection).

Container settings come from the caller (flags, then ``--container-properties``: what
``az cosmosdb sql container show`` prints, read by ``container_file``, which also brings
the indexing, vector embedding and full-text policies) or are guessed:

* schema: ``auto`` detects it from the container name (default: the file's name),
  the partition key if given, and the first ``SAMPLE_ITEMS`` items;
* partition key: the chosen schema's;
* default ttl: ``-1`` (on, no default) if any item carries a ``ttl`` property, else
  off. The first items decide it; if a later item carries a ``ttl`` after all, the
  setting becomes ``-1`` and every expiry is recomputed before the rename.

Items keep their own ``_ts``, ``ttl`` and ``_etag``; an item without ``_ts`` gets
the import time. Rejected, each reported as ``FILE:LINE: message``: values that are
not JSON, items without an ``id`` or a partition key value, and a second item with
the ``id`` of an earlier one in the same partition (the first copy is kept).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Final, TypeAlias

from cosmem_tui.core.container_file import ContainerFile
from cosmem_tui.core.import_files import (
    ExportFileError,
    Record,
    exported_files,
    read_records,
    where,
)
from cosmem_tui.core.schema_choice import AUTO, SchemaChoice, choose_for_sample
from cosmem_tui.model import Clock, ContainerProperties, JsonValue, PartitionKeyDefinition
from cosmem_tui.schemas import Schema, SchemaError
from cosmem_tui.schemas.detect import ContainerFacts, describe_key
from cosmem_tui.sources.errors import WorkspaceError
from cosmem_tui.sources.local import ItemRejected, Workspace, WorkspaceBuilder
from cosmem_tui.sources.local.change_log import LOG_STARTED_META
from cosmem_tui.sources.local.columns import EXPIRES_AT, Row
from cosmem_tui.sources.local.file_errors import os_write_error

SAMPLE_ITEMS = 200
BATCH = 2000
DEFAULT_DATABASE = "import"
Place: TypeAlias = tuple[str, int, int, bool]  # file, line, number, in_array (see where())


class _Guess:
    def __repr__(self) -> str:
        return "GUESS"


GUESS: Final = _Guess()  # a setting to guess from the items


class ImportFailed(Exception):
    """Nothing could be imported (bad arguments, unreadable input): one line for the user."""


@dataclass(frozen=True, slots=True)
class ImportSettings:
    source: Path
    workspace: Path
    partition_key: tuple[str, ...] | None = None  # None: the chosen schema's
    default_ttl: int | _Guess | None = GUESS  # None: TTL off
    schema: str = AUTO
    container: str | None = None  # None: the source's file name without its suffix
    database: str = DEFAULT_DATABASE
    replace: bool = False
    # --container-properties: the container's own settings, for any not given above.
    container_file: ContainerFile | None = None

    @property
    def container_name(self) -> str:
        if self.container:
            return self.container
        if self.container_file is not None:
            return self.container_file.container
        return self.source.name.split(".")[0] or "import"

    @property
    def given_partition_key(self) -> tuple[str, ...] | None:
        """The key paths a flag or the container's properties give (None: the schema's)."""
        if self.partition_key:
            return self.partition_key
        return self.container_file.partition_key.paths if self.container_file else None


@dataclass(frozen=True, slots=True)
class ImportProblem:
    where: str  # FILE:LINE, or FILE:LINE: item N inside a JSON array
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass(frozen=True, slots=True)
class ImportReport:
    workspace: Path
    files: int
    imported: int
    rejected: int
    expired: int  # imported, but already past their ttl: invisible, as on Cosmos
    choice: SchemaChoice
    container: ContainerProperties
    partition_key_guessed: bool
    ttl_note: str  # how the default ttl was decided


def default_workspace_path(source: Path) -> Path:
    """``exports/memories_turns.jsonl`` → ``./memories_turns.sqlite``."""
    return Path.cwd() / f"{source.name.split('.')[0] or 'import'}.sqlite"


def parse_default_ttl(text: str) -> int | None:
    """``off`` → None (TTL off), ``-1``, or a positive number of seconds."""
    if text.strip().lower() == "off":
        return None
    try:
        value = int(text)
    except ValueError:
        raise ImportFailed(
            f"--default-ttl must be off, -1 or a number of seconds, not {text!r}"
        ) from None
    if value == -1 or value > 0:
        return value
    raise ImportFailed(
        f"--default-ttl must be off, -1 or a positive number of seconds, not {value}"
    )


def parse_partition_key(text: str) -> tuple[str, ...]:
    """``/tenantId,/threadId`` → ("/tenantId", "/threadId"); at most three levels."""
    paths = tuple(p.strip() for p in text.split(",") if p.strip())
    if not paths or len(paths) > 3 or not all(p.startswith("/") and len(p) > 1 for p in paths):
        raise ImportFailed(
            f"--partition-key takes one to three paths like /tenantId,/threadId, not {text!r}"
        )
    return paths


def import_export(
    settings: ImportSettings,
    *,
    clock: Clock,
    user_dir: Path | None,
    on_problem: Callable[[ImportProblem], None],
) -> ImportReport:
    """Import ``settings.source`` into a new workspace; problems go to ``on_problem``."""
    if settings.workspace.exists() and not settings.replace:
        raise ImportFailed(f"{settings.workspace} already exists (use --replace to overwrite it)")
    try:
        files = exported_files(settings.source)
    except ExportFileError as exc:
        raise ImportFailed(str(exc)) from None
    records = chain.from_iterable(read_records(f) for f in files)
    head, sample = _sample(records)
    if not sample:  # the file is at fault, not the schema: say what is wrong with it
        raise ImportFailed(_no_items(settings.source, files, head))
    file = settings.container_file
    facts = ContainerFacts(settings.given_partition_key, settings.container_name, settings.database)
    try:
        choice = choose_for_sample(settings.schema, facts, sample, user_dir)
    except SchemaError as exc:
        raise ImportFailed(str(exc)) from None
    schema = choice.schema
    paths = settings.given_partition_key or schema.partition_key
    if tuple(schema.partition_key) != tuple(paths):
        fix = (
            "drop --partition-key or pick another --schema"
            if settings.partition_key or file is None
            else f"the key of {file.path.name}: pick another --schema"
        )
        raise ImportFailed(
            f"schema {schema.name} reads partition key {describe_key(schema.partition_key)}, "
            f"not {describe_key(paths)}: {fix}"
        )
    default_ttl: int | None
    if isinstance(settings.default_ttl, _Guess) and file is not None:
        default_ttl = file.default_ttl
        ttl_note = f"{_ttl_text(default_ttl)}, from {file.path.name}"
    elif isinstance(settings.default_ttl, _Guess):
        carries = any("ttl" in body for body in sample)
        default_ttl = -1 if carries else None
        ttl_note = (
            "-1, guessed: items carry ttl" if carries else "off, guessed: no item carries ttl"
        )
    else:
        default_ttl, ttl_note = settings.default_ttl, "given"
    key = PartitionKeyDefinition(paths, "MultiHash" if len(paths) > 1 else "Hash", 2)
    if file is not None and file.partition_key.paths == tuple(paths):
        key = file.partition_key  # its kind and version as the container has them
    container = ContainerProperties(
        database=settings.database,
        container=settings.container_name,
        partition_key=key,
        default_ttl=default_ttl,
        # Recorded as container.read() has them: the advisor, the doctor and recall read
        # the workspace's policies exactly as a live container's.
        indexing_policy=file.indexing_policy if file else {},
        vector_embedding_policy=file.vector_embedding_policy if file else None,
        full_text_policy=file.full_text_policy if file else None,
    )
    now = int(clock.now())
    counts = _Counts()
    try:
        with Workspace.building(settings.workspace, container, schema) as workspace:
            _load(workspace, chain(head, records), schema, now, counts, on_problem)
            if counts.imported == 0:  # leaving the block this way removes the temp file
                raise ImportFailed(f"nothing imported ({counts.rejected} rejected)")
            guessed_ttl = settings.default_ttl is GUESS and file is None
            if default_ttl is None and counts.carried_ttl and guessed_ttl:
                workspace.change_default_ttl(-1)
                default_ttl, ttl_note = -1, "-1, guessed: later items carry ttl"
                counts.expired = workspace.query("count_expired", {"now": now})[0][0]
            _record(workspace, settings, choice, now)
            container = workspace.container
    except WorkspaceError as exc:
        raise ImportFailed(exc.message) from None
    except OSError as exc:  # the temp file is gone already; say why in one line
        raise ImportFailed(os_write_error(settings.workspace, exc)) from None
    return ImportReport(
        workspace=settings.workspace,
        files=len(files),
        imported=counts.imported,
        rejected=counts.rejected,
        expired=counts.expired,
        choice=choice,
        container=container,
        partition_key_guessed=settings.given_partition_key is None,
        ttl_note=ttl_note,
    )


def flag_overrides(settings: ImportSettings) -> list[str]:
    """The flags that differ from the container properties file, each with what the
    file says (the flag wins): ``--default-ttl off (the file: -1)``."""
    file = settings.container_file
    if file is None:
        return []
    found: list[str] = []
    if settings.partition_key and tuple(settings.partition_key) != file.partition_key.paths:
        found.append(
            f"--partition-key {','.join(settings.partition_key)} "
            f"(the file: {','.join(file.partition_key.paths)})"
        )
    if not isinstance(settings.default_ttl, _Guess) and settings.default_ttl != file.default_ttl:
        found.append(
            f"--default-ttl {_ttl_text(settings.default_ttl)} "
            f"(the file: {_ttl_text(file.default_ttl)})"
        )
    if settings.container and settings.container != file.container:
        found.append(f"--container {settings.container} (the file: {file.container})")
    if file.database is not None and settings.database != file.database:
        found.append(f"--database {settings.database} (the file: {file.database})")
    return found


def _ttl_text(default_ttl: int | None) -> str:
    return "off" if default_ttl is None else str(default_ttl)


def _sample(records: Iterator[Record]) -> tuple[list[Record], list[dict[str, JsonValue]]]:
    """The first records (kept, to be imported first) and the objects among them."""
    head: list[Record] = []
    sample: list[dict[str, JsonValue]] = []
    for record in records:
        head.append(record)
        if isinstance(record.value, dict):
            sample.append(record.value)
        if len(sample) >= SAMPLE_ITEMS or len(head) >= 5 * SAMPLE_ITEMS:
            break
    return head, sample


def _no_items(source: Path, files: list[Path], head: list[Record]) -> str:
    """Why the input holds no item at all: empty, not JSON, not UTF-8, or no objects."""
    first = head[0] if head else None
    if first is None:
        if len(files) > 1:
            return f"{source}: every file in this folder is empty"
        blank = _blank(files[0])
        return f"{files[0]} is empty" if blank else f"{files[0]}: no items in it (an empty array)"
    if first.error is not None:
        reason = first.reason or first.error
        if reason.startswith("not UTF-8"):
            return f"{first.file}: {reason}"
        return f"{first.file}: not JSON or JSON Lines ({reason})"
    kind = type(first.value).__name__ if first.value is not None else "null"
    return f"{first.where}: items are JSON objects, not {_JSON_KINDS.get(kind, kind)} values"


def _blank(path: Path) -> bool:
    """Nothing but whitespace (read only when no value was found, so it is small or odd)."""
    try:
        with path.open("rb") as handle:
            return not handle.read(1 << 16).strip() and not handle.read(1)
    except OSError:
        return False


_JSON_KINDS = {
    "str": "string",
    "int": "number",
    "float": "number",
    "bool": "boolean",
    "list": "array",
}


class _Counts:
    __slots__ = ("carried_ttl", "expired", "imported", "rejected")

    def __init__(self) -> None:
        self.imported = self.rejected = self.expired = 0
        self.carried_ttl = False


def _load(
    workspace: WorkspaceBuilder,
    records: Iterator[Record],
    schema: Schema,
    now: int,
    counts: _Counts,
    on_problem: Callable[[ImportProblem], None],
) -> None:
    row_of = workspace.columns(schema, now).row  # the schema's paths worked out once
    # Pending rows by key, each with where its item was read: the place alone (file,
    # line, number, in_array), so the decoded item is freed at once, and of strings and
    # numbers only, which the garbage collector stops tracking (a batch of held items
    # made it walk them over and over).
    batch: dict[tuple[str, str], tuple[Place, Row]] = {}

    def reject(place: Place, message: str) -> None:
        counts.rejected += 1
        on_problem(ImportProblem(where(place), message))

    file, file_text = None, ""
    for record in records:
        if record.file is not file:  # once per file: the place holds text, not a Path
            file, file_text = record.file, str(record.file)
        place = (file_text, record.line, record.number, record.in_array)
        if record.error is not None:
            reject(place, record.error)
            continue
        try:
            row = row_of(record.value, record.text)  # refuses what is not an object
        except ItemRejected as exc:
            reject(place, str(exc))
            continue
        key = (row[0], row[1])
        if key in batch:
            reject(place, _duplicate(key, batch[key][0]))
            continue
        if not counts.carried_ttl and "ttl" in record.value:
            counts.carried_ttl = True
        batch[key] = (place, row)
        if len(batch) >= BATCH:
            _flush(workspace, batch, now, counts, reject)
    _flush(workspace, batch, now, counts, reject)


def _duplicate(key: tuple[str, str], first: Place | None) -> str:
    pk, item_id = key
    at = f" (first at {where(first)})" if first is not None else " (imported earlier)"
    return f"duplicate id {item_id!r} in partition {pk}{at}; the first copy is kept"


def _flush(
    workspace: WorkspaceBuilder,
    batch: dict[tuple[str, str], tuple[Place, Row]],
    now: int,
    counts: _Counts,
    reject: Callable[[Place, str], None],
) -> None:
    if not batch:
        return
    rows = [row for _, row in batch.values()]
    # Rows whose key an earlier batch wrote are skipped by the insert: report those.
    for key in workspace.insert_new_rows(rows):
        place, _ = batch.pop(key)
        reject(place, _duplicate(key, None))
    counts.imported += len(batch)
    counts.expired += sum(
        1 for _, r in batch.values() if r[EXPIRES_AT] is not None and r[EXPIRES_AT] <= now
    )
    batch.clear()


def _record(
    workspace: WorkspaceBuilder, settings: ImportSettings, choice: SchemaChoice, now: int
) -> None:
    """What a later session needs to reopen the workspace alike, and where it came from."""
    workspace.set_meta("schema", choice.schema.name)
    workspace.set_meta("schema_reason", choice.reason or "chosen with --schema")
    if choice.definition is not None:
        workspace.set_meta("schema_definition", json.dumps(choice.definition))
    workspace.set_meta("import_source", str(settings.source))
    workspace.set_meta("imported_at", str(now))
    # The change log holds the items as imported, and every change from now on: history
    # before the import is silent (ChangePage.retained_since).
    workspace.set_meta(LOG_STARTED_META, str(now))
