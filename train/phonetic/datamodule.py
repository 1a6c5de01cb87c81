"""Lexicon → padded, length-bucketed batches for the G2P / P2G seq2seq models."""
from __future__ import annotations

from typing import Sequence

import pytorch_lightning as pl
from torch.utils.data import DataLoader

from train.batching import BucketLoaders
from zeroe_assets.phonetic.seq2seq import BOS, EOS, Vocab, pad_batch

from .lexicon import DEFAULT_RATIOS, DEFAULT_SALT, Lexicon, split_lexicon, split_summary


def collate_train(items):
    src, lengths = pad_batch([s for s, _ in items])
    tgt, _ = pad_batch([[BOS, *t, EOS] for _, t in items])
    return {"src": src, "lengths": lengths, "tgt_in": tgt[:, :-1],
            "tgt_out": tgt[:, 1:]}


def collate_eval(items):
    src, lengths = pad_batch([s for s, _ in items])
    return {"src": src, "lengths": lengths, "refs": [r for _, r in items]}


class Seq2SeqDataModule(BucketLoaders, pl.LightningDataModule):
    """Word↔pronunciation pairs in one direction over the shared word split.

    Training sees every (source, target) pair; evaluation sees each distinct source once with
    all its references from the same split (any of them counts as right).
    """

    def __init__(self, lexicon: Lexicon, direction: str = "g2p", batch_size: int = 256,
                 eval_batch_size: int = 512, bucket: int = 32,
                 split_ratios: Sequence[float] = DEFAULT_RATIOS, split_salt: str = DEFAULT_SALT,
                 seed: int = 0, num_workers: int = 0):
        super().__init__()
        if direction not in ("g2p", "p2g"):
            raise ValueError(f"direction must be 'g2p' or 'p2g', got {direction!r}")
        self._set_sizes(batch_size, eval_batch_size, bucket)
        self.lexicon, self.direction = lexicon, direction
        self.split_ratios, self.split_salt = tuple(split_ratios), split_salt
        self.seed, self.num_workers = seed, num_workers
        letters, phones = Vocab(lexicon.letters()), Vocab(lexicon.phones())
        self.src_vocab, self.tgt_vocab = (letters, phones) if direction == "g2p" else (phones, letters)
        self.splits = split_lexicon(lexicon, self.split_ratios, split_salt)
        for name, part in self.splits.items():
            if not part.entries:
                raise ValueError(f"the {name} split of {lexicon.source} is empty; use a bigger "
                                 f"lexicon or other split ratios than {list(self.split_ratios)}")

    def summary(self) -> dict:
        return split_summary(self.splits, self.split_ratios, self.split_salt)

    def _pairs(self, split: str):
        for word, pron in self.splits[split].pairs():
            yield (tuple(word), pron) if self.direction == "g2p" else (pron, tuple(word))

    def train_items(self) -> list[tuple[list[int], list[int]]]:
        return [(self.src_vocab.encode(s), self.tgt_vocab.encode(t)) for s, t in self._pairs("train")]

    def eval_items(self, split: str) -> list[tuple[list[int], tuple[tuple[str, ...], ...]]]:
        """Distinct sources with all their references (token tuples) from ``split``."""
        refs: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
        for s, t in self._pairs(split):
            refs.setdefault(s, []).append(t)
        return [(self.src_vocab.encode(s), tuple(r)) for s, r in refs.items()]

    def setup(self, stage: str | None = None) -> None:
        if not hasattr(self, "data"):
            self.data = {"train": self.train_items(), "val": self.eval_items("val"),
                         "test": self.eval_items("test")}

    def _loader(self, split: str, shuffle: bool) -> DataLoader:
        items = self.data[split]
        return DataLoader(items, batch_sampler=self._sampler([len(s) for s, _ in items], shuffle),
                          num_workers=self.num_workers,
                          collate_fn=collate_train if shuffle else collate_eval,
                          persistent_workers=self.num_workers > 0)
