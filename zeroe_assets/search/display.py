"""What a text looks like on screen, to check that an imperceptible attack (Boucher et al. 2022)
is imperceptible: ``displayed`` is the line a reader sees, ``render`` its pixels, and
``renders_identically`` compares two texts by them (``RendersIdentically`` is the constraint).

The display model, in this order:

1. BACKSPACE (U+0008) and DEL (U+007F) erase the character before them, as a terminal echoing
   the text does (Boucher et al.'s deletions; a browser would show the erased character).
2. Bidirectional reordering (Unicode UAX #9): the explicit embeddings, overrides and isolates
   (LRE RLE LRO RLO PDF LRI RLI FSI PDI) give levels, and rule L2 reverses the runs at each
   level. Characters outside an override take their embedding's level: exact for left-to-right
   and neutral characters in a left-to-right paragraph, which English text is; a text with a
   right-to-left letter (Hebrew, Arabic) is not modelled, and is never called identical.
3. Default-ignorable code points (zero-width characters, the bidi controls, soft hyphen, variation
   selectors …) draw nothing and are dropped, as renderers drop them.

``render`` draws the displayed line with one font (DejaVu Sans as matplotlib ships it, so every
machine draws the same pixels) and Pillow's basic layout (its kerning included); two texts
render identically when the two images are equal pixel for pixel.

Most lines compared differ from the original's only in characters that draw alike (a
homoglyph), and drawing each costs a FreeType pass over every glyph: ``renders_identically``
decides those without drawing when the decision provably equals the drawing's. Pillow's basic
layout (``text_layout_fallback`` and ``font_render`` in its ``_imagingft.c``) sets each glyph
at a whole pixel, ``PIXEL`` of its pen position, which is the sum of the glyphs' hinted advances
before it plus each neighbouring pair's kerning, and blends its bitmap rendered at the origin
there: the canvas is a function of each glyph's own drawing (its advance, bounding box and
ink) and of each neighbouring pair's kerning. So two lines of one length whose differing
characters have equal drawings (``_glyph``), and whose pairs around them kern alike
(``_kerning``, read off ``getlength``), draw the same canvas; any other pair is drawn, and
lines of different widths differ without drawing.
"""
from __future__ import annotations

import functools
import unicodedata
from pathlib import Path

import numpy as np

from ..constraints.base import Constraint

BACKSPACE, DELETE = "\x08", "\x7f"
LRE, RLE, PDF, LRO, RLO = "\u202a", "\u202b", "\u202c", "\u202d", "\u202e"
LRI, RLI, FSI, PDI = "\u2066", "\u2067", "\u2068", "\u2069"
_EMBED = {LRE: (0, None), RLE: (1, None), LRO: (0, "L"), RLO: (1, "R")}  # parity, override
_ISOLATE = {LRI: 0, RLI: 1, FSI: 0}  # FSI taken as LRI: the text is left-to-right
_MAX_DEPTH = 125  # UAX #9's max_depth
SIZE = 18  # the type size lines are drawn in (pixels)


@functools.lru_cache(maxsize=None)
def _ignorable(ch: str) -> bool:
    """Unicode's Default_Ignorable_Code_Point, as far as text meets it, and the C0/C1
    controls other than tab (nothing is drawn for them)."""
    cp = ord(ch)
    return (unicodedata.category(ch) == "Cf" or 0x180B <= cp <= 0x180F or
            0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF or cp in (0x034F, 0x115F, 0x1160,
                                                                        0x3164, 0xFFA0) or
            (unicodedata.category(ch) == "Cc" and ch != "\t"))


@functools.lru_cache(maxsize=None)
def _right_to_left(ch: str) -> bool:
    return unicodedata.bidirectional(ch) in ("R", "AL", "AN")


_CONTROLS = frozenset((*_EMBED, *_ISOLATE, PDF, PDI))


def _erased(text: str) -> list[str]:
    out: list[str] = []
    for ch in text:
        if ch in (BACKSPACE, DELETE):
            if out:
                out.pop()
        else:
            out.append(ch)
    return out


@functools.lru_cache(maxsize=65536)
def displayed(text: str) -> str | None:
    """The line a reader sees, in visual order (None: a right-to-left letter, not modelled)."""
    if text.isascii() and text.isprintable():
        return text  # nothing erased, reordered or dropped
    chars = _erased(text) if BACKSPACE in text or DELETE in text else text
    if any(map(_right_to_left, chars)):
        return None
    if _CONTROLS.isdisjoint(chars):  # every level 0: rule L2 reverses nothing
        return "".join(c for c in chars if not _ignorable(c))
    stack = [(0, None, False)]  # (level, override, isolate)
    levelled: list[tuple[str, int]] = []
    for ch in chars:
        level, override, _ = stack[-1]
        if ch in _EMBED:
            parity, new_override = _EMBED[ch]
            new = level + 1 + ((level + 1) % 2 != parity)
            if new <= _MAX_DEPTH:
                stack.append((new, new_override, False))
        elif ch in _ISOLATE:
            levelled.append((ch, level))
            new = level + 1 + ((level + 1) % 2 != _ISOLATE[ch])
            stack.append((min(new, _MAX_DEPTH), None, True))
        elif ch == PDI:
            while len(stack) > 1 and not stack[-1][2]:
                stack.pop()
            if len(stack) > 1:
                stack.pop()
            levelled.append((ch, stack[-1][0]))
        elif ch == PDF:
            if len(stack) > 1 and not stack[-1][2]:
                stack.pop()
        else:
            # a left-to-right or neutral character: at its level under an override of either
            # direction, or at an even level (a left-to-right letter at an odd level rises, I2)
            levelled.append((ch, level + (override is None and level % 2)))
    top = max((lv for _, lv in levelled), default=0)
    lowest_odd = min((lv for _, lv in levelled if lv % 2), default=top + 1)
    order = list(levelled)
    for at in range(top, lowest_odd - 1, -1):  # rule L2
        i = 0
        while i < len(order):
            if order[i][1] >= at:
                j = i
                while j < len(order) and order[j][1] >= at:
                    j += 1
                order[i:j] = order[i:j][::-1]
                i = j
            else:
                i += 1
    return "".join(c for c, _ in order if not _ignorable(c))


@functools.lru_cache(maxsize=4)
def _font(path: Path | None, size: int):
    from PIL import ImageFont

    from ..constraints.scored import RawPixelScore

    return ImageFont.truetype(str(RawPixelScore(path).font_path()), size,
                              layout_engine=ImageFont.Layout.BASIC)


def _canvas(line: str, font: Path | None, size: int):
    from PIL import Image, ImageDraw

    face = _font(font, size)
    canvas = Image.new("L", (_width(line, font, size), 2 * size))
    ImageDraw.Draw(canvas).text((size // 2, size // 2), line, font=face, fill=255)
    return canvas


@functools.lru_cache(maxsize=65536)
def _width(line: str, font: Path | None, size: int) -> int:
    return max(1, int(_font(font, size).getlength(line)) + 2 * size)


@functools.lru_cache(maxsize=4096)
def render(line: str, font: Path | None = None, size: int = SIZE) -> np.ndarray:
    """``line`` (already displayed) drawn in one row of ``size``-pixel type, as a uint8 image
    (remembered: an original word's window is compared with many candidates')."""
    return np.asarray(_canvas(line, font, size))


@functools.lru_cache(maxsize=4096)
def _pixels(line: str, font: Path | None, size: int) -> bytes:
    """``render``'s image as bytes (its width is ``_width``): comparing them is comparing the
    images."""
    return _canvas(line, font, size).tobytes()


@functools.lru_cache(maxsize=None)
def _advance(ch: str, font: Path | None, size: int = SIZE) -> int:
    return round(_font(font, size).getlength(ch) * 64)  # 26.6 units, exact


@functools.lru_cache(maxsize=None)
def _glyph(ch: str, font: Path | None, size: int = SIZE):
    """What the basic layout takes of ``ch``'s glyph: its hinted advance, its bounding box
    and its ink drawn alone with room on every side (None: ink at the border, never called
    alike)."""
    from PIL import Image, ImageDraw

    face = _font(font, size)
    canvas = Image.new("L", (8 * size, 6 * size))
    ImageDraw.Draw(canvas).text((3 * size, 2 * size), ch, font=face, fill=255)
    ink = np.asarray(canvas)
    if ink[0].any() or ink[-1].any() or ink[:, 0].any() or ink[:, -1].any():
        return None
    return _advance(ch, font, size), face.getbbox(ch), canvas.tobytes()


@functools.lru_cache(maxsize=65536)
def _kerning(a: str, b: str, font: Path | None, size: int = SIZE) -> int:
    """What the basic layout adds to ``a``'s advance before ``b`` (26.6 units)."""
    return round(_font(font, size).getlength(a + b) * 64) - _advance(a, font, size) - \
        _advance(b, font, size)


def _laid_out_alike(a: str, b: str, font: Path | None) -> bool:
    """Whether displayed lines ``a`` and ``b`` provably draw the same canvas without drawing
    them (the module's docstring says why): one length, the differing characters' glyphs
    drawn alike, and every pair around them kerned alike. False says nothing."""
    if len(a) != len(b):
        return False
    differ = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    for i in differ:
        glyph = _glyph(a[i], font)
        if glyph is None or glyph != _glyph(b[i], font):
            return False
    pairs = {j for i in differ for j in (i, i + 1) if 0 < j < len(a)}
    return all(_kerning(a[j - 1], a[j], font) == _kerning(b[j - 1], b[j], font)
               for j in pairs)


def renders_identically(original: str, attacked: str, font: Path | None = None) -> bool:
    """Whether ``attacked`` displays as ``original``, pixel for pixel in ``font``."""
    a, b = displayed(original), displayed(attacked)
    if a is None or b is None:
        return False
    if a == b or _laid_out_alike(a, b, font):
        return True
    return _width(a, font, SIZE) == _width(b, font, SIZE) and \
        _pixels(a, font, SIZE) == _pixels(b, font, SIZE)


@functools.lru_cache(maxsize=65536)
def _same_window(a: str, b: str) -> bool:
    return renders_identically(a, b)


class RendersIdentically(Constraint):
    """Every changed word, with the gaps around it and the characters beyond them (where
    kerning acts), displays as in the original, pixel for pixel: the check behind Boucher et
    al.'s "imperceptible". Windows are compared once and remembered, and the original's
    windows are built once per original (a search checks thousands of its candidates)."""

    name = "renders-identically"

    def __init__(self):
        self._originals = (None, {})  # the last original and its windows by position

    def __getstate__(self):
        return {**self.__dict__, "_originals": (None, {})}

    @staticmethod
    def window(text, position: int) -> str:
        last = len(text) - 1
        return (text.word(position - 1)[-1:] if position else "") + text.gap_before(position) \
            + text.word(position) + text.gap_after(position) + \
            (text.word(position + 1)[:1] if position < last else "")

    def check(self, original, candidate):
        remembered, windows = self._originals
        if remembered is not original:
            windows = {}
            self._originals = original, windows
        for p in candidate.modified:
            before = windows.get(p)
            if before is None:
                before = windows[p] = self.window(original, p)
            if not _same_window(before, self.window(candidate, p)):
                return False
        return True


def same_glyph(a: str, b: str, font: Path | None = None) -> bool:
    """Whether characters ``a`` and ``b`` draw the same pixels, both with ink (the font has
    both), on their own and between two letters."""
    if render(a, font).max() == 0:
        return False
    return all(np.array_equal(render(x, font), render(y, font))
               for x, y in ((a, b), (f"n{a}n", f"n{b}n")))


def codepoints(text: str) -> str:
    """``text`` with every character outside printable ASCII written U+XXXX, for reports."""
    return "".join(c if " " <= c <= "~" else f"<U+{ord(c):04X}>" for c in text)
