"""Batching shared by the training jobs: length buckets and the train/val/test loaders."""
from __future__ import annotations

from typing import Sequence

import numpy as np
from torch.utils.data import DataLoader, Sampler


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


class SplitLoaders:
    """Mixin for a LightningDataModule whose ``_loader(split, shuffle)`` builds every loader."""

    def _loader(self, split: str, shuffle: bool) -> DataLoader:
        raise NotImplementedError

    def train_dataloader(self) -> DataLoader:
        return self._loader("train", True)

    def val_dataloader(self) -> DataLoader:
        return self._loader("val", False)

    def test_dataloader(self) -> DataLoader:
        return self._loader("test", False)
