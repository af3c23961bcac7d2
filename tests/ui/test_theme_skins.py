"""Theme skins: contrast computed from the TOML colours (WCAG 2), and the production
skin told apart in text, not only in colour."""

from __future__ import annotations

import pytest

from cosmem_tui.config.themes import theme_tables
from cosmem_tui.ui.themes import theme_badge
from cosmem_tui.ui.widgets.header import SessionHeader
from tests.ui.conftest import settle

ROLES = ("primary", "secondary", "accent", "warning", "error", "success")
GROUNDS = ("background", "surface", "panel")


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of ``#rrggbb``."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_is_computed_as_wcag_defines_it():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def test_high_contrast_reads_at_7_to_1_everywhere():
    theme = theme_tables()["high-contrast"]
    for fg in ("foreground", *ROLES):
        for bg in GROUNDS:
            ratio = contrast(theme[fg], theme[bg])
            assert ratio >= 7.0, f"{fg} on {bg}: {ratio:.2f}:1"


@pytest.mark.parametrize("name", sorted(theme_tables()))
def test_every_theme_is_readable(name):
    """Body text at AAA (7:1) on every ground; the accents at AA (4.5:1) where text sits."""
    theme = theme_tables()[name]
    for bg in GROUNDS:
        ratio = contrast(theme["foreground"], theme[bg])
        assert ratio >= 7.0, f"{name}: foreground on {bg}: {ratio:.2f}:1"
    for fg in ROLES:
        for bg in ("background", "surface"):
            ratio = contrast(theme[fg], theme[bg])
            assert ratio >= 4.5, f"{name}: {fg} on {bg}: {ratio:.2f}:1"


def test_only_the_production_skin_carries_a_badge():
    assert theme_badge("production") == "PRODUCTION"
    assert [n for n in theme_tables() if theme_badge(n)] == ["production"]


async def test_the_production_header_says_production_and_keeps_the_essentials(make_app, demo_path):
    app = make_app(demo_path)
    app.theme = "production"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        header = app.screen.query_one(SessionHeader)
        text = header.render().plain
        assert text.startswith(" cosmem  PRODUCTION  ")  # in words: it reads under NO_COLOR
        assert "schema lab" in text and "RU sim" in text
        assert header.has_class("-badge")  # and the band is red
        app.theme = "cosmem-dark"
        await settle(pilot)
        assert "PRODUCTION" not in header.render().plain and not header.has_class("-badge")
