"""What a headless command says to the person at the terminal, on stderr: one ``cosmem:``
line, one y/N question, one progress line that rewrites itself.

stdout stays the command's output (a table, ``--json``, ``--csv``); everything here is
for the person, so it is written to stderr and never fails the command when the
terminal has gone away (EIO after SIGHUP, EPIPE).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from typing import TextIO

from cosmem_tui.core.text import visible


def report(line: str, stream: TextIO | None = None) -> None:
    """``line`` on ``stream`` (stderr), flushed; a terminal or pipe gone is no error."""
    with contextlib.suppress(OSError):  # EIO / EPIPE: the terminal or pipe is gone
        print(line, file=sys.stderr if stream is None else stream, flush=True)


def notice(line: str) -> None:
    """A line the user must read while a session opens (a device-code sign-in prompt)."""
    print(f"cosmem: {visible(line)}", file=sys.stderr)


def yes(answer: str) -> bool:
    return answer.strip().lower() in ("y", "yes")


async def ask(prompt: str, consent: Callable[[str], bool] = yes) -> bool:
    """Ask on the terminal (``cosmem: PROMPT``, no newline) and read one line on a thread
    (the event loop keeps running); ``consent`` judges the answer (default y or yes)."""

    def read() -> bool:
        print(f"cosmem: {prompt}", end="", file=sys.stderr, flush=True)
        return consent(sys.stdin.readline())

    return await asyncio.to_thread(read)


def on_a_terminal() -> bool:
    """Someone can answer: both stdin and stderr are a terminal."""
    return sys.stdin.isatty() and sys.stderr.isatty()


class ProgressLine:
    """One line on stderr that each ``show`` rewrites (terminals only, so a log or a pipe
    never fills with carriage returns); ``done`` ends it."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.shown = False

    def show(self, text: str) -> None:
        if not self.enabled:
            return
        with contextlib.suppress(OSError):  # a terminal gone (SIGHUP) must not stop the work
            print(f"\rcosmem: {text} ", end="", file=sys.stderr, flush=True)
        self.shown = True

    def done(self) -> None:
        if self.shown:
            report("")
