"""Version-2 partition key hashing, fast, and continuously checked against the SDK.

The SDK computes an EPK component as MurmurHash3 x64-128 over the value's binary
form (``0x08`` + UTF-8 + ``0xFF`` for a string, ``0x05`` + little-endian double for a
number, ``0x03``/``0x02`` for true/false, ``0x01`` null, ``0x00`` undefined), byte-reversed,
with the top two bits cleared, in upper-case hex. Its pure-Python implementation
works on wrapper integer objects and costs ~110 µs a value: seeding 10,000 tenants with
two threads each on a hierarchical key would spend seconds hashing. This module does
the same computation on plain ints (~20 µs).

It is the SDK that decides: every ``CHECK_EVERY``-th new value, and a fixed sample on
first use, is also hashed by ``azure.cosmos.partition_key`` and any difference raises,
so the fake can never silently route an item somewhere the SDK would not look for it.
"""

from __future__ import annotations

import struct
import threading
from typing import Any

from azure.cosmos.partition_key import PartitionKey, _Undefined

from tests.fake_cosmos.values import UNDEFINED

CHECK_EVERY = 64
_MASK = 0xFFFFFFFFFFFFFFFF
_C1 = 0x87C37B91114253D5
_C2 = 0x4CF5AD432745937F
_SAMPLE: tuple[Any, ...] = (
    True,
    False,
    None,
    UNDEFINED,
    0,
    1,
    -1,
    42,
    42.5,
    2**60,
    "",
    "a",
    "42",
    "é漢🙂",
)

_lock = threading.Lock()
_calls = 0
_sample_checked = False


def _fmix(k: int) -> int:
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & _MASK
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & _MASK
    return k ^ (k >> 33)


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _MASK


def murmur3_128(data: bytes) -> tuple[int, int]:
    """MurmurHash3 x64-128 with seed 0: (low, high) 64-bit halves."""
    h1 = h2 = 0
    length = len(data)
    blocks = length // 16
    for i in range(blocks):
        k1, k2 = struct.unpack_from("<QQ", data, i * 16)
        k1 = _rotl((k1 * _C1) & _MASK, 31)
        h1 ^= (k1 * _C2) & _MASK
        h1 = (_rotl(h1, 27) + h2) & _MASK
        h1 = (h1 * 5 + 0x52DCE729) & _MASK
        k2 = _rotl((k2 * _C2) & _MASK, 33)
        h2 ^= (k2 * _C1) & _MASK
        h2 = (_rotl(h2, 31) + h1) & _MASK
        h2 = (h2 * 5 + 0x38495AB5) & _MASK
    tail = data[blocks * 16 :]
    if len(tail) > 8:
        k2 = _rotl((int.from_bytes(tail[8:], "little") * _C2) & _MASK, 33)
        h2 ^= (k2 * _C1) & _MASK
    if tail:
        k1 = _rotl((int.from_bytes(tail[:8], "little") * _C1) & _MASK, 31)
        h1 ^= (k1 * _C2) & _MASK
    h1 ^= length
    h2 ^= length
    h1 = (h1 + h2) & _MASK
    h2 = (h2 + h1) & _MASK
    h1, h2 = _fmix(h1), _fmix(h2)
    h1 = (h1 + h2) & _MASK
    h2 = (h2 + h1) & _MASK
    return h1, h2


def _binary(value: Any) -> bytes:
    if value is True:
        return b"\x03"
    if value is False:
        return b"\x02"
    if value is None:
        return b"\x01"
    if value is UNDEFINED or isinstance(value, _Undefined):
        return b"\x00"
    if isinstance(value, int | float):
        return b"\x05" + struct.pack("<d", float(value))
    if isinstance(value, str):
        return b"\x08" + value.encode("utf-8") + b"\xff"
    raise TypeError(f"a partition key component cannot be {type(value).__name__}")


def _fast(value: Any) -> str:
    low, high = murmur3_128(_binary(value))
    raw = bytearray(high.to_bytes(8, "big") + low.to_bytes(8, "big"))
    raw[0] &= 0x3F
    return raw.hex().upper()


def sdk_component_hash(value: Any) -> str:
    sdk_value = _Undefined() if value is UNDEFINED else value
    return str(
        PartitionKey._get_effective_partition_key_for_multi_hash_partitioning_v2([sdk_value])
    )


def _check(value: Any, fast: str) -> None:
    expected = sdk_component_hash(value)
    if fast != expected:
        raise AssertionError(f"EPK hash of {value!r} differs from the SDK's: {fast} != {expected}")


def component_hash(value: Any) -> str:
    """The 32-hex-digit V2 hash of one key component (a Hash key's whole EPK)."""
    global _calls, _sample_checked
    fast = _fast(value)
    with _lock:
        _calls += 1
        check_now = _calls % CHECK_EVERY == 1
        check_sample = not _sample_checked
        _sample_checked = True
    if check_sample:
        for sample in _SAMPLE:
            _check(sample, _fast(sample))
    if check_now:
        _check(value, fast)
    return fast
