"""Glyph rendering shared by training (the glyph set, ``train.visual.glyphs``) and the runtime
(the raw-pixel constraint): one code point per 24×24 canvas, set on a baseline as text sets it.
Pillow is imported on use only."""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np


class Canvas(NamedTuple):
    """How a glyph is drawn: canvas ``size``, pixels per em, the baseline's row, and the
    faintest darkest pixel that is not blank (the glyph set's ``GlyphSpec`` has the same)."""

    size: int = 24
    font_px: int = 18
    baseline: int = 18
    min_ink: int = 64


GLYPH = Canvas()  # the glyph set's canvas (train.visual.glyphs.GlyphSpec's defaults)


def _place(ink: np.ndarray, top: int, size: int, left: float | None = None) -> np.ndarray:
    """Put ``ink`` at row ``top`` and column ``left`` (centred when None) where it fits, else shrink
    it to fit and centre it."""
    from PIL import Image

    h, w = ink.shape
    out = np.zeros((size, size), np.uint8)
    if w > size or h > size:
        scale = size / max(h, w)
        nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
        ink = np.asarray(Image.fromarray(ink).resize((nw, nh), Image.Resampling.LANCZOS))
        h, w = ink.shape
        top, left = (size - h) // 2, None
    top = min(max(top, 0), size - h)
    left = (size - w) // 2 if left is None else min(max(round(left), 0), size - w)
    out[top:top + h, left:left + w] = ink
    return out


def render_font(path: Path, codepoints: list[int], spec) -> tuple[np.ndarray, list[int]]:
    """Render ``codepoints`` with one font; returns the images and the code points not blank.
    ``spec`` has the canvas ``size``, ``font_px``, ``baseline`` and ``min_ink`` (a
    ``Canvas`` or a ``GlyphSpec``).

    One code point needs no shaping, so the layout is Pillow's basic one: Raqm (HarfBuzz) would
    draw an isolated spacing mark such as Devanagari ा on a dotted circle ◌, and whether a Pillow
    build has Raqm at all would change the pixels without changing the fingerprint. Each glyph is
    drawn on a canvas of its own ink box, so a glyph as wide as ﷽ is shrunk whole, not clipped."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(path), spec.font_px, layout_engine=ImageFont.Layout.BASIC)
    margin = 2
    images, kept = [], []
    for cp in codepoints:
        ch = chr(cp)
        x0, y0, x1, y1 = font.getbbox(ch, anchor="ls")  # ink box around the origin on the baseline
        origin, base = margin - x0, margin - y0
        canvas = Image.new("L", (x1 - x0 + 2 * margin, y1 - y0 + 2 * margin))
        ImageDraw.Draw(canvas).text((origin, base), ch, font=font, fill=255, anchor="ls")
        pixels = np.asarray(canvas)
        rows, cols = np.flatnonzero(pixels.max(1)), np.flatnonzero(pixels.max(0))
        if not len(rows) or pixels.max() < spec.min_ink:
            continue
        ink = pixels[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
        # centre the advance box, not the ink, as text sets letters: the stem of ì stays where
        # the stem of i is, although the grave widens the ink to the left (the box is rounded to
        # a pixel before the ink's offset is added, so equal advances put equal stems together)
        advance = font.getlength(ch)
        left = round((spec.size - advance) / 2) + cols[0] - origin if advance > 0 else None
        images.append(_place(ink, spec.baseline - (base - rows[0]), spec.size, left))
        kept.append(cp)
    return np.stack(images) if images else np.zeros((0, spec.size, spec.size), np.uint8), kept
