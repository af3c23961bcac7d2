"""Many keys' texts at once (what ``/`` filters the hot keys on): each is ``Key.text``,
and a column of plain names costs no call a key."""

from __future__ import annotations

import random

import pytest

from cosmem_tui.model import Key
from cosmem_tui.model.keys import key_texts

ODD = [
    "",
    " x",
    "x ",
    "\tx",
    "x\u3000",
    "7",
    "-1",
    "1e3",
    "[1]",
    '{"a":1}',
    '"q"',
    "true",
    "null",
    "NaN",
    "Infinity",
    "false x",
    "tru",
    "ǅ",
    "tenant-1",
    "n\u00a0",
]


@pytest.mark.parametrize("seed", range(20))
def test_each_text_is_the_keys_own(seed):
    rng = random.Random(seed)
    plain = [Key.of(f"tenant-{n}") for n in range(200)]
    keys = list(plain)
    for _ in range(rng.randrange(3)):  # now and then one key of another kind among them
        keys.insert(
            rng.randrange(len(keys)),
            rng.choice(
                [
                    Key.of(rng.choice(ODD)),
                    Key.of(7),
                    Key.of(True),
                    Key.of(None),
                    Key.of(1.5),
                    Key.of("a", "b"),
                    Key.of("a", 1),
                ]
            ),
        )
    assert key_texts(keys) == [key.text for key in keys]
    assert key_texts([Key.of(text) for text in ODD]) == [Key.of(t).text for t in ODD]
    for text in ODD:  # alone among plain names, each one still reads as itself
        mixed = [*plain, Key.of(text)]
        assert key_texts(mixed) == [key.text for key in mixed]
    assert key_texts([]) == []


def test_100000_plain_names_are_read_without_a_call_a_key(monkeypatch):
    from cosmem_tui.ui.views.hot.rows import SORTS, HotRows

    keys = [Key.of(f"tenant-{n:06d}") for n in range(100_000)]
    calls = [0]
    text = Key.text

    def counting(self):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return text.fget(self)  # type: ignore[attr-defined]

    monkeypatch.setattr(Key, "text", property(counting))
    rows = HotRows([_usage(key) for key in keys], None, SORTS[0])
    calls[0] = 0
    texts = rows.search_texts()
    assert texts[:2] == ["tenant-000000", "tenant-000001"] and len(texts) == 100_000
    assert calls[0] == 0  # before: 100,000 (one Key.text a row, on the first /)


def _usage(key):  # type: ignore[no-untyped-def]
    from cosmem_tui.model.telemetry import KeyUsage

    return KeyUsage(key, 1.0, 1.0, 0.0, "0", 1, 1.0, None, None, None)
