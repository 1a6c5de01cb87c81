"""Tagger training: token cross-entropy, accuracy overall and on out-of-vocabulary words."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytorch_lightning as pl
import torch
import torch.nn.functional as F

from zeroe_assets.victims import load_pos_bilstm
from zeroe_assets.victims.pos_bilstm.net import BiLSTMTagger
from zeroe_assets.victims.pos_bilstm.predict import Tagger
from zeroe_assets.victims.pos_bilstm.vocab import UNK, TaggerVocab

from .datamodule import IGNORE
from .fitting import timed_predict, warmup_cosine
from .tagger import export


class TaggerModule(pl.LightningModule):
    """Wraps :class:`BiLSTMTagger`; the vocabulary is a hyperparameter so every checkpoint is
    self-contained (resume and export need nothing else)."""

    kind = "tagger"

    def __init__(self, vocab: dict, net: dict, optimizer: Callable, warmup_steps: int = 200,
                 min_lr_ratio: float = 0.05):
        super().__init__()
        self.save_hyperparameters(ignore=["optimizer"])
        self.optimizer = optimizer
        self.vocab = TaggerVocab.from_dict(vocab)
        self.net = BiLSTMTagger(self.vocab.n_words, self.vocab.n_chars, len(self.vocab.tags), **net)
        self._counts: torch.Tensor | None = None

    def forward(self, batch: dict) -> torch.Tensor:
        return self.net(batch["words"], batch["lengths"], batch["forms"], batch["form_lengths"],
                        batch["form_index"])

    def training_step(self, batch, batch_idx):
        loss = F.cross_entropy(self(batch).flatten(0, 1), batch["tags"].flatten(),
                               ignore_index=IGNORE)
        self.log("train/loss", loss, prog_bar=True, batch_size=batch["words"].size(0))
        return loss

    def _score(self, batch) -> None:
        logits = self(batch)
        tags, mask = batch["tags"], batch["tags"] != IGNORE
        loss = F.cross_entropy(logits.flatten(0, 1), tags.flatten(), ignore_index=IGNORE,
                               reduction="sum")
        right = (logits.argmax(-1) == tags) & mask
        oov = (batch["words"] == UNK) & mask
        counts = torch.stack([right.sum(), mask.sum(), (right & oov).sum(), oov.sum()]).float()
        counts = torch.cat([counts, loss.detach()[None]])
        self._counts = counts if self._counts is None else self._counts + counts

    def _log_counts(self, stage: str) -> None:
        right, total, oov_right, oov, loss = self.trainer.strategy.reduce(
            self._counts, reduce_op="sum").tolist()
        self._counts = None
        self.log(f"{stage}/acc", right / total, prog_bar=True)
        self.log(f"{stage}/loss", loss / total)
        if oov:  # a tiny dev set may have no unknown words; 0/0 is not a score
            self.log(f"{stage}/acc_oov", oov_right / oov)

    def validation_step(self, batch, batch_idx):
        self._score(batch)

    def on_validation_epoch_end(self):
        self._log_counts("val")

    def test_step(self, batch, batch_idx):
        self._score(batch)

    def on_test_epoch_end(self):
        self._log_counts("test")

    def configure_optimizers(self):
        opt = self.optimizer(params=self.parameters())
        return warmup_cosine(opt, self.trainer, self.hparams.warmup_steps,
                             self.hparams.min_lr_ratio)

    def tagger(self) -> Tagger:
        """The runtime form of this model (what gets exported and what the benchmark loads)."""
        return Tagger(self.net, self.vocab, {"net": dict(self.hparams.net)})

    def export(self, path, info: dict) -> Path:
        return export(self.tagger(), path, info)

    def check_export(self, path, data) -> dict:
        """Reload the exported model as the benchmark will and score it on the test sentences,
        so a broken export fails here rather than in an evaluation; also times ``predict``."""
        sentences = data.data["test"]
        predicted, timing = timed_predict(load_pos_bilstm(path), [f for f, _ in sentences],
                                          "sentences")
        right = sum(p == g for pred, (_, gold) in zip(predicted, sentences)
                    for p, g in zip(pred, gold))
        return {"test_acc": round(right / sum(len(gold) for _, gold in sentences), 5), **timing}

