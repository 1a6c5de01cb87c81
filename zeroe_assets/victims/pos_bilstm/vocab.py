"""Word, character and tag vocabularies, and the one encoding shared by training and prediction."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import torch

# word ids: 0 padding, 1 unknown; char ids: 0 padding, 1 unknown, 2/3 word boundaries.
# Specials are ids, not strings, so no real token or character can collide with them.
PAD, UNK, BOW, EOW = 0, 1, 2, 3
N_WORD_SPECIALS, N_CHAR_SPECIALS = 2, 4


@dataclass(frozen=True)
class TaggerVocab:
    """Lower-cased training words (≥ ``min_count``), characters of the original forms, tags.

    Words are lower-cased because capitalisation is left to the character encoder, which sees
    every form as written (up to ``max_chars``: the first and last halves, where affixes are).
    """

    words: tuple[str, ...]
    chars: tuple[str, ...]
    tags: tuple[str, ...]
    max_chars: int = 32
    _word_id: dict = field(init=False, repr=False, compare=False)
    _char_id: dict = field(init=False, repr=False, compare=False)
    _tag_id: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.max_chars < 2:
            raise ValueError(f"max_chars must be at least 2, got {self.max_chars}")
        for name in ("words", "chars", "tags"):
            items = getattr(self, name)
            if len(set(items)) != len(items):
                raise ValueError(f"duplicate entries in the {name} vocabulary")
        object.__setattr__(self, "_word_id", {w: i for i, w in enumerate(self.words, N_WORD_SPECIALS)})
        object.__setattr__(self, "_char_id", {c: i for i, c in enumerate(self.chars, N_CHAR_SPECIALS)})
        object.__setattr__(self, "_tag_id", {t: i for i, t in enumerate(self.tags)})

    @classmethod
    def build(cls, train: Iterable[tuple[Sequence[str], Sequence[str]]],
              extra_tags: Iterable[str] = (), min_count: int = 2, max_chars: int = 32) -> "TaggerVocab":
        """From the training sentences; ``extra_tags`` (from dev/test) get output classes too,
        so evaluation never fails on a tag the training file happens to lack."""
        words, chars, tags = Counter(), Counter(), Counter()
        for forms, labels in train:
            words.update(f.lower() for f in forms)
            for form in forms:
                chars.update(form)
            tags.update(labels)
        tag_list = sorted(tags)
        tag_list += sorted(set(extra_tags) - set(tag_list))
        return cls(words=tuple(sorted(w for w, n in words.items() if n >= min_count)),
                   chars=tuple(sorted(chars)), tags=tuple(tag_list), max_chars=max_chars)

    @property
    def n_words(self) -> int:
        return len(self.words) + N_WORD_SPECIALS

    @property
    def n_chars(self) -> int:
        return len(self.chars) + N_CHAR_SPECIALS

    def to_dict(self) -> dict:
        return {"words": list(self.words), "chars": list(self.chars), "tags": list(self.tags),
                "max_chars": self.max_chars}

    @classmethod
    def from_dict(cls, data: dict) -> "TaggerVocab":
        return cls(words=tuple(data["words"]), chars=tuple(data["chars"]), tags=tuple(data["tags"]),
                   max_chars=int(data["max_chars"]))

    def tag_ids(self, tags: Sequence[str]) -> list[int]:
        try:
            return [self._tag_id[t] for t in tags]
        except KeyError as err:
            raise ValueError(f"tag {err.args[0]!r} is not in the tagger's tag set "
                             f"{list(self.tags)}") from None

    def decode_tags(self, ids: Iterable[int]) -> list[str]:
        return [self.tags[i] for i in ids]

    def _spell(self, form: str) -> list[int]:
        if len(form) > self.max_chars:
            half = self.max_chars // 2
            form = form[:half] + form[len(form) - (self.max_chars - half):]
        return [BOW, *(self._char_id.get(c, UNK) for c in form), EOW]

    def encode(self, sentences: Sequence[Sequence[str]]) -> dict[str, torch.Tensor]:
        """Padded word ids ``[B, T]`` plus the spelling of each distinct form in the batch once
        (``forms [U, L]``; ``form_index [B, T]`` points into it): repeated words such as *the*
        run through the character encoder once per batch, not once per occurrence."""
        if not sentences or not all(sentences):
            raise ValueError("encode needs a non-empty batch of non-empty sentences")
        width = max(len(s) for s in sentences)
        index: dict[str, int] = {}
        words, form_index = [], []
        for sentence in sentences:
            pad = [PAD] * (width - len(sentence))
            words.append([self._word_id.get(f.lower(), UNK) for f in sentence] + pad)
            form_index.append([index.setdefault(f, len(index)) for f in sentence] + pad)
        spellings = [self._spell(f) for f in index]
        form_len = max(len(s) for s in spellings)
        return {
            "words": torch.tensor(words),
            "lengths": torch.tensor([len(s) for s in sentences]),
            "forms": torch.tensor([s + [PAD] * (form_len - len(s)) for s in spellings]),
            "form_lengths": torch.tensor([len(s) for s in spellings]),
            "form_index": torch.tensor(form_index),
        }
