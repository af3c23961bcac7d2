"""``:recall`` and ``:expect``: what their words mean (pure: no app)."""

from __future__ import annotations

import pytest

from cosmem_tui.ui.commands import Mistake, SwitchView
from cosmem_tui.ui.registry import the_registry
from cosmem_tui.ui.views.recall.commands import ExpectItem, ProbeWords, read_probe


def test_names_then_flags_as_cosmem_recall_reads_them():
    words = read_probe(
        ("acme", "t-1", "--text", "refund", "policy", "--k", "5", "--expect", "a", "b")
    )
    assert words == ProbeWords(names=("acme", "t-1"), text="refund policy", k=5, expect=("a", "b"))
    assert read_probe(("--like", '"id with space"', "--mode", "EXACT")) == ProbeWords(
        like="id with space", mode="exact"
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--like", "a", "--text", "b"), "not both"),
        (("--k", "0", "--like", "a"), "--k takes a whole number"),
        (("--like",), "--like needs a value"),
        (("--like", "a", "b"), "--like takes one value"),
        (("--mode", "fuzzy", "--like", "a"), "--mode is one of vector, exact, text, hybrid"),
        (("--nope", "a"), "unknown option --nope"),
        (("a", "b", "c", "--like", "x"), "at most one thread"),
        (("--like", "a", "--like", "b"), "--like given twice"),
    ],
)
def test_a_mistake_says_what_to_fix(args, said):
    read = read_probe(args)
    assert isinstance(read, Mistake) and said in read.message


def test_recall_works_from_every_view_and_expect_in_the_recall_view():
    registry = the_registry()
    for view in ("browse", "ttl", "requests", "recall"):
        assert registry.parse(":recall acme --like x", view) == SwitchView(
            "recall", ("acme", "--like", "x")
        )
    assert registry.parse(":recall --like", "browse") == Mistake(
        "--like needs a value · usage: :recall [TENANT [THREAD]] (--like ID | --text WORDS) "
        "[--k N] [--expect ID] [--mode M]"
    )
    assert registry.parse(':expect "a b"', "recall") == ExpectItem("a b")
    elsewhere = registry.parse(":expect x", "browse")
    assert isinstance(elsewhere, Mistake) and "the recall view (:recall)" in elsewhere.message


def test_the_recall_keys_clash_with_no_other_key_and_are_in_the_palette():
    """M (the view), m and W (browse, on a turn): no view binds a key twice, and the
    palette offers each by name."""
    registry = the_registry()
    views = {a.views for a in registry.actions if a.views} | {None}
    names = set().union(*(v for v in views if v)) | {None}
    for view in names:
        bound: dict[str, str] = {}
        for action in registry.for_view(view):
            for key in filter(None, (k.strip() for k in registry.keys(action.id).split(","))):
                same = bound.setdefault(key, action.action)
                assert same == action.action, (view, key, same, action.id)
    palette = {a.id for a in registry.for_view("browse") if a.palette and registry.keys(a.id)}
    assert {"view.recall", "browse.recall_like", "browse.why_not"} <= palette
    assert registry.keys("view.recall") == "M"
    assert (registry.keys("browse.recall_like"), registry.keys("browse.why_not")) == ("m", "W")
