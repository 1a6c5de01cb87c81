"""The font chain shared by the glyph set (``train.visual.glyphs``) and by rendering words
(``zeroe_assets.visual.render``): font aliases resolved to installed files in priority order, and
which code points each covers. fontTools is imported on use only."""
from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

ALIASES = ("noto", "dejavu", "unifont")
CHAIN = ALIASES  # the default chain: Noto faces → DejaVu Sans → Unifont
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts")
BMP = range(0x10000)

# Faces tried first inside the Noto family: Latin/Greek/Cyrillic, then the blocks where most
# look-alikes of Latin letters live (math alphanumerics, letterlike symbols, IPA-like symbols).
NOTO_FIRST = ("NotoSans-Regular", "NotoSansMath-Regular", "NotoSansSymbols-Regular",
              "NotoSansSymbols2-Regular")


def _font_files(dirs: tuple[str, ...], pattern: str) -> list[Path]:
    found = []
    for d in dirs:
        root = Path(d).expanduser()
        if root.is_dir():
            found.extend(root.rglob(pattern))
    return sorted(set(found), key=lambda p: (p.name, str(p)))


def alias_fonts(name: str, dirs: tuple[str, ...] = FONT_DIRS) -> list[Path]:
    """The installed files of a font alias, in chain order (empty when not installed)."""
    if name == "noto":
        rank = {stem: i for i, stem in enumerate(NOTO_FIRST)}
        return sorted(_font_files(dirs, "Noto*-Regular.[ot]tf"),
                      key=lambda p: (rank.get(p.stem, len(rank)), p.name))
    if name == "dejavu":
        system = _font_files(dirs, "DejaVuSans.ttf")
        spec = importlib.util.find_spec("matplotlib")  # ships a copy: always there with [train]
        bundled = ([Path(spec.origin).parent / "mpl-data/fonts/ttf/DejaVuSans.ttf"]
                   if spec and spec.origin else [])
        return [p for p in system + bundled if p.is_file()][:1]
    return (_font_files(dirs, "unifont.otf") or _font_files(dirs, "unifont.ttf"))[:1]


def resolve_chain(fonts: tuple[str, ...] = CHAIN, extra_fonts: tuple[str, ...] = (),
                  font_dirs: tuple[str, ...] = FONT_DIRS, warn=None) -> list[Path]:
    """Expand aliases (skipped, with ``warn(message)`` when given, where not installed) and
    check the listed paths; an error when no font is left."""
    chain: list[Path] = []
    entries = [(e, e in ALIASES) for e in fonts] + [(e, False) for e in extra_fonts]
    for entry, is_alias in entries:
        if is_alias:
            paths = alias_fonts(entry, font_dirs)
            if not paths and warn is not None:
                warn(f"font alias {entry!r}: not installed here, skipped")
        else:
            path = Path(entry).expanduser()
            if not path.is_file():
                raise FileNotFoundError(f"font file {path} does not exist")
            paths = [path]
        chain.extend(p.resolve() for p in paths if p.resolve() not in chain)
    if not chain:
        raise ValueError(f"the font chain {list(fonts) + list(extra_fonts)} has no font "
                         "installed here; install fonts-noto-core/fonts-unifont or list font paths")
    return chain


@functools.lru_cache(maxsize=None)
def cmap(path: Path) -> frozenset[int]:
    """The BMP code points ``path`` draws (read once per process)."""
    from fontTools.ttLib import TTFont, TTLibError

    try:
        with TTFont(path, lazy=True, fontNumber=0) as font:
            found = font.getBestCmap() or {}
    except (TTLibError, OSError, ValueError, AssertionError) as e:
        raise ValueError(f"{path} is not a font fontTools can read ({e})") from e
    return frozenset(cp for cp in found if cp in BMP)


__all__ = ["ALIASES", "CHAIN", "FONT_DIRS", "NOTO_FIRST", "alias_fonts", "cmap", "resolve_chain"]
