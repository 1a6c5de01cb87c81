"""The ranker as a LightningModule: the runtime's log-linear model (`zeroe_assets.shield.ranker`)
with one weight per feature, fit by cross-entropy over each token's readings."""
from __future__ import annotations

from typing import Callable

import numpy as np
import pytorch_lightning as pl
import torch
import torch.nn.functional as F

from zeroe_assets.shield.features import FEATURES
from zeroe_assets.shield.ranker import hand_set_ranker

INITS = ("hand_set", "zeros")


class RankerModule(pl.LightningModule):
    """A linear layer without bias (a shift of all a token's scores changes nothing); a softmax
    over the token's readings (padding masked out), cross-entropy against the gold reading plus
    ``l2`` times the squared weights. ``features`` names the columns (checked against this
    version's); ``init``: start from the hand-set weights or from zeros."""

    def __init__(self, features: list[str], optimizer: Callable, l2: float = 1e-4,
                 init: str = "hand_set"):
        super().__init__()
        if list(features) != list(FEATURES):
            raise ValueError(f"the ranker was built for the features {list(features)}, this "
                             f"version has {list(FEATURES)}: train a new one")
        if init not in INITS:
            raise ValueError(f"model.init must be one of {', '.join(INITS)}, got {init!r}")
        if l2 < 0:
            raise ValueError(f"model.l2 must be at least 0, got {l2}")
        self.save_hyperparameters(ignore=["optimizer"])
        self.optimizer = optimizer
        self.linear = torch.nn.Linear(len(features), 1, bias=False)
        with torch.no_grad():
            start = hand_set_ranker().weights if init == "hand_set" else np.zeros(len(features))
            self.linear.weight.copy_(torch.as_tensor(start, dtype=torch.float32)[None])
        self._sums: torch.Tensor | None = None

    def forward(self, rows: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.linear(rows).squeeze(-1).masked_fill(~mask, float("-inf"))

    def weights(self) -> np.ndarray:
        return self.linear.weight.detach().cpu().numpy()[0].astype(np.float32)

    def training_step(self, batch, batch_idx):
        scores = self(batch["rows"], batch["mask"])
        penalty = self.hparams.l2 * self.linear.weight.square().sum()
        loss = F.cross_entropy(scores, batch["gold"]) + penalty
        self.log("train/loss", loss, prog_bar=True, batch_size=len(batch["gold"]))
        return loss

    def validation_step(self, batch, batch_idx):
        scores = self(batch["rows"], batch["mask"])
        loss = F.cross_entropy(scores, batch["gold"], reduction="sum")
        right = (scores.argmax(-1) == batch["gold"]).sum()
        sums = torch.stack([loss.detach(), right.float(), torch.tensor(float(len(scores)))])
        self._sums = sums if self._sums is None else self._sums + sums

    def on_validation_epoch_end(self):
        loss, right, total = self.trainer.strategy.reduce(self._sums, reduce_op="sum").tolist()
        self._sums = None
        self.log("val/loss", loss / total, prog_bar=True)
        self.log("val/acc", right / total)  # the best reading, before the threshold

    def configure_optimizers(self):
        return self.optimizer(params=self.parameters())
