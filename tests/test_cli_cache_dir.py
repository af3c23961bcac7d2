"""The name cache under the cache dir: private to its user, and never a reason to fail.

Listing a real container caches the key names (``$XDG_CACHE_HOME/cosmem/listings``);
a cache dir that is a file, read-only or on a full disk is a warning line, not a
traceback from a read-only ``cosmem tenants``."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import exchange, run_cli


@pytest.fixture
def account(fake_cosmos: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=2, default_ttl=-1
    )
    fake_cosmos.seed(
        "db", "memory", [exchange(t, "t1", n) for t in ("acme", "globex") for n in range(2)]
    )
    monkeypatch.setenv("COSMOS_KEY", fake_cosmos.key)
    return fake_cosmos


def tenants(capsys: Any, account: Any) -> tuple[int, str, str]:
    where = ["--endpoint", account.endpoint, "--database", "db", "--container", "memory"]
    return run_cli(capsys, "tenants", *where, "--schema", "lab", "--timeout", "5", "--json")


def test_the_name_cache_is_readable_by_its_owner_alone(capsys, account, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    code, _, err = tenants(capsys, account)
    assert (code, err) == (0, "")
    (cached,) = (tmp_path / "cache").rglob("*.json")
    assert "acme" in cached.read_text()
    assert stat.S_IMODE(cached.stat().st_mode) == 0o600
    assert stat.S_IMODE(cached.parent.stat().st_mode) == 0o700


def test_a_cache_dir_that_is_a_file_is_a_warning(capsys, account, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache dir would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    code, out, err = tenants(capsys, account)
    assert code == 0 and [t["tenant"] for t in json.loads(out)] == ["acme", "globex"]
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("cosmem: note: warning: the name cache cannot be written (")
    assert err.rstrip().endswith("names are listed again next time")


def test_a_full_disk_under_the_cache_dir_is_a_warning_and_leaves_no_temp_file(
    capsys, account, tmp_path, monkeypatch
):
    """A real full file system: /dev/full answers every write with ENOSPC."""
    cache = tmp_path / "cache"
    listings = cache / "cosmem" / "listings"
    listings.mkdir(parents=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    code, _, _ = tenants(capsys, account)  # the first run writes the cache file
    (cached,) = listings.glob("*.json")
    cached.unlink()
    temp = cached.with_suffix(f".{os.getpid()}.tmp")
    temp.symlink_to("/dev/full")  # the next save writes here, and the disk is full
    code, out, err = tenants(capsys, account)
    assert code == 0 and len(json.loads(out)) == 2
    assert "No space left on device" in err and err.count("\n") == 1
    assert not temp.exists() and not temp.is_symlink() and not cached.exists()


def test_an_unreadable_cache_is_listed_again(capsys, account, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert tenants(capsys, account)[0] == 0
    (cached,) = (tmp_path / "cache").rglob("*.json")
    cached.write_text("{not json")
    code, out, err = tenants(capsys, account)
    assert (code, err) == (0, "") and len(json.loads(out)) == 2
    assert json.loads(Path(cached).read_text())["keys"] == ["acme", "globex"]
