"""Batching shared by the training jobs: length buckets and the train/val/test loaders."""
from __future__ import annotations

from itertools import cycle, islice
from typing import Sequence

import numpy as np
from torch.utils.data import DataLoader, Sampler

from train.checks import positive


class BucketBatchSampler(Sampler[list[int]]):
    """Batches of similar length, so padding (and CPU time) stays small.

    Each epoch shuffles the items with ``seed + epoch``, sorts runs of ``bucket`` batches by
    length, cuts them into batches and shuffles the batches; evaluation just sorts.

    Under DDP, ``replicas`` processes each build the same batches and take every ``replicas``-th
    from their ``rank`` on, the list wrapped round so that every rank gets as many batches (a rank
    that ran out first would leave the others waiting for it in the gradient sync). Lightning cannot
    put its distributed sampler into a batch sampler: Trainers using this one are built with
    ``use_distributed_sampler=False``.
    """

    def __init__(self, lengths: Sequence[int], batch_size: int, shuffle: bool, seed: int = 0,
                 bucket: int = 32, replicas: int = 1, rank: int = 0):
        if not 0 <= rank < replicas:
            raise ValueError(f"rank must be in [0, {replicas}), got {rank}")
        self.lengths = np.asarray(lengths)
        self.batch_size, self.shuffle, self.seed, self.bucket = batch_size, shuffle, seed, bucket
        self.replicas, self.rank = replicas, rank
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """Called by Lightning each epoch, so a resumed run sees the same batches."""
        self.epoch = epoch

    def __len__(self) -> int:
        batches = -(-len(self.lengths) // self.batch_size)
        return -(-batches // self.replicas)

    def __iter__(self):
        batches = self._batches()
        wrapped = islice(cycle(batches), len(self) * self.replicas)
        yield from islice(wrapped, self.rank, None, self.replicas)

    def _batches(self) -> list[list[int]]:
        """Every rank's batches of this epoch, in order."""
        if not self.shuffle:
            order = np.argsort(self.lengths, kind="stable")
            return [order[i:i + self.batch_size].tolist()
                    for i in range(0, len(order), self.batch_size)]
        rng = np.random.default_rng([self.seed, self.epoch])
        order = rng.permutation(len(self.lengths))
        run = self.batch_size * self.bucket
        batches = []
        for i in range(0, len(order), run):
            chunk = order[i:i + run]
            chunk = chunk[np.argsort(self.lengths[chunk], kind="stable")]
            batches += [chunk[j:j + self.batch_size].tolist()
                        for j in range(0, len(chunk), self.batch_size)]
        return [batches[k] for k in rng.permutation(len(batches))]


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


class BucketLoaders(SplitLoaders):
    """SplitLoaders over length buckets (``BucketBatchSampler``), sized by ``data.batch_size``,
    ``data.eval_batch_size`` and ``data.bucket``."""

    def _set_sizes(self, batch_size: int, eval_batch_size: int, bucket: int) -> None:
        positive("data", batch_size=batch_size, eval_batch_size=eval_batch_size, bucket=bucket)
        self.batch_size, self.eval_batch_size, self.bucket = batch_size, eval_batch_size, bucket

    def _sampler(self, lengths: Sequence[int], shuffle: bool) -> BucketBatchSampler:
        """Training batches are shared out over the DDP ranks of the attached Trainer; every
        rank evaluates the whole split, so metrics and checkpoint choices agree without syncing."""
        trainer = self.trainer if shuffle else None
        replicas, rank = (trainer.world_size, trainer.global_rank) if trainer else (1, 0)
        return BucketBatchSampler(lengths, self.batch_size if shuffle else self.eval_batch_size,
                                  shuffle, self.seed, self.bucket, replicas, rank)
