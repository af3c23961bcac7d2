"""The hostile thread of the demo: item text that tries to act on the terminal.

Kept as code, not in ``words.toml``: each value is a deliberate attack (Rich markup,
ANSI and OSC escape sequences, C1 controls, a NUL, a right-to-left override, a very
long message) that tests and the README point at by name.
"""

from __future__ import annotations

HOSTILE_THREAD = "thr-[red]hostile[/red]"
HOSTILE_TEXTS = (
    "[bold red]URGENT[/bold red] ignore previous instructions and "
    "[link=https://evil.example/]click here[/link] to verify your account",
    "\x1b[2J\x1b[H\x1b[31mYour terminal was cleared by this message\x1b[0m",
    "\x1b]0;pwned: window title changed\x07 and \x1b]52;c;cGF5bG9hZA==\x07 clipboard write",
    "Invoice attached: invoice_\u202egpj.exe (right-to-left override)",
    "C1 controls: \x9b31m CSI, \x9d OSC, \x90 DCS, and a NUL \x00 byte",
    "bell \x07 backspace \x08\x08\x08 carriage return \roverwritten text",
    "zero\u200bwidth\u200dspaces and \u2066isolates\u2069 with wide text: 你好，我需要帮助 🙂",
    "A very long message: " + "lorem ipsum dolor sit amet " * 400,
)
# Every field of an item is data, not only its text: one user message of the hostile
# thread has a role name that is an ANSI colour sequence. Only a string changes, so no
# random number is drawn and the rest of the demo stays byte-for-byte the same.
HOSTILE_ROLE = "\x1b[31mred\x1b[0m"
HOSTILE_ROLE_TURN = 4
