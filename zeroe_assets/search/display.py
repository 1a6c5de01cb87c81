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


def _ignorable(ch: str) -> bool:
    """Unicode's Default_Ignorable_Code_Point, as far as text meets it, and the C0/C1
    controls other than tab (nothing is drawn for them)."""
    cp = ord(ch)
    return (unicodedata.category(ch) == "Cf" or 0x180B <= cp <= 0x180F or
            0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF or cp in (0x034F, 0x115F, 0x1160,
                                                                        0x3164, 0xFFA0) or
            (unicodedata.category(ch) == "Cc" and ch != "\t"))


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
    chars = _erased(text)
    if any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for c in chars):
        return None
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


@functools.lru_cache(maxsize=4096)
def render(line: str, font: Path | None = None, size: int = 18) -> np.ndarray:
    """``line`` (already displayed) drawn in one row of ``size``-pixel type, as a uint8 image
    (remembered: an original word's window is compared with many candidates')."""
    from PIL import Image, ImageDraw

    face = _font(font, size)
    width = max(1, int(face.getlength(line)) + 2 * size)
    canvas = Image.new("L", (width, 2 * size))
    ImageDraw.Draw(canvas).text((size // 2, size // 2), line, font=face, fill=255)
    return np.asarray(canvas)


def renders_identically(original: str, attacked: str, font: Path | None = None) -> bool:
    """Whether ``attacked`` displays as ``original``, pixel for pixel in ``font``."""
    a, b = displayed(original), displayed(attacked)
    if a is None or b is None:
        return False
    if a == b:
        return True
    x, y = render(a, font), render(b, font)
    return x.shape == y.shape and bool(np.array_equal(x, y))


@functools.lru_cache(maxsize=65536)
def _same_window(a: str, b: str) -> bool:
    return renders_identically(a, b)


class RendersIdentically(Constraint):
    """Every changed word, with the gaps around it and the characters beyond them (where
    kerning acts), displays as in the original, pixel for pixel: the check behind Boucher et
    al.'s "imperceptible". Windows are compared once and remembered."""

    name = "renders-identically"

    @staticmethod
    def window(text, position: int) -> str:
        last = len(text) - 1
        return (text.word(position - 1)[-1:] if position else "") + text.gap_before(position) \
            + text.word(position) + text.gap_after(position) + \
            (text.word(position + 1)[:1] if position < last else "")

    def check(self, original, candidate):
        return all(_same_window(self.window(original, p), self.window(candidate, p))
                   for p in candidate.modified)


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
