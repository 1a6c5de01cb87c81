"""Early, clear errors for what a user passes in: config numbers and checkpoint files.

A bad value otherwise surfaces deep inside a loader, or only when a long run ends.
"""
from __future__ import annotations

import inspect
from pathlib import Path

import pytorch_lightning as pl
import torch

from zeroe_assets.validate import check_int


def positive(prefix: str, **values) -> None:
    """Raise unless every value is a positive integer, naming its config key ``prefix.name``."""
    for name, value in values.items():
        check_int(f"{prefix}.{name}", value)


def load_module(path: str | Path, cls: type[pl.LightningModule], what: str,
                **given) -> tuple[pl.LightningModule, dict]:
    """``cls`` rebuilt in eval mode from the Lightning checkpoint at ``path``, and the checkpoint.

    Read with ``weights_only=True``, so a checkpoint cannot run code. A checkpoint of another model
    is reported as not being ``what`` rather than as a TypeError from ``cls``; ``given`` are the
    constructor arguments the checkpoint does not store.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint {path} does not exist")
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    hparams = ckpt.get("hyper_parameters") if isinstance(ckpt, dict) else None
    if not hparams or "state_dict" not in ckpt or not _takes(cls, {**hparams, **given}):
        raise ValueError(f"{path} is not {what}")
    model = cls(**hparams, **given)
    model.load_state_dict(ckpt["state_dict"])
    return model.eval(), ckpt


def _takes(cls: type, kwargs: dict) -> bool:
    """Whether ``cls(**kwargs)`` fits its signature (another model's settings do not)."""
    try:
        inspect.signature(cls).bind(**kwargs)
    except TypeError:
        return False
    return True
