"""The glyph set (paper §3.3): visible BMP code points covered by a font chain, rendered 24×24.

The first font in the chain whose cmap covers a code point renders it. The chain's other fonts
that cover it render *alternates*: the same letter in another design (serif, bitmap), which
training uses as views of that glyph, because a reader recognises a letter in any typeface.
Rendering the whole plane takes seconds, but the result is still cached as arrays keyed by a
fingerprint of everything that changes the pixels (font files, sizes, category rules, versions).
"""
from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from zeroe_assets.assets import atomic_write, sha256_file
from zeroe_assets.visual import fonts as chain_fonts
from zeroe_assets.visual.glyphs import render_font

log = logging.getLogger(__name__)

RENDER_VERSION = 3  # bump when the rendering code changes the pixels
INVISIBLE = ("Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp")
MARKS = ("Mn", "Me")
BMP = chain_fonts.BMP

@dataclass(frozen=True)
class GlyphSpec:
    """Everything that decides which glyphs exist and how they look; hashed into the cache key."""

    fonts: tuple[str, ...] = chain_fonts.CHAIN  # aliases or paths, in priority order
    extra_fonts: tuple[str, ...] = ()  # paths appended to the chain; must exist
    font_dirs: tuple[str, ...] = chain_fonts.FONT_DIRS
    size: int = 24
    font_px: int = 18  # pixels per em
    baseline: int = 18  # row of the baseline, so that commas sit low and apostrophes high
    include_marks: bool = False
    min_ink: int = 64  # glyphs whose darkest pixel is fainter than this count as blank
    alternates: bool = True  # also render each glyph in the chain's later fonts that cover it
    cache_dir: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "fonts", tuple(self.fonts))
        object.__setattr__(self, "extra_fonts", tuple(self.extra_fonts))
        object.__setattr__(self, "font_dirs", tuple(self.font_dirs))
        if not 0 < self.baseline <= self.size:
            raise ValueError(f"baseline must lie inside the {self.size}px canvas, got {self.baseline}")

    def excluded_categories(self) -> tuple[str, ...]:
        return INVISIBLE if self.include_marks else INVISIBLE + MARKS


@dataclass
class FontInfo:
    path: str
    sha256: str
    glyphs: int = 0


@dataclass
class GlyphSet:
    """Rendered glyphs: ``images[i]`` (uint8, ink = 255) shows ``chr(codepoints[i])``;
    ``alt_images[j]`` shows the same character as row ``alt_rows[j]`` in another font."""

    images: np.ndarray
    codepoints: np.ndarray
    font_index: np.ndarray
    fonts: list[FontInfo]
    spec: GlyphSpec
    fingerprint: str
    coverage: dict = field(default_factory=dict)
    alt_images: np.ndarray | None = None  # None: no alternates (an empty stack of glyph-sized images)
    alt_rows: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def __post_init__(self):
        if self.alt_images is None:
            self.alt_images = np.zeros((0, *self.images.shape[1:]), np.uint8)

    def __len__(self) -> int:
        return len(self.codepoints)

    def index_of(self, chars: str) -> list[int]:
        """Row of each character that has a glyph (others are skipped)."""
        pos = {int(c): i for i, c in enumerate(self.codepoints)}
        return [pos[ord(ch)] for ch in chars if ord(ch) in pos]

    def meta(self) -> dict:
        return {"fingerprint": self.fingerprint, "count": len(self), "spec": spec_dict(self.spec),
                "fonts": [asdict(f) for f in self.fonts], "coverage": self.coverage}


def spec_dict(spec: GlyphSpec) -> dict:
    d = asdict(spec)
    d.pop("cache_dir")
    return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


def visible(ch: str, spec: GlyphSpec) -> bool:
    return unicodedata.category(ch) not in spec.excluded_categories()


def resolve_chain(spec: GlyphSpec) -> list[Path]:
    """The spec's font chain (``zeroe_assets.visual.fonts``), aliases not installed skipped."""
    return chain_fonts.resolve_chain(spec.fonts, spec.extra_fonts, spec.font_dirs,
                                     warn=log.warning)


def fingerprint(spec: GlyphSpec, fonts: list[FontInfo]) -> str:
    import PIL
    from PIL import features

    # alternates are training views only: they do not change the glyph set an index is built on
    pixels = {k: v for k, v in spec_dict(spec).items() if k != "alternates"}
    key = {"spec": pixels, "fonts": [f.sha256 for f in fonts], "render": RENDER_VERSION,
           "unicode": unicodedata.unidata_version, "pillow": PIL.__version__,
           "freetype": features.version("freetype2")}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


# Combining diacritics that sit on a letter (canonical combining class: above; below; attached
# below, as cedilla and ogonek), from the Combining Diacritical Marks block without its medieval
# superscript letters (U+0363 on) and overlays such as U+0338, which strike through the letter.
DIACRITICS = range(0x300, 0x363)
ABOVE, BELOW = (230,), (220, 202)


def diacritics(spec: GlyphSpec) -> tuple[list[np.ndarray], list[bool]]:
    """The chain's combining diacritics, each as its ink (uint8, cropped), and whether it hangs
    below the letter. Training stamps them on glyphs because a reader sees á as a with a mark;
    drawn by the fonts the glyphs come from, they look like the marks of real accented letters.
    Each is drawn by the first font of the chain that covers it, else by DejaVu Sans."""
    todo = [cp for cp in DIACRITICS if unicodedata.combining(chr(cp)) in ABOVE + BELOW]
    inks, below = [], []
    for path in resolve_chain(spec) + chain_fonts.alias_fonts("dejavu", spec.font_dirs):
        if not todo:  # the first faces usually have them all: read no more cmaps
            break
        covered = chain_fonts.cmap(path)
        mine = [cp for cp in todo if cp in covered]
        todo = [cp for cp in todo if cp not in covered]
        images, kept = render_font(path, mine, spec)
        for image, cp in zip(images, kept):
            rows, cols = np.flatnonzero(image.max(1)), np.flatnonzero(image.max(0))
            inks.append(image[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1])
            below.append(unicodedata.combining(chr(cp)) in BELOW)
    return inks, below


def _cache_dir(spec: GlyphSpec) -> Path:
    if spec.cache_dir:
        return Path(spec.cache_dir).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "~/.cache")
    return Path(base).expanduser() / "zeroe" / "glyphs"


def coverage(codepoints: np.ndarray, fonts: list[FontInfo], spec: GlyphSpec) -> dict:
    """Glyph count, its share of the assigned and of the visible BMP code points, and per font."""
    cats = [unicodedata.category(chr(cp)) for cp in BMP]
    assigned = sum(c != "Cn" for c in cats)
    seen = sum(c not in spec.excluded_categories() for c in cats)
    return {"glyphs": len(codepoints), "assigned_bmp": assigned, "visible_bmp": seen,
            "share_of_assigned": round(len(codepoints) / assigned, 4),
            "share_of_visible": round(len(codepoints) / seen, 4),
            "by_font": {Path(f.path).name: f.glyphs for f in fonts if f.glyphs}}


def build_glyphs(spec: GlyphSpec) -> GlyphSet:
    """Resolve the chain, then load the cached rendering for its fingerprint or render it."""
    chain = resolve_chain(spec)
    fonts = [FontInfo(str(p), sha256_file(p)) for p in chain]
    fp = fingerprint(spec, fonts)
    cache = _cache_dir(spec) / f"glyphs-{fp}.npz"
    if cache.is_file() and cache.with_suffix(".json").is_file():
        meta = json.loads(cache.with_suffix(".json").read_text())
        arrays = _load(cache, ("images", "codepoints", "font_index"))
        fonts = [FontInfo(**f) for f in meta["fonts"]]
        glyphs = GlyphSet(**arrays, fonts=fonts, spec=spec, fingerprint=fp,
                          coverage=coverage(arrays["codepoints"], fonts, spec))
        log.info("glyph cache hit %s", cache)
    else:
        glyphs = _render(spec, chain, fonts, fp)
        meta = {"fonts": [asdict(f) for f in glyphs.fonts], "spec": spec_dict(spec)}
        _save(cache, images=glyphs.images, codepoints=glyphs.codepoints,
              font_index=glyphs.font_index)
        atomic_write(cache.with_suffix(".json"), json.dumps(meta, indent=1).encode())
    if spec.alternates:
        # a separate file: the index's glyph set (and its fingerprint) is the same with or without
        alt = cache.with_name(f"glyphs-{fp}-alternates.npz")
        if alt.is_file():
            arrays = _load(alt, ("alt_images", "alt_rows"))
        else:
            images, rows = _alternates(spec, chain, glyphs.codepoints, glyphs.font_index)
            arrays = {"alt_images": images, "alt_rows": rows}
            _save(alt, **arrays)
        glyphs.alt_images, glyphs.alt_rows = arrays["alt_images"], arrays["alt_rows"]
        glyphs.coverage["alternates"] = {"renderings": len(glyphs.alt_rows),
                                         "glyphs": int(len(np.unique(glyphs.alt_rows)))}
    log.info("glyph coverage: %s", json.dumps(glyphs.coverage))
    return glyphs


def _render(spec: GlyphSpec, chain: list[Path], fonts: list[FontInfo], fp: str) -> GlyphSet:
    done: set[int] = set()
    parts, cps, owner = [], [], []
    for i, path in enumerate(chain):
        todo = sorted(cp for cp in chain_fonts.cmap(path) - done if visible(chr(cp), spec))
        images, kept = render_font(path, todo, spec)
        done.update(todo)  # a blank rendering in the first covering font is final: it is that font's glyph
        parts.append(images)
        cps.extend(kept)
        owner.extend([i] * len(kept))
        fonts[i].glyphs = len(kept)
    order = np.argsort(cps, kind="stable")
    images = np.concatenate(parts)[order]
    codepoints = np.asarray(cps, np.uint32)[order]
    font_index = np.asarray(owner, np.uint16)[order]
    return GlyphSet(images, codepoints, font_index, fonts, spec, fp,
                    coverage(codepoints, fonts, spec))


def _alternates(spec: GlyphSpec, chain: list[Path], codepoints: np.ndarray,
                font_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each glyph rendered by the chain's later fonts that cover it, with the row it belongs to."""
    row = {int(cp): i for i, cp in enumerate(codepoints.tolist())}
    parts, rows = [], []
    for i, path in enumerate(chain):
        todo = sorted(cp for cp in chain_fonts.cmap(path) if cp in row and font_index[row[cp]] < i)
        images, kept = render_font(path, todo, spec)
        parts.append(images)
        rows.extend(row[cp] for cp in kept)
    images = np.concatenate(parts) if parts else np.zeros((0, spec.size, spec.size), np.uint8)
    return images, np.asarray(rows, np.int64)


def _load(path: Path, keys: tuple[str, ...]) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in keys}


def _save(path: Path, **arrays: np.ndarray) -> None:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    atomic_write(path, buf.getvalue())
