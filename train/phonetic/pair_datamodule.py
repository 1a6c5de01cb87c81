"""Labelled word pairs → padded character batches for the Siamese phonetic embedder."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader

from train.batching import SplitLoaders
from train.checks import positive
from zeroe_assets.phonetic.embedder import CLASSES, CharVocab, pad

from .lexicon import DEFAULT_RATIOS, DEFAULT_SALT, SPLITS, Lexicon
from .pairs import DEFAULT_BOUNDS, PairSet, build_pairs, read_slang


def collate(items):
    a, la = pad([x[0] for x in items])
    b, lb = pad([x[1] for x in items])
    return {"a": a, "a_len": la, "b": b, "b_len": lb,
            "label": torch.tensor([x[2] for x in items], dtype=torch.long)}


class PairDataModule(SplitLoaders, pl.LightningDataModule):
    """Builds the pair set (``pairs.build_pairs``) once and serves it by split.

    Training sees every pair in both orders, so the classifier cannot learn which side is
    the dictionary word; the character vocabulary is that of the training pairs.
    """

    def __init__(self, lexicon: Lexicon, per_class: int = 5000,
                 bounds: Sequence[float] = DEFAULT_BOUNDS, slang: bool | str = True,
                 hard_negatives: float = 0.75, max_bucket: int = 64,
                 split_ratios: Sequence[float] = DEFAULT_RATIOS, split_salt: str = DEFAULT_SALT,
                 batch_size: int = 128, eval_batch_size: int = 1024, seed: int = 0,
                 num_workers: int = 0, save_to: str | None = None):
        super().__init__()
        positive("data", batch_size=batch_size, eval_batch_size=eval_batch_size)
        self.lexicon, self.seed, self.save_to = lexicon, seed, save_to
        self.batch_size, self.eval_batch_size = batch_size, eval_batch_size
        self.num_workers = num_workers
        self.options = dict(per_class=per_class, bounds=tuple(bounds), hard_negatives=hard_negatives,
                            max_bucket=max_bucket, split_ratios=tuple(split_ratios),
                            split_salt=split_salt, seed=seed)
        self.slang = slang
        self.pairs: PairSet | None = None

    def prepare(self) -> PairSet:
        if self.pairs is None:
            slang = ([] if self.slang is False else
                     read_slang(None if self.slang is True else self.slang))
            self.pairs = build_pairs(self.lexicon, slang=slang, **self.options)
            for split in SPLITS:
                if not self.pairs.rows(split):
                    ratios = list(self.options["split_ratios"])
                    raise ValueError(f"no {split} pairs: the lexicon ({len(self.lexicon)} words) "
                                     f"is too small for split ratios {ratios}")
            if self.save_to:
                Path(self.save_to).parent.mkdir(parents=True, exist_ok=True)
                self.pairs.write_tsv(self.save_to)
            train = self.pairs.rows("train")
            self.vocab = CharVocab(sorted({c for i in train for w in (self.pairs.a[i], self.pairs.b[i])
                                           for c in w}))
        return self.pairs

    def class_counts(self) -> list[int]:
        """Training pairs per class (the loss weights classes by their inverse)."""
        pairs = self.prepare()
        counts = np.bincount([pairs.label[i] for i in pairs.rows("train")], minlength=len(CLASSES))
        return counts.tolist()

    def items(self, split: str, both_orders: bool = False):
        pairs, enc = self.prepare(), self.vocab.encode
        out = []
        for i in pairs.rows(split):
            a, b, y = enc(pairs.a[i]), enc(pairs.b[i]), pairs.label[i]
            out.append((a, b, y))
            if both_orders:
                out.append((b, a, y))
        return out

    def setup(self, stage: str | None = None) -> None:
        if not hasattr(self, "data"):
            self.data = {"train": self.items("train", both_orders=True),
                         "val": self.items("val"), "test": self.items("test")}

    def _loader(self, split: str, shuffle: bool) -> DataLoader:
        generator = torch.Generator().manual_seed(self.seed) if shuffle else None
        return DataLoader(self.data[split], self.batch_size if shuffle else self.eval_batch_size,
                          shuffle=shuffle, generator=generator, collate_fn=collate,
                          num_workers=self.num_workers, persistent_workers=self.num_workers > 0)
