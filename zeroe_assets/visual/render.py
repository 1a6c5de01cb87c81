"""Words drawn as a reader meets them: on one baseline, each character by the first font of the
chain that has it (font fallback), at a size in pixels per em. The readability bench reads these
back with OCR; the neighbour re-ranking also has them read blurred (`blurred`). Pillow is imported
on use only."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .fonts import cmap, resolve_chain


def _missing_font(message: str) -> None:
    import warnings

    warnings.warn(f"{message}: characters only it draws are drawn as boxes (apt-get install "
                  "fonts-noto-core fonts-unifont)", stacklevel=3)


class WordRenderer:
    """``render(word)``: a grey image (uint8, ink = 255) of ``word`` at ``px`` pixels per em, one
    line high (2 em, the baseline at 1.4 em). A character no font of the chain has is drawn by the
    first font (its .notdef box, the tofu a reader sees). The default chain warns for each font
    it lacks here: without Noto most look-alikes are drawn as boxes, and what reads them (the
    readability bench, the export's re-ranking) would measure boxes without a word said."""

    def __init__(self, px: int = 48, chain: list[Path] | None = None):
        from PIL import ImageFont

        if px < 4:
            raise ValueError(f"px must be at least 4, got {px}")
        self.px = px
        self.chain = resolve_chain(warn=_missing_font) if chain is None else list(chain)
        # one code point needs no shaping: Pillow's basic layout, as the glyph set uses
        self._fonts = [ImageFont.truetype(str(p), px, layout_engine=ImageFont.Layout.BASIC)
                       for p in self.chain]
        self._owner: dict[str, int | None] = {}

    def font_index(self, ch: str) -> int | None:
        """Which font of the chain draws ``ch`` (None: none has it)."""
        if ch not in self._owner:
            self._owner[ch] = next((i for i, p in enumerate(self.chain) if ord(ch) in cmap(p)),
                                   None)
        return self._owner[ch]

    def covers(self, ch: str) -> bool:
        return self.font_index(ch) is not None

    def render(self, word: str, pad: int | None = None) -> np.ndarray:
        from PIL import Image, ImageDraw

        pad = self.px // 2 if pad is None else pad
        fonts = [self._fonts[self.font_index(ch) or 0] for ch in word]
        advances = [font.getlength(ch) for font, ch in zip(fonts, word)]
        height, baseline = 2 * self.px, round(1.4 * self.px)
        canvas = Image.new("L", (round(sum(advances)) + 2 * pad, height))
        draw, x = ImageDraw.Draw(canvas), float(pad)
        for font, ch, advance in zip(fonts, word, advances):
            draw.text((x, baseline), ch, font=font, fill=255, anchor="ls")
            x += advance
        return np.asarray(canvas)


def blurred(image: np.ndarray, radius: float) -> np.ndarray:
    """``image`` (a `WordRenderer.render`) under a Gaussian blur of ``radius`` pixels: the word
    as a reader sees it out of focus, or printed and scanned, where thin strokes and small marks
    melt into the letter or fade."""
    from PIL import Image, ImageFilter

    if radius <= 0:
        raise ValueError(f"a blur radius must be positive, got {radius}")
    return np.asarray(Image.fromarray(image).filter(ImageFilter.GaussianBlur(radius)))


__all__ = ["WordRenderer", "blurred"]
