"""Phonetic attack (paper §3.2 "Phonetic", §3.3): replace a word by a respelling that sounds the
same (night → nite, their → there), drawn uniformly from a prebuilt table (``artifacts/phonetic``).

The table holds, per vocabulary word, the back-transliterations (G2P → P2G n-best), phonetic-index
neighbours, lexicon homophones and slang respellings judged identical or very similar (by the
Siamese embedder, or exactly when the candidate is a lexicon word).
Words outside it are respelled on the fly by the same models when torch and the exported
seq2seq models are there (``oov="auto"``), in batches and cached; otherwise they are not
attackable. Lookups need numpy alone; FAISS and torch load only when asked for.
"""
from __future__ import annotations

import random
import warnings
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np

from ..assets import ArtifactError, Component, default_root, load_component, read_manifest
from ..assets.index import VectorIndex
from .base import Perturber, check_int
from .natural import match_case

COMPONENT = "phonetic"
SOURCES = {"p2g": 1, "index": 2, "slang": 4, "homophone": 8}  # bit flags: a candidate's origins


def stopwords() -> frozenset[str]:
    """The packaged English function words (``data/stopwords.txt``)."""
    text = resources.files("zeroe_assets").joinpath("data/stopwords.txt").read_text(encoding="utf-8")
    return frozenset(w for w in text.splitlines() if w and not w.startswith("#"))


def _lines(data: str) -> list[str]:
    return data.split("\n")[:-1] if data else []


@dataclass(frozen=True)
class PhoneticTable:
    """Per word ``words[i]``: candidates ``candidates[offsets[i]:offsets[i + 1]]``, best first,
    with the embedder's score (P(identical) + P(very similar)) and their ``SOURCES`` flags."""

    words: list[str]
    offsets: np.ndarray
    candidates: list[str]
    scores: np.ndarray
    sources: np.ndarray

    def __post_init__(self):
        n, m, off = len(self.words), len(self.candidates), self.offsets
        problem = None
        if off.ndim != 1 or len(off) != n + 1:
            problem = f"{len(off)} offsets for {n} words (need words + 1)"
        elif n and (off[0] != 0 or off[-1] != m or np.any(np.diff(off.astype(np.int64)) < 0)):
            problem = f"offsets are not an increasing cover of the {m} candidates"
        elif len(self.scores) != m or len(self.sources) != m:
            problem = f"{m} candidates but {len(self.scores)} scores and {len(self.sources)} sources"
        if problem:
            raise ValueError(f"corrupt phonetic table: {problem}")

    def __len__(self) -> int:
        return len(self.words)

    def row(self, i: int) -> list[tuple[str, float, int]]:
        s, e = int(self.offsets[i]), int(self.offsets[i + 1])
        return list(zip(self.candidates[s:e], self.scores[s:e].tolist(), self.sources[s:e].tolist()))

    def options(self) -> dict[str, tuple[str, ...]]:
        """Word → its candidates, for words that have any (what the perturber draws from)."""
        off, cands = self.offsets.tolist(), self.candidates
        return {w: tuple(cands[off[i]:off[i + 1]]) for i, w in enumerate(self.words)
                if off[i + 1] > off[i]}

    @classmethod
    def build(cls, words: Sequence[str], rows: Sequence[Sequence[tuple[str, float, int]]]):
        """From one list of ``(candidate, score, sources)`` per word."""
        if any("\n" in s for s in words) or any("\n" in c for r in rows for c, _, _ in r):
            raise ValueError("words and candidates must not contain newlines")
        offsets = np.zeros(len(words) + 1, dtype=np.uint32)
        offsets[1:] = np.cumsum([len(r) for r in rows])
        flat = [c for r in rows for c in r]
        return cls(list(words), offsets, [c for c, _, _ in flat],
                   np.array([s for _, s, _ in flat], dtype=np.float16),
                   np.array([f for _, _, f in flat], dtype=np.uint8))

    def files(self) -> dict[str, bytes]:
        from ..assets import npy_bytes

        return {"words.txt": "".join(w + "\n" for w in self.words).encode(),
                "table.offsets.npy": npy_bytes(self.offsets),
                "table.candidates.txt": "".join(c + "\n" for c in self.candidates).encode(),
                "table.scores.npy": npy_bytes(self.scores),
                "table.sources.npy": npy_bytes(self.sources)}

    @classmethod
    def from_component(cls, component: Component) -> "PhoneticTable":
        try:
            return cls(_lines(component.file("words.txt").read_text(encoding="utf-8")),
                       component.load_npy("table.offsets.npy"),
                       _lines(component.file("table.candidates.txt").read_text(encoding="utf-8")),
                       component.load_npy("table.scores.npy"),
                       component.load_npy("table.sources.npy"))
        except (ValueError, UnicodeDecodeError) as e:
            raise ArtifactError(f"{component.path}: {e}; re-run `python -m train.export phonetic "
                                "ckpt=PATH`") from e


class PhoneticSpace:
    """The loaded phonetic assets: the table, and on demand the FAISS index and the embedder."""

    def __init__(self, root: Path | None = None):
        self.root = root
        self.component = load_component(COMPONENT, root)
        self.table = PhoneticTable.from_component(self.component)
        self.options = self.table.options()
        self.rows = {w: i for i, w in enumerate(self.table.words)}
        self._index: VectorIndex | None = None
        # out-of-vocabulary words already respelled, per decoding settings: shared by every
        # perturber on these assets, and by worker processes forked after a batch was decoded
        self.respelled: dict[tuple, dict[str, tuple[str, ...]]] = {}

    @property
    def index(self) -> VectorIndex:
        if self._index is None:
            self._index = VectorIndex.from_component(self.component, "index")
            if len(self._index) != len(self.table):
                raise ArtifactError(f"{self.component.path}: the index has {len(self._index)} "
                                    f"vectors for {len(self.table)} words; re-run the export")
        return self._index

    def _vector(self, word: str) -> np.ndarray:
        row = self.rows.get(word.lower())
        if row is not None:
            return self.index.index.reconstruct(row)
        try:
            from ..embedder import load_embedder
        except ImportError as e:
            raise ValueError(f"{word!r} is not in the phonetic vocabulary, and embedding a new "
                             f"word needs torch ({e})") from None
        from ..assets.index import normalise

        return normalise(load_embedder(self.root).embed([word]))[0]

    def neighbours(self, word: str, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` vocabulary words nearest to ``word`` in the phonetic space, with cosine
        similarity; ``word`` itself is left out."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if not word.strip():
            raise ValueError("give a word")
        keys, scores = self.index.search(self._vector(word), k + 1)
        words, low = self.table.words, word.lower()
        found = [(words[r], s) for r, s in zip(keys.tolist(), scores.tolist()) if words[r] != low]
        return found[:k]

    def all_neighbours(self, k: int = 10, chunk: int = 4096) -> Iterator[tuple[str, list[str]]]:
        """Every vocabulary word with its ``k`` nearest words: exact search over the stored
        vectors, chunk by chunk (the quantised index is for single queries)."""
        import faiss

        n = len(self.table)
        if not 1 <= k < n:
            raise ValueError(f"k must be between 1 and {n - 1}, got {k}")
        vectors = self.index.index.reconstruct_n(0, n)
        exact = faiss.IndexFlatIP(vectors.shape[1])
        exact.add(vectors)
        words = self.table.words
        for start in range(0, n, chunk):
            _, ids = exact.search(vectors[start:start + chunk], k + 1)
            for i, row in enumerate(ids.tolist(), start):
                yield words[i], [words[j] for j in row if j != i][:k]


_SPACES: dict[tuple, PhoneticSpace] = {}


def load_phonetic(root: Path | str | None = None) -> PhoneticSpace:
    """The phonetic assets under ``root``, loaded and verified once per process (and again when
    a new export replaces them)."""
    root = Path(root) if root else default_root()
    entry = read_manifest(root)["components"].get(COMPONENT)
    if entry is None:  # load_component words the error and says how to rebuild
        load_component(COMPONENT, root)
    key = (root.resolve(), entry.get("created", ""), str(entry["files"].get("table.offsets.npy")))
    if key not in _SPACES:
        _SPACES[key] = PhoneticSpace(root)
    return _SPACES[key]


def _key(word: str) -> str:
    """How the table spells ``word``: lower case, with straight apostrophes (teacher’s)."""
    return word.lower().replace("\u2019", "'")


class _Respeller:
    """Out-of-vocabulary words through G2P → P2G n-best → the embedder's filter (needs torch),
    with the settings the table was exported with unless overridden."""

    def __init__(self, root: Path | None, settings: dict):
        from ..embedder import load_embedder
        from ..g2p import load_transliterator

        self.g2p, self.p2g = load_transliterator("g2p", root), load_transliterator("p2g", root)
        self.embedder = load_embedder(root)
        self.settings = settings

    def can_spell(self, word: str) -> bool:
        """Whether the G2P model knows every letter of ``word`` (café: no), so it may respell it."""
        return any(c.isalpha() for c in word) and self.g2p.src_vocab.knows(word)

    def __call__(self, words: list[str]) -> list[tuple[str, ...]]:
        from ..embedder import SOUND_ALIKE, back_transliterate, sound_alikes

        get = self.settings.get
        cands = back_transliterate(self.g2p, self.p2g, words, get("n_best", 5), get("beam", 5),
                                   precision=get("precision", "auto"))
        kept = sound_alikes(self.embedder, words, cands, get("keep", SOUND_ALIKE),
                            get("min_score", 0.5))
        return [tuple(c for c, _ in k[:get("max_candidates", 8)]) for k in kept]


class PhoneticPerturber(Perturber):
    """Options: ``skip_stopwords`` (function words stay, as in the reference), ``oov`` ("auto":
    respell words outside the table when torch and the seq2seq models are there; "off"), and
    the OOV path's ``n_best``/``beam`` (default: the export's)."""

    name = "phonetic"
    description = "replace a word by a sound-alike respelling (G2P→P2G, Siamese phonetic embedder)"
    prepares = True

    def __init__(self, root: Path | str | None = None, skip_stopwords: bool = True,
                 oov: str = "auto", n_best: int | None = None, beam: int | None = None):
        if oov not in ("auto", "off"):
            raise ValueError(f"oov must be 'auto' (respell unknown words when torch and the "
                             f"seq2seq models are there) or 'off', got {oov!r}")
        n_best, beam = (None if v is None else check_int(k, v) for k, v in
                        (("n_best", n_best), ("beam", beam)))
        self.root = Path(root) if root else None
        self.space = load_phonetic(root)
        self.skip = stopwords() if skip_stopwords else frozenset()
        self.oov = oov
        # the OOV path decodes like the export did (its config is in the manifest)
        self.settings = dict(self.space.component.meta.get("export_config") or {})
        self.settings.update({k: v for k, v in (("n_best", n_best), ("beam", beam))
                              if v is not None})
        self.respelled = (self.space.respelled.setdefault(
            tuple(sorted((k, str(v)) for k, v in self.settings.items())), {})
            if oov == "auto" else {})  # oov="off": only the table, whatever others decoded
        # one dict for the hot path: table words, OOV words decoded so far, stopwords (no draw)
        self.lookup: dict[str, tuple[str, ...]] = {**self.space.options, **self.respelled,
                                                   **dict.fromkeys(self.skip, ())}
        self._respeller: _Respeller | None = None

    def _can_respell(self) -> bool:
        """Loads the OOV models on first need; False (warned once) when they cannot load."""
        if self.oov == "off":
            return False
        if self._respeller is None:
            try:
                self._respeller = _Respeller(self.root, self.settings)
            except (ImportError, ArtifactError) as e:
                warnings.warn(f"phonetic: words outside the table are not attackable ({e}); "
                              "respelling them needs torch and the seq2seq models",
                              stacklevel=3)
                self.oov = "off"
                return False
        return True

    def prepare(self, words: Iterable[str]) -> int:
        """Respell the new out-of-vocabulary words of ``words`` in one batch and cache them
        (``perturb_word`` does this one word at a time); returns how many were decoded."""
        lookup, shared = self.lookup, self.respelled
        todo = sorted({low for low in map(_key, words) if low not in lookup})
        lookup.update((w, shared[w]) for w in todo if w in shared)  # decoded by another perturber
        todo = [w for w in todo if w not in shared]
        if not todo:
            return 0
        if not self._can_respell():
            lookup.update(dict.fromkeys(todo, ()))
            return 0
        letters = [w for w in todo if self._respeller.can_spell(w)]
        found = dict.fromkeys(todo, ())
        found.update(zip(letters, self._respeller(letters)))
        shared.update(found)
        lookup.update(found)
        return len(letters)

    def respellings(self, word: str) -> tuple[str, ...]:
        """The respellings ``word`` may get (lower case, straight apostrophes); empty when it is
        not attackable."""
        low = _key(word)
        if low not in self.lookup:
            self.prepare([low])
        return self.lookup[low]

    def can_change(self, word: str) -> bool:
        low = _key(word)
        if low in self.lookup:
            return bool(self.lookup[low])
        return (any(c.isalpha() for c in low) and self._can_respell()
                and self._respeller.can_spell(low))

    def perturb_word(self, word: str, phi: float, rng: random.Random) -> str:
        found = self.lookup.get(_key(word))
        if found is None:
            found = self.respellings(word)
        if not found:
            return word
        new = match_case(word, found[int(rng.random() * len(found))])
        return new.replace("'", "\u2019") if "\u2019" in word else new  # the text's apostrophe

    def __repr__(self) -> str:
        return (f"PhoneticPerturber(skip_stopwords={bool(self.skip)}, oov={self.oov!r}, "
                f"words={len(self.space.options)})")


__all__ = ["COMPONENT", "SOURCES", "PhoneticPerturber", "PhoneticSpace", "PhoneticTable",
           "load_phonetic", "stopwords"]
