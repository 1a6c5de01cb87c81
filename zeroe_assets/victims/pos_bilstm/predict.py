"""The tagger as a benchmark victim: ``predict(sentences) -> UPOS tags``, loaded from a bundle."""
from __future__ import annotations

import os
from typing import Sequence

from ...validate import require_torch

require_torch("the pos-bilstm victim")
import torch  # noqa: E402

from ...assets.victim import load_pos_bundle  # noqa: E402
from .net import BiLSTMTagger  # noqa: E402
from .vocab import TaggerVocab  # noqa: E402


class Tagger:
    """A trained tagger on CPU in eval mode; sentences are batched by length for speed.

    It uses torch's current intra-op thread count; the caller decides how many threads to give it.
    """

    def __init__(self, net, vocab, config: dict, batch_size: int = 256):
        self.net, self.vocab, self.config, self.batch_size = net.eval(), vocab, config, batch_size

    @property
    def tags(self) -> tuple[str, ...]:
        return self.vocab.tags

    def predict(self, sentences: Sequence[Sequence[str]]) -> list[list[str]]:
        """One tag per token for each sentence (an empty sentence gets an empty list)."""
        for sentence in sentences:
            if isinstance(sentence, str):
                raise TypeError("predict takes sentences as lists of tokens, got a string "
                                f"({sentence[:30]!r}); tokenize it first")
        out: list[list[str]] = [[] for _ in sentences]
        order = sorted((i for i, s in enumerate(sentences) if len(s)), key=lambda i: len(sentences[i]))
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                rows = order[start:start + self.batch_size]
                batch = self.vocab.encode([sentences[i] for i in rows])
                best = self.net(**batch).argmax(-1).tolist()
                for i, ids in zip(rows, best):
                    out[i] = self.vocab.decode_tags(ids[:len(sentences[i])])
        return out


def from_bundle(path: str | os.PathLike) -> Tagger:
    """The tagger of a bundle written by ``python -m train.victim``."""
    bundle = load_pos_bundle(path)
    vocab = TaggerVocab.from_dict(bundle.vocab)
    net = BiLSTMTagger(vocab.n_words, vocab.n_chars, len(vocab.tags), **bundle.config["net"])
    net.load_state_dict(bundle.state)
    return Tagger(net, vocab, bundle.config)
