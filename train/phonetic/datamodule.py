"""Lexicon → padded, length-bucketed batches for the G2P / P2G seq2seq models."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pytorch_lightning as pl
from torch.utils.data import DataLoader, Sampler

from zeroe_assets.g2p import BOS, EOS, Vocab, pad_batch

from .lexicon import DEFAULT_RATIOS, DEFAULT_SALT, Lexicon, split_lexicon, split_summary


class BucketBatchSampler(Sampler[list[int]]):
    """Batches of similar length, so padding (and CPU time) stays small.

    Each epoch shuffles the items with ``seed + epoch``, sorts runs of ``bucket`` batches by
    length, cuts them into batches and shuffles the batches; evaluation just sorts.
    """

    def __init__(self, lengths: Sequence[int], batch_size: int, shuffle: bool, seed: int = 0,
                 bucket: int = 32):
        self.lengths = np.asarray(lengths)
        self.batch_size, self.shuffle, self.seed, self.bucket = batch_size, shuffle, seed, bucket
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """Called by Lightning each epoch, so a resumed run sees the same batches."""
        self.epoch = epoch

    def __len__(self) -> int:
        return -(-len(self.lengths) // self.batch_size)

    def __iter__(self):
        if not self.shuffle:
            order = np.argsort(self.lengths, kind="stable")
            yield from (order[i:i + self.batch_size].tolist()
                        for i in range(0, len(order), self.batch_size))
            return
        rng = np.random.default_rng([self.seed, self.epoch])
        order = rng.permutation(len(self.lengths))
        run = self.batch_size * self.bucket
        batches = []
        for i in range(0, len(order), run):
            chunk = order[i:i + run]
            chunk = chunk[np.argsort(self.lengths[chunk], kind="stable")]
            batches += [chunk[j:j + self.batch_size].tolist()
                        for j in range(0, len(chunk), self.batch_size)]
        for k in rng.permutation(len(batches)):
            yield batches[k]


def collate_train(items):
    src, lengths = pad_batch([s for s, _ in items])
    tgt, _ = pad_batch([[BOS, *t, EOS] for _, t in items])
    return {"src": src, "lengths": lengths, "tgt_in": tgt[:, :-1],
            "tgt_out": tgt[:, 1:]}


def collate_eval(items):
    src, lengths = pad_batch([s for s, _ in items])
    return {"src": src, "lengths": lengths, "refs": [r for _, r in items]}


class Seq2SeqDataModule(pl.LightningDataModule):
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
        self.lexicon, self.direction = lexicon, direction
        self.batch_size, self.eval_batch_size, self.bucket = batch_size, eval_batch_size, bucket
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
        sampler = BucketBatchSampler([len(s) for s, _ in items],
                                     self.batch_size if shuffle else self.eval_batch_size,
                                     shuffle, self.seed, self.bucket)
        return DataLoader(items, batch_sampler=sampler, num_workers=self.num_workers,
                          collate_fn=collate_train if shuffle else collate_eval,
                          persistent_workers=self.num_workers > 0)

    def train_dataloader(self) -> DataLoader:
        return self._loader("train", True)

    def val_dataloader(self) -> DataLoader:
        return self._loader("val", False)

    def test_dataloader(self) -> DataLoader:
        return self._loader("test", False)
