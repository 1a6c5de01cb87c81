"""Glyph-set rules (paper §3.3): which code points count, which font renders them, the cache."""
from __future__ import annotations

import numpy as np
import pytest

from train.visual import glyphs as G
from train.visual.glyphs import GlyphSpec, build_glyphs

from .visual_fixtures import SHAPES, build_font, tiny_font  # noqa: F401


def spec(font, tmp_path, **kw):
    return GlyphSpec(fonts=(str(font),), cache_dir=str(tmp_path / "cache"), **kw)


def chars(glyphs) -> str:
    return "".join(map(chr, glyphs.codepoints.tolist()))


def test_invisible_blank_and_combining_are_excluded(tiny_font, tmp_path):
    g = build_glyphs(spec(tiny_font, tmp_path))
    assert set(chars(g)) == set("aáàAÁoOlI.")  # no space, control, blank 'x' or combining acute
    assert g.images.shape == (len(g), 24, 24) and g.images.dtype == np.uint8
    assert (g.images.reshape(len(g), -1).max(1) >= 64).all()


def test_combining_marks_are_a_config_choice(tiny_font, tmp_path):
    g = build_glyphs(spec(tiny_font, tmp_path, include_marks=True))
    assert "\u0301" in chars(g) and "\u0001" not in chars(g)


def test_glyphs_are_centred_on_a_common_baseline(tiny_font, tmp_path):
    g = build_glyphs(spec(tiny_font, tmp_path))
    img = {ch: g.images[i] for i, ch in enumerate(chars(g))}
    cols = np.flatnonzero(img["o"].max(0))
    assert abs((cols[0] + cols[-1]) / 2 - 11.5) <= 1
    bottom = lambda im: np.flatnonzero(im.max(1))[-1]  # noqa: E731
    assert bottom(img["a"]) == bottom(img["A"]) == bottom(img["."]) == 17  # baseline row 18


def test_letters_sit_where_text_sets_them_not_where_their_ink_is(tmp_path):
    # ĺ's accent overhangs to the left; centring the ink would move its stem off l's stem
    stem = [(250, 0), (330, 0), (330, 750), (250, 750)]
    font = build_font(tmp_path / "stems.ttf", {"l": [stem], "\u013a": [stem, [(-150, 800), (0, 800),
                                                                               (0, 900), (-150, 900)]]})
    g = build_glyphs(spec(font, tmp_path))
    l, l_acute = (g.images[i] for i in g.index_of("l\u013a"))
    assert np.array_equal(l[12:].max(0), l_acute[12:].max(0))  # the stems cover the same columns
    assert l_acute[:4].max() > 0 and l[:4].max() == 0


def test_first_font_in_the_chain_renders(tiny_font, tmp_path):
    other = build_font(tmp_path / "other.ttf", {"a": [[(0, 0), (500, 0), (250, 700)]],
                                                 "b": [[(0, 0), (500, 0), (250, 700)]]})
    g = build_glyphs(GlyphSpec(fonts=(str(tiny_font), str(other)), cache_dir=str(tmp_path)))
    owner = dict(zip(chars(g), g.font_index.tolist()))
    assert owner["a"] == 0 and owner["b"] == 1
    assert g.coverage["by_font"] == {"tiny.ttf": len(g) - 1, "other.ttf": 1}
    assert [f.glyphs for f in g.fonts] == [len(g) - 1, 1] and len(g.fonts[0].sha256) == 64


def test_later_fonts_render_alternates_without_changing_the_glyph_set(tiny_font, tmp_path):
    other = build_font(tmp_path / "other.ttf", {"a": [[(0, 0), (500, 0), (250, 700)]],
                                                 "b": [[(0, 0), (500, 0), (250, 700)]]})
    both = (str(tiny_font), str(other))
    g = build_glyphs(GlyphSpec(fonts=both, cache_dir=str(tmp_path / "with")))
    # 'a' is tiny.ttf's glyph, drawn again by other.ttf; 'b' has no other font
    assert g.alt_rows.tolist() == g.index_of("a") and g.alt_images.shape == (1, 24, 24)
    assert not np.array_equal(g.alt_images[0], g.images[g.index_of("a")[0]])
    assert g.coverage["alternates"] == {"renderings": 1, "glyphs": 1}
    cached = build_glyphs(GlyphSpec(fonts=both, cache_dir=str(tmp_path / "with")))
    assert np.array_equal(cached.alt_images, g.alt_images)
    plain = build_glyphs(GlyphSpec(fonts=both, alternates=False, cache_dir=str(tmp_path / "without")))
    assert len(plain.alt_rows) == 0 and plain.fingerprint == g.fingerprint
    assert np.array_equal(plain.images, g.images)


class Rendered(Exception):
    pass


def test_cache_hit_skips_rendering_and_a_changed_spec_renders_again(tiny_font, tmp_path, monkeypatch):
    first = build_glyphs(spec(tiny_font, tmp_path))

    def render_font(*args):
        raise Rendered

    monkeypatch.setattr(G, "render_font", render_font)
    again = build_glyphs(spec(tiny_font, tmp_path))
    assert again.fingerprint == first.fingerprint and np.array_equal(again.images, first.images)
    with pytest.raises(Rendered):
        build_glyphs(spec(tiny_font, tmp_path, font_px=16))


def test_missing_or_bad_font_files_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nofont.ttf"):
        build_glyphs(GlyphSpec(fonts=(str(tmp_path / "nofont.ttf"),)))
    bogus = tmp_path / "bogus.ttf"
    bogus.write_text("not a font")
    with pytest.raises(ValueError, match="bogus.ttf"):
        build_glyphs(GlyphSpec(fonts=(str(bogus),), cache_dir=str(tmp_path)))


def test_aliases_that_are_not_installed_are_skipped(tiny_font, tmp_path):
    g = build_glyphs(GlyphSpec(fonts=("unifont", str(tiny_font)), font_dirs=(str(tmp_path),),
                               cache_dir=str(tmp_path)))
    assert [f.path for f in g.fonts] == [str(tiny_font.resolve())]
    with pytest.raises(ValueError, match="no font installed"):
        build_glyphs(GlyphSpec(fonts=("unifont",), font_dirs=(str(tmp_path),)))


def test_a_spacing_mark_is_drawn_alone_and_a_wide_glyph_whole(tmp_path):
    # HarfBuzz (Pillow's Raqm layout) would set Devanagari ा (Mc) on the font's dotted circle ◌,
    # which then decides its neighbours; and a glyph wider than any fixed canvas (﷽) must shrink
    # whole, not lose its ends
    bar = [(250, 0), (350, 0), (350, 700), (250, 700)]
    ring = [(0, 300), (500, 300), (500, 400), (0, 400)]
    wide = [(0, 0), (9000, 0), (9000, 100), (0, 100)], [(8600, 0), (9000, 0), (9000, 2000), (8600, 2000)]
    font = build_font(tmp_path / "marks.ttf", {"\u093e": [bar], "\u25cc": [ring], "\ufdfd": list(wide)})
    g = build_glyphs(spec(font, tmp_path))
    mark, long = (g.images[i] for i in g.index_of("\u093e\ufdfd"))
    cols = np.flatnonzero(mark.max(0))
    assert cols[-1] - cols[0] <= 2  # the bar alone, no ring beside it
    assert (long[:, -3:].max(1) > 0).sum() >= 4  # its tall right end kept, not clipped
    assert long[:, :3].max() > 0  # and its left end
