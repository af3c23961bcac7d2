"""The recall view's ``:`` commands: what their words mean (``spec.py`` declares them, the
screen runs them). Pure: no widgets, and nothing of the probe's machinery (the registry
reads this module at start; the use case loads when a probe first runs).

``:recall [TENANT [THREAD]] (--like ID | --text WORDS…) [--k N] [--expect ID]…
[--mode vector|exact|text|hybrid]`` is ``cosmem recall`` typed in the console: the same
flags, read into ``ProbeWords`` (plain words; the screen makes the request of them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from cosmem_tui.ui.commands import Mistake, ParsedCommand, SwitchView, Typed

# The probe's modes as ``cosmem recall --mode`` spells them (model.recall.ProbeMode's
# values; not imported here, so the first frame does not load the probe's vocabulary).
MODES = ("vector", "exact", "text", "hybrid")
USAGE = ":recall [TENANT [THREAD]] (--like ID | --text WORDS) [--k N] [--expect ID] [--mode M]"
FLAGS = ("--like", "--text", "--k", "--expect", "--mode")


@dataclass(frozen=True)
class ProbeWords:
    """What ``:recall`` named, as typed: the scope's names and the probe's flags."""

    names: tuple[str, ...] = ()
    like: str | None = None
    text: str | None = None
    k: int | None = None
    mode: str | None = None
    expect: tuple[str, ...] = ()

    @property
    def asks(self) -> bool:
        """Does it name a query (``--like`` or ``--text``)? Without one it only shows."""
        return self.like is not None or self.text is not None


@dataclass(frozen=True)
class ExpectItem(ParsedCommand):
    """``:expect ID``: why is this item not recalled by the probe on screen?"""

    item_id: str


def unquoted(word: str) -> str:
    """An id or text typed as a JSON string (``"a b"``, which ``:`` keeps as one word) is
    the string it spells; any other word is itself."""
    if len(word) >= 2 and word.startswith('"'):
        try:
            value = json.loads(word)
        except ValueError:
            return word
        if isinstance(value, str):
            return value
    return word


def read_probe(args: tuple[str, ...]) -> ProbeWords | Mistake:
    """The words after ``:recall``: names first, then flags (``--text`` takes the words up
    to the next flag)."""
    names: list[str] = []
    flags: dict[str, str] = {}
    expect: list[str] = []
    i = 0
    while i < len(args) and not args[i].startswith("--"):
        names.append(args[i])
        i += 1
    while i < len(args):
        flag = args[i].lower()
        if flag not in FLAGS:
            return Mistake(f"unknown option {args[i][:20]} · usage: {USAGE}")
        words: list[str] = []
        i += 1
        while i < len(args) and args[i].lower() not in FLAGS:
            words.append(args[i])
            i += 1
        if not words:
            return Mistake(f"{flag} needs a value · usage: {USAGE}")
        words = [unquoted(word) for word in words]
        if flag == "--expect":
            expect.extend(words)
            continue
        if flag in flags:
            return Mistake(f"{flag} given twice · usage: {USAGE}")
        if flag != "--text" and len(words) != 1:
            return Mistake(f"{flag} takes one value · usage: {USAGE}")
        flags[flag] = " ".join(words)
    if len(names) > 2:
        return Mistake(f"name a tenant and at most one thread · usage: {USAGE}")
    if "--like" in flags and "--text" in flags:
        return Mistake("--like or --text, not both: one query vector per probe")
    k: int | None = None
    if "--k" in flags:
        if not flags["--k"].isdigit() or int(flags["--k"]) < 1:
            return Mistake("--k takes a whole number of at least 1 (e.g. --k 10)")
        k = int(flags["--k"])
    mode = flags.get("--mode")
    if mode is not None and mode.lower() not in MODES:
        return Mistake(f"--mode is one of {', '.join(MODES)}")
    return ProbeWords(
        names=tuple(names),
        like=flags.get("--like"),
        text=flags.get("--text"),
        k=k,
        mode=mode.lower() if mode is not None else None,
        expect=tuple(expect),
    )


def parse_recall(typed: Typed) -> ParsedCommand:
    """``:recall …`` from any view: the recall view, probing what is named."""
    read = read_probe(typed.args)
    if isinstance(read, Mistake):
        return read
    return SwitchView("recall", typed.args)


def parse_expect(typed: Typed) -> ParsedCommand:
    """``:expect ID``: an item the probe on screen should have recalled."""
    if len(typed.args) != 1:
        return Mistake("usage: :expect ID (an item the probe should have recalled)")
    return ExpectItem(unquoted(typed.args[0]))
