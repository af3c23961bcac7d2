"""One corpus of hostile values, each carrying a canary so a leak can be traced to it.

Every value is what an attacker who writes chat content (or names a tenant) could
store. ``raw`` is a byte sequence that, found in what a terminal received, proves the
value's escape reached it unescaped; ``shown`` is text that proves the value was
displayed (as data: a visible escape or the literal markup).
"""

from __future__ import annotations

import base64
import unicodedata
from dataclasses import dataclass

DANGEROUS = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


@dataclass(frozen=True, slots=True)
class Hostile:
    name: str
    value: str
    raw: tuple[bytes, ...]  # in a terminal's input: the escape got through
    shown: str  # on screen or in output: the value was shown, as text


CLIP = base64.b64encode(b"CANARY-clipboard rm -rf ~").decode()  # what OSC 52 would paste

CORPUS: tuple[Hostile, ...] = (
    Hostile(
        "markup",
        "[bold red]CANARY-markup[/] [link=https://canary-link.example/]CANARY-link[/link]",
        (b"\x1b]8;", b"canary-link.example/\x1b"),
        "[bold red]CANARY-markup[/]",
    ),
    Hostile("csi", "\x1b[2J\x1b[HCANARY-csi", (b"\x1b[2J\x1b[HCANARY",), "[2J\\x1b[HCANARY-csi"),
    Hostile("sgr", "\x1b[4242;31mCANARY-sgr\x1b[0m", (b"\x1b[4242;",), "[4242;31mCANARY-sgr"),
    Hostile(
        "osc52",
        f"\x1b]52;c;{CLIP}\x07CANARY-osc52",
        (f"\x1b]52;c;{CLIP}".encode(),),
        "]52;c;",
    ),
    Hostile(
        "osc8",
        "\x1b]8;;https://canary-osc8.example/\x1b\\CANARY-osc8\x1b]8;;\x1b\\",
        (b"\x1b]8;;https://canary-osc8",),
        "CANARY-osc8",
    ),
    Hostile("title", "\x1b]0;CANARY-title\x07", (b"\x1b]0;CANARY-title",), "]0;CANARY-title"),
    Hostile(
        "c0",
        "".join(map(chr, range(0x20))) + "\x7fCANARY-c0",
        (b"\x01\x02\x03", b"\x7fCANARY-c0"),
        "\\x7fCANARY-c0",
    ),
    Hostile(
        "c1",
        "\x9b4243mCANARY-c1 \x9d0;CANARY-c1-osc\x9c \x85",
        ("\x9b4243m".encode(), "\x9d0;CANARY".encode(), b"\x9b4243m"),
        "\\x9b4243mCANARY-c1",
    ),
    Hostile(
        "bidi",
        "\u202eCANARY-bidi\u202c \u2066iso\u2069 \u200f",
        ("\u202eCANARY".encode(), "\u2066iso".encode()),
        "\\u202eCANARY-bidi",
    ),
    Hostile(
        "zero-width",
        "zero\u200bCANARY\ufeffwidth\u200d",
        ("zero\u200bCANARY".encode(), "\ufeffwidth".encode()),
        "zero\\u200bCANARY\\ufeffwidth",
    ),
    Hostile("separators", "line\u2028CANARY-sep\u2029", ("\u2028CANARY".encode(),), "\\u2028"),
    Hostile("surrogate", "lone\ud800CANARY-surrogate\udfff", (), "\\ud800CANARY-surrogate"),
)

BY_NAME = {h.name: h for h in CORPUS}

# The corpus' values that survive UTF-8 (SQLite, files): everything but lone surrogates.
STORABLE = tuple(h for h in CORPUS if h.name != "surrogate")

# One string holding every value: for fields that show one value.
ALL = " ".join(h.value for h in CORPUS)
ALL_STORABLE = " ".join(h.value for h in STORABLE)

BIG = "CANARY-big " + "\x1b[31mx" * ((1 << 20) // 6)  # about 1 MB of colour codes
DEEP_JSON: object = ["CANARY-deep"]
for _ in range(127):  # Cosmos DB nests objects and arrays at most 128 levels deep
    DEEP_JSON = {"d": DEEP_JSON}


def dangerous(text: str, *, newlines: bool = False) -> list[str]:
    """Characters of ``text`` that could act on a terminal (newlines where allowed)."""
    if newlines:
        text = text.replace("\r\n", "\n")
    return [
        ch for ch in text if unicodedata.category(ch) in DANGEROUS and not (newlines and ch == "\n")
    ]


def leaks(received: bytes) -> list[str]:
    """The corpus entries whose raw escape is in ``received`` (what a terminal got)."""
    return [h.name for h in CORPUS if any(seq in received for seq in h.raw)]
