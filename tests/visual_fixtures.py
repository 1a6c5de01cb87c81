"""Fixtures for the visual pipeline tests: tiny fonts built with fontTools' FontBuilder (no system
fonts needed), a seconds-long smoke config, and a trained-and-exported smoke run."""
from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from zeroe_assets.visual.fonts import alias_fonts
from zeroe_assets.visual.render import WordRenderer

from .conftest import CONF, compose  # noqa: F401  (CONF: for the tests that import it from here)

# the readers the readability bench and the re-ranking read with
needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None,
    reason="no tesseract on the PATH: `make test` installs Debian's tesseract-ocr as root")
needs_rapidocr = pytest.mark.skipif(
    importlib.util.find_spec("rapidocr_onnxruntime") is None,
    reason="RapidOCR is not installed (the `[ocr]` extra, which `make test` installs: "
           "pip install rapidocr-onnxruntime)")


def dejavu_renderer(px: int) -> WordRenderer:
    """A renderer drawing DejaVu Sans first (the system's or matplotlib's), so what a reader
    reads does not hang on the machine's other fonts; the test skips without it."""
    dejavu = alias_fonts("dejavu")
    if not dejavu:
        pytest.skip("no DejaVu Sans (system or matplotlib's)")
    return WordRenderer(px, dejavu)

ACCENT = [(200, 620), (400, 620), (400, 760), (200, 760)]


def _box(x0, y0, x1, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def _ring(x0, y0, x1, y1, t=80):
    return [_box(x0, y0, x1, y1), _box(x0 + t, y0 + t, x1 - t, y1 - t)[::-1]]


# character -> contours (font units, 1000 per em); an empty list is a glyph that renders blank
SHAPES = {
    "a": _ring(100, 0, 500, 450), "\u00e1": _ring(100, 0, 500, 450) + [ACCENT],
    "\u00e0": _ring(100, 0, 500, 450) + [[(x + 60, y) for x, y in ACCENT]],
    "A": [[(50, 0), (300, 700), (550, 0)]], "\u00c1": [[(50, 0), (300, 700), (550, 0)], ACCENT],
    "o": [[(100, 200), (200, 0), (400, 0), (500, 200), (400, 450), (200, 450)]],
    "O": [[(50, 300), (150, 0), (450, 0), (550, 300), (450, 700), (150, 700)]],
    "l": [_box(250, 0, 330, 750)], "I": [_box(250, 0, 330, 700)], ".": [_box(250, 0, 350, 100)],
    "x": [], " ": [], "\u0301": [ACCENT], "\u0001": [_box(0, 0, 500, 500)],
}


def build_font(path: Path, shapes: dict[str, list]) -> Path:
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    names = {ch: f"u{ord(ch):04X}" for ch in shapes}
    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder([".notdef", *names.values()])
    fb.setupCharacterMap({ord(ch): name for ch, name in names.items()})
    glyphs = {}
    for name, contours in [(".notdef", [])] + [(names[c], s) for c, s in shapes.items()]:
        pen = TTGlyphPen(None)
        for contour in contours:
            pen.moveTo(contour[0])
            for point in contour[1:]:
                pen.lineTo(point)
            pen.closePath()
        glyphs[name] = pen.glyph()
    fb.setupGlyf(glyphs)
    # advance 600; left side bearing = xMin, as real fonts have it (FreeType places ink by it)
    lsb = {names[c]: min((x for contour in s for x, _ in contour), default=0) for c, s in shapes.items()}
    fb.setupHorizontalMetrics({name: (600, lsb.get(name, 0)) for name in glyphs})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": "ZeroeTest", "styleName": "Regular"})
    fb.setupOS2(sTypoAscender=800, sTypoDescender=-200, usWinAscent=800, usWinDescent=200)
    fb.setupPost()
    fb.save(str(path))
    return path


@pytest.fixture(scope="session")
def tiny_font(tmp_path_factory) -> Path:
    return build_font(tmp_path_factory.mktemp("fonts") / "tiny.ttf", SHAPES)


def compose_vaegan(tmp: Path, font: Path, *overrides: str):
    return compose("vaegan", [
        "experiment=visual_smoke", f"data.glyphs.fonts=[{font}]",
        f"data.glyphs.cache_dir={tmp / 'cache'}", f"out_dir={tmp / 'run'}",
        "export_to=artifacts", f"paths.artifacts_dir={tmp / 'artifacts'}", *overrides])


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory, tiny_font):
    """One smoke epoch on the tiny font, exported to a temporary artifact root."""
    from train.vaegan import train

    tmp = tmp_path_factory.mktemp("smoke")
    cfg = compose_vaegan(tmp, tiny_font)
    return tmp, cfg, train(cfg)
