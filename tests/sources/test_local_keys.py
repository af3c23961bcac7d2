"""The fast paths of the workspace's derived columns agree with the general rules."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from cosmem_tui.model import MISSING, resolve_ttl
from cosmem_tui.sources.local.keys import COMPACT, item_expiry, pk_text

ttl_values = st.one_of(
    st.just(MISSING), st.none(), st.booleans(), st.integers(-3, 10**10), st.text(max_size=3)
)
key_values = st.one_of(st.text(), st.integers(), st.none(), st.booleans())


@given(
    raw=ttl_values,
    ts=st.integers(0, 2**33),
    default=st.one_of(st.none(), st.just(-1), st.integers(1, 10**9)),
)
def test_item_expiry_is_the_ttl_rules(raw, ts, default):
    body = {} if raw is MISSING else {"ttl": raw}
    assert item_expiry(body, ts, default) == resolve_ttl(raw, ts, default).expires_at


@given(values=st.lists(key_values, min_size=1, max_size=3))
def test_pk_text_is_compact_json(values):
    text = pk_text(tuple(values))
    assert text == COMPACT.encode(values)
    assert json.loads(text) == values
