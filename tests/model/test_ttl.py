"""TTL arithmetic against the Cosmos rules, exhaustively over generated inputs."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from cosmem_tui.model import MISSING, TtlClass, TtlState, resolve_ttl
from cosmem_tui.model.ttl import (
    MAX_TTL,
    InvalidContainerTtl,
    check_container_default,
    format_duration,
    ttl_invalid_reason,
    ttl_json,
    ttl_problem,
)

timestamps = st.integers(min_value=0, max_value=4_000_000_000)
valid_item_ttl = st.one_of(st.just(-1), st.integers(min_value=1, max_value=MAX_TTL))
container_on = st.one_of(st.just(-1), st.integers(min_value=1, max_value=MAX_TTL))
invalid_item_ttl = st.one_of(
    st.none(),
    st.just(0),
    st.integers(max_value=-2),
    st.integers(min_value=MAX_TTL + 1),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    st.booleans(),
    st.lists(st.integers()),
)
any_item_ttl = st.one_of(st.just(MISSING), valid_item_ttl, invalid_item_ttl)


@given(any_item_ttl, timestamps)
def test_container_ttl_off_means_nothing_expires(raw, ts):
    ttl = resolve_ttl(raw, ts, None)
    assert ttl.state is TtlState.OFF
    assert ttl.expires_at is None and ttl.effective is None
    assert ttl.ttl_class is (TtlClass.DEFAULT if raw is MISSING else TtlClass.IGNORED)
    if raw is not MISSING:
        assert any("ignored" in p for p in ttl.problems)


@given(st.integers(min_value=1, max_value=MAX_TTL), timestamps, container_on)
def test_a_positive_item_ttl_counts_from_the_last_write(item, ts, default):
    ttl = resolve_ttl(item, ts, default)
    assert ttl.state is TtlState.EXPIRES
    assert ttl.expires_at == ts + item
    assert not ttl.is_expired(ts + item - 1)
    assert ttl.is_expired(ts + item)
    assert ttl.remaining(ts) == item
    assert ttl.problems == ()


@given(timestamps, container_on)
def test_item_ttl_minus_one_never_expires(ts, default):
    ttl = resolve_ttl(-1, ts, default)
    assert ttl.state is TtlState.NEVER and ttl.expires_at is None
    assert not ttl.is_expired(ts + 10 * MAX_TTL)


@given(timestamps, container_on)
def test_absent_item_ttl_takes_the_container_default(ts, default):
    ttl = resolve_ttl(MISSING, ts, default)
    if default == -1:
        assert ttl.state is TtlState.NEVER
    else:
        assert ttl.expires_at == ts + default
    assert ttl.problems == ()


@given(invalid_item_ttl, timestamps, container_on)
def test_invalid_item_ttl_is_flagged_and_the_default_applies(raw, ts, default):
    ttl = resolve_ttl(raw, ts, default)
    assert ttl.problems and ttl_problem(raw) == ttl.problems[0]
    assert ttl.effective == (None if default == -1 else default)


@given(
    any_item_ttl,
    timestamps,
    st.one_of(st.none(), container_on),
    st.integers(min_value=0, max_value=MAX_TTL),
)
def test_once_expired_always_expired(raw, ts, default, later):
    ttl = resolve_ttl(raw, ts, default)
    for now in (ts, ts + later, ts + 2 * later):
        if ttl.is_expired(now):
            assert ttl.is_expired(now + 1)


def test_null_and_zero_have_specific_messages():
    assert "null" in (ttl_problem(None) or "")
    assert "0" in (ttl_problem(0) or "")
    assert ttl_problem(MISSING) is None and ttl_problem(-1) is None


@given(invalid_item_ttl, container_on)
def test_an_invalid_ttl_is_shown_as_its_json_with_a_reason(raw, default):
    ttl = resolve_ttl(raw, 0, default)
    shown = ttl_json(raw)
    assert json.loads(shown) == raw  # the stored value exactly: "3600" keeps its quotes
    assert shown.isascii() and shown.isprintable()  # nothing in it can act on a terminal
    assert ttl.raw_display == shown and ttl.own is None
    reason = ttl_invalid_reason(raw)
    assert reason and ttl.invalid_reason == reason
    assert ttl_problem(raw) == f"ttl: {ttl_json(raw, 40)} is {reason}: ignored, " + (
        "the container default applies"
    )


@given(valid_item_ttl)
def test_a_valid_ttl_has_no_reason(raw):
    assert ttl_invalid_reason(raw) is None and ttl_json(raw) == str(raw)
    assert ttl_invalid_reason(MISSING) is None and ttl_json(MISSING) == "—"


def test_a_long_ttl_value_is_clipped_for_display():
    assert ttl_json("x" * 100, 10) == '"xxxxxxxx…'


def test_container_default_validation():
    assert check_container_default(None) is None
    assert check_container_default(-1) == -1
    for bad in (0, -2, MAX_TTL + 1, True, 1.5):
        try:
            check_container_default(bad)  # type: ignore[arg-type]
        except InvalidContainerTtl:
            continue
        raise AssertionError(f"{bad!r} accepted")


@given(st.floats(min_value=-1e9, max_value=1e9, allow_nan=False))
def test_format_duration_is_compact(seconds):
    text = format_duration(seconds)
    assert text and len(text) <= 9


def test_format_duration_examples():
    assert [format_duration(s) for s in (45, 720, 11_100, 187_200, 34_560_000)] == [
        "45s",
        "12m",
        "3h05m",
        "2d04h",
        "400d",
    ]
