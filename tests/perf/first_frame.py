"""Run the real ``cosmem`` entrance headless until its first frame; print what was imported.

    python -m tests.perf.first_frame [--write]

``--write`` rewrites ``first_frame_modules.txt`` with what was loaded.

Started in a fresh interpreter by ``test_first_frame_imports.py``. Textual's ``App.run``
is made headless at 80×24 and the app exits as soon as its first frame is drawn, so the
modules listed are exactly those loaded before the user sees anything: the entrance,
the app, the landing view. Prints one JSON object: the console's own modules, the
top-level names of every other package, the garbage collections started before the
first frame (by generation: none, the entrance holds the collector off) and how often
the whole stylesheet was parsed again.
"""

from __future__ import annotations

import contextlib
import gc
import json
import sys
from pathlib import Path
from typing import Any

from textual.app import App
from textual.css.stylesheet import Stylesheet

COLLECTIONS: list[int] = []  # the generation of each collection the entrance started


def count_collection(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        COLLECTIONS.append(info["generation"])


def main() -> None:
    display = App._display
    run = App.run
    reparse = Stylesheet.reparse
    seen: dict[str, Any] = {}
    reparses: list[int] = []  # each a parse of every CSS source from scratch

    def counted_reparse(self: Stylesheet) -> None:
        reparses.append(len(self.source))
        reparse(self)

    def first_frame(self: App[Any], screen: Any, renderable: Any) -> None:
        display(self, screen, renderable)
        if renderable is not None and not seen:
            seen["own"] = sorted(m for m in sys.modules if m.startswith("cosmem_tui"))
            seen["packages"] = sorted({m.split(".")[0] for m in sys.modules})
            seen["collections"] = list(COLLECTIONS)  # by generation, before the first frame
            seen["css_reparses"] = len(reparses)
            self.exit()

    def headless(self: App[Any], *args: Any, **kwargs: Any) -> Any:
        kwargs.update(headless=True, size=(80, 24))
        return run(self, *args, **kwargs)

    App._display = first_frame  # type: ignore[method-assign]
    Stylesheet.reparse = counted_reparse  # type: ignore[method-assign]
    App.run = headless  # type: ignore[method-assign]
    write = sys.argv[1:] == ["--write"]
    sys.argv = ["cosmem"]
    from cosmem_tui.__main__ import main as cosmem

    gc.callbacks.append(count_collection)  # from the entrance on (Textual is loaded)
    with contextlib.suppress(SystemExit):
        cosmem()
    print(json.dumps(seen), flush=True)
    if write:
        listing = Path(__file__).with_name("first_frame_modules.txt")
        listing.write_text("".join(f"{name}\n" for name in seen["own"]))


if __name__ == "__main__":
    main()
