from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.workspace import import_hostile
from tests.ui.conftest import make_app, no_cursor_blink  # noqa: F401  (the real app, as tests/ui drives it)


@pytest.fixture
def hostile_workspace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The corpus imported into a workspace through ``cosmem import`` (some lines rejected)."""
    workspace, code = import_hostile(tmp_path)
    assert code == 1 and workspace.is_file()  # 1: some lines were rejected, the rest is in
    capsys.readouterr()
    return workspace
