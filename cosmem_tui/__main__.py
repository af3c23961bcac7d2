"""The entrance: ``cosmem`` and ``python -m cosmem_tui``.

The collector is held off before the first import (``core/startup.py``); the command
line (``cli``) and the console (``ui``) start it again once they are loaded.
"""

from __future__ import annotations

from cosmem_tui.core.startup import hold_collection


def main() -> int:
    hold_collection()
    from cosmem_tui.cli import main as run  # the console's modules, collector held

    return run()


if __name__ == "__main__":
    raise SystemExit(main())
