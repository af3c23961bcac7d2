"""Start-up without collector pauses: the cyclic garbage collector is held off while the
entrance loads the console, then the objects loaded so far are frozen and it runs again.

Importing the console's modules and Textual allocates hundreds of thousands of objects
that live as long as the process (modules, classes, functions, their constants); each
allocation burst triggers the collector, which scans them again and again to free
nothing: on a 2-core machine ~45 ms before the first frame, one full collection of
~25 ms among them. ``hold_collection`` (the entrance, before any import) stops it;
``release_collection`` (the TUI once its first frame is on the terminal, a headless
command before it runs) moves everything alive into the permanent generation
(``gc.freeze``: never scanned again) and starts it again. Reference counting frees
everything else as usual meanwhile; only reference cycles made during start-up wait,
and start-up makes few.
"""

from __future__ import annotations

import gc

_held = False


def hold_collection() -> None:
    """Stop the cyclic collector until ``release_collection`` (the entrance only)."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def release_collection() -> None:
    """Freeze what start-up loaded and run the collector again; nothing if not held."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()


def collection_held() -> bool:
    return _held
