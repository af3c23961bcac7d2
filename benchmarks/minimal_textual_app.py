"""The reference for start-up: the least a Textual app can do before its first frame.

    python benchmarks/minimal_textual_app.py

One line of text, the same title text the console's header shows, nothing else: what
any Textual console pays for Python, Textual and the terminal before it can draw.
``benchmarks/startup.py`` times it beside ``cosmem`` in the same run.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static


class Minimal(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(" cosmem  minimal Textual app (press q)")

    def on_key(self) -> None:
        self.exit()


if __name__ == "__main__":
    Minimal().run()
