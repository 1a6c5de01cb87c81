"""The end of a run under DDP (``trainer=ddp``): one process tests, writes and exports.

Every DDP rank runs the whole entry point. After the fit, ranks other than 0 stop, and rank 0
tests with a one-process Trainer: with the fit's Trainer each rank would test only its own share
of the split, and each would write the results.
"""
from __future__ import annotations

import pytorch_lightning as pl
from hydra.utils import instantiate
from omegaconf import DictConfig


def one_device_trainer(trainer_cfg: DictConfig) -> pl.Trainer:
    """A Trainer with the run's settings on one device, for testing; it logs and saves nothing
    (the scores go to the run's ``metrics.json``)."""
    return instantiate(trainer_cfg, devices=1, strategy="auto", logger=False,
                       enable_checkpointing=False)
