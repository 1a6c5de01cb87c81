"""The packaged data (keyboard layout, stopwords, slang; codespell's misspellings and
pyspellchecker's word lists) and the
readers of the substitution resources (keyboard layouts, misspelling lists), cached per process:
one home for what perturbers, restorers and constraints all read."""
from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

from .compiled import compiled

_HERE = Path(__file__).parent


def numbered_lines(path: Path):
    """(number, line) of each line of the UTF-8 text file ``path``: a missing file or invalid
    UTF-8 is a one-line ValueError naming the file (every reader of a user's text file here)."""
    try:
        with open(path, encoding="utf-8") as f:
            yield from enumerate(f, 1)
    except FileNotFoundError:
        raise ValueError(f"no such file: {path}") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is not UTF-8 text ({e})") from None


def data_path(name: str) -> Path:
    """A file of this package (``zeroe_assets/data/NAME``): next to this module, found without
    ``importlib.resources``, whose imports (zipfile, tempfile, shutil …) were a tenth of a
    rule-based ``zeroe perturb``'s start-up."""
    return _HERE / name


def codespell_dictionary() -> Path:
    """codespell's misspelling dictionary (``wrong->right``), shipped with the package: found
    by the package's spec, without running codespell's ``__init__`` (which imports its whole
    command line)."""
    spec = importlib.util.find_spec("codespell_lib")
    if spec is None or not spec.submodule_search_locations:
        raise ValueError("natural-typo needs codespell's dictionary: pip install codespell")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "dictionary.txt"


def spellchecker_path(language: str) -> Path:
    """pyspellchecker's gzipped word frequency list of ``language`` (en, fr, de …), found by the
    package's spec as `codespell_dictionary` is."""
    spec = importlib.util.find_spec("spellchecker")
    if spec is None or not spec.submodule_search_locations:
        raise ValueError("pyspellchecker is not installed (pip install pyspellchecker)")
    return Path(next(iter(spec.submodule_search_locations))) / "resources" / f"{language}.json.gz"


def spellchecker_text(path: Path) -> str:
    """The JSON text (``{"word": count, …}``, OpenSubtitles counts) of the list at ``path``
    (`spellchecker_path`); not cached: each reader keeps what it needs, compiled (`compiled`)
    where it is read at every start."""
    import gzip

    return gzip.decompress(path.read_bytes()).decode("utf-8")


@functools.lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """The English function words (``data/stopwords.txt``, 178: articles, pronouns, auxiliaries,
    prepositions, conjunctions, contractions) that the phonetic perturber, its restorer and the
    search's stopword constraint leave alone."""
    text = data_path("stopwords.txt").read_text(encoding="utf-8")
    return frozenset(w for w in text.splitlines() if w and not w.startswith("#"))


@functools.lru_cache(maxsize=8)
def read_neighbour_list(path: Path) -> dict[str, tuple[str, ...]]:
    """``key n1 n2 …`` per line (Belinkov & Bisk's ``en.key``); ``#`` starts a comment."""
    table: dict[str, tuple[str, ...]] = {}
    for number, line in numbered_lines(path):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        key, *values = fields
        if len(key) != 1 or any(len(v) != 1 for v in values):
            raise ValueError(f"{path}:{number}: expected single characters `key n1 n2 …`, "
                             f"got {line.strip()!r}")
        merged = table.get(key.lower(), ()) + tuple(v.lower() for v in values)
        table[key.lower()] = tuple(dict.fromkeys(v for v in merged if v != key.lower()))
    if not table:
        raise ValueError(f"{path} contains no `key n1 n2 …` lines")
    return table


@functools.lru_cache(maxsize=8)
def read_misspellings(path: Path) -> dict[str, tuple[str, ...]]:
    """correct word → its misspellings, all lower-cased, from either supported format.

    codespell's ``wrong->right`` dictionary is inverted, keeping entries with one single-word
    correction; Belinkov & Bisk's ``en.natural`` is ``correct typo1 typo2 …``. Read once per
    file and kept compiled in the user's cache (`compiled`): natural-typo reads codespell's
    65k lines at every start.
    """
    return compiled(_read_misspellings, Path(path))


def _read_misspellings(path: Path) -> dict[str, tuple[str, ...]]:
    """`read_misspellings` from the file itself."""
    table: dict[str, dict[str, None]] = {}
    for number, line in numbered_lines(path):
        line = line.strip()
        if not line or line[0] == "#":
            continue
        wrong, arrow, right = line.partition("->")
        if arrow:  # a codespell line: one typo, no list (natural-typo reads 65k at each start)
            right, wrong = right.strip().rstrip(","), wrong.strip()
            if "," in right or " " in right or " " in wrong or not right:
                continue
            key, typo = right.lower(), wrong.lower()
            bucket = table.get(key)  # (setdefault would build a dict for every line)
            if bucket is None:
                bucket = table[key] = {}
            if typo != key:
                bucket[typo] = None
            continue
        correct, *typos = line.split()
        if not typos:
            raise ValueError(f"{path}:{number}: expected `correct typo1 typo2 …` or "
                             f"`wrong->right`, got {line!r}")
        key = correct.lower()
        bucket = table.setdefault(key, {})
        for typo in typos:
            if typo.lower() != key:
                bucket[typo.lower()] = None
    out = {k: tuple(v) for k, v in table.items() if v}
    if not out:
        raise ValueError(f"{path} contains no misspellings")
    return out
