"""The Siamese phonetic embedder's training (paper appendix A.1): loss, metrics, runtime form.

The network (``zeroe_assets.phonetic.embedder.SiameseNet``) lives in the runtime package because
the exported embedder also judges out-of-vocabulary respellings there.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pytorch_lightning as pl
import torch
import torch.nn.functional as F

from zeroe_assets.phonetic.embedder import CLASSES, CharVocab, Embedder, SiameseNet


def scores(confusion: np.ndarray) -> dict:
    """Accuracy, macro F1 and per-class precision/recall/F1 from a confusion matrix
    (rows: true class, columns: predicted)."""
    confusion = np.asarray(confusion, dtype=np.float64)
    tp = np.diag(confusion)
    precision = np.divide(tp, confusion.sum(0), out=np.zeros_like(tp), where=confusion.sum(0) > 0)
    recall = np.divide(tp, confusion.sum(1), out=np.zeros_like(tp), where=confusion.sum(1) > 0)
    f1 = np.divide(2 * precision * recall, precision + recall, out=np.zeros_like(tp),
                   where=precision + recall > 0)
    return {"acc": float(tp.sum() / max(confusion.sum(), 1)), "macro_f1": float(f1.mean()),
            **{f"f1_{c}": float(f) for c, f in zip(CLASSES, f1)},
            **{f"precision_{c}": float(p) for c, p in zip(CLASSES, precision)},
            **{f"recall_{c}": float(r) for c, r in zip(CLASSES, recall)}}


class PhoneticModule(pl.LightningModule):
    """Cross-entropy over the four classes, weighted by inverse class frequency (the lexicon has
    too few "very similar" pairs for a balanced set); validation and test keep a confusion matrix."""

    def __init__(self, vocab: Sequence[str], net: dict, optimizer: Callable,
                 class_counts: Sequence[int] | None = None, label_smoothing: float = 0.0):
        super().__init__()
        self.save_hyperparameters(ignore=["optimizer"])
        self.optimizer = optimizer
        self.vocab = CharVocab(vocab)
        self.net = SiameseNet(len(self.vocab), **net)
        counts = torch.tensor(class_counts or [1] * len(CLASSES), dtype=torch.float)
        weights = counts.sum() / counts.clamp(min=1) / len(CLASSES)
        self.register_buffer("class_weights", weights, persistent=False)
        self.confusion = np.zeros((len(CLASSES), len(CLASSES)), dtype=np.int64)

    def _logits(self, batch):
        return self.net(batch["a"], batch["a_len"], batch["b"], batch["b_len"])

    def training_step(self, batch, batch_idx):
        loss = F.cross_entropy(self._logits(batch), batch["label"], weight=self.class_weights,
                               label_smoothing=self.hparams.label_smoothing)
        self.log("train/loss", loss, prog_bar=True, batch_size=batch["label"].size(0))
        return loss

    def _count(self, batch) -> None:
        pred = self._logits(batch).argmax(-1).cpu().numpy()
        np.add.at(self.confusion, (batch["label"].cpu().numpy(), pred), 1)

    def _log_scores(self, stage: str) -> dict:
        # under DDP each rank counted its own share of the split: the scores (and the learning
        # rate schedule that follows val/macro_f1) must be the same on every rank
        counts = torch.as_tensor(self.confusion, device=self.device)  # NCCL sums GPU tensors only
        self.confusion = self.trainer.strategy.reduce(counts, reduce_op="sum").cpu().numpy()
        found = scores(self.confusion)
        for key in ("acc", "macro_f1", *(f"f1_{c}" for c in CLASSES)):
            self.log(f"{stage}/{key}", found[key], prog_bar=key in ("acc", "macro_f1"))
        self.last_confusion, self.confusion = self.confusion, np.zeros_like(self.confusion)
        return found

    def validation_step(self, batch, batch_idx):
        self._count(batch)

    def on_validation_epoch_end(self):
        self._log_scores("val")

    def test_step(self, batch, batch_idx):
        self._count(batch)

    def on_test_epoch_end(self):
        self.test_scores = self._log_scores("test")

    def configure_optimizers(self):
        opt = self.optimizer(params=self.parameters())
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=2)
        return {"optimizer": opt,
                "lr_scheduler": {"scheduler": sched, "monitor": "val/macro_f1", "interval": "epoch",
                                 "strict": False}}  # epochs without validation keep the rate

    def embedder(self, meta: dict | None = None) -> Embedder:
        """The runtime form of this model (what gets exported)."""
        return Embedder(self.vocab, self.net.eval(), {"net": dict(self.hparams.net), **(meta or {})})
