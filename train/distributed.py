"""Trainers that work the same on one device and under DDP (``trainer=ddp``).

Every DDP rank runs the whole entry point. After the fit, ranks other than 0 stop, and rank 0
tests with a one-process Trainer: with the fit's Trainer each rank would test only its own share
of the split, and each would write the results.
"""
from __future__ import annotations

from pathlib import Path

import pytorch_lightning as pl
from hydra.utils import instantiate
from omegaconf import DictConfig
from pytorch_lightning.loggers import CSVLogger


def bucket_trainer(trainer_cfg: DictConfig, out: str | Path, callbacks) -> pl.Trainer:
    """The fit's Trainer for a job batched by ``train.batching.BucketBatchSampler``, which shares
    its batches out over DDP ranks itself (so no distributed sampler); CSV metrics go to a new
    ``out/logs/version_N`` per run, as a fixed version would wipe them on resume."""
    return instantiate(trainer_cfg, default_root_dir=str(out), callbacks=list(callbacks),
                       logger=CSVLogger(str(out), name="logs"), use_distributed_sampler=False)


def one_device_trainer(trainer_cfg: DictConfig) -> pl.Trainer:
    """A Trainer with the run's settings on one device, for testing; it logs and saves nothing
    (the scores go to the run's ``metrics.json``)."""
    return instantiate(trainer_cfg, devices=1, strategy="auto", logger=False,
                       enable_checkpointing=False)
