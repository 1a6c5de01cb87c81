"""A classification task's files → tokenized, length-bucketed batches for a Hugging Face model.

The files are read by the benchmark's own task objects (``tasks.get_task(task).examples``), so the
fine-tuned victim sees exactly the inputs and gold labels it is later scored and attacked on.
"""
from __future__ import annotations

import csv
import tempfile
from functools import partial
from pathlib import Path

import numpy as np
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader

from train.batching import BucketLoaders
from zeroe_assets.assets.store import sha256_file
from zeroe_assets.victims.sklearn import default_encoder
from zeroe_assets.tasks import Examples, get_task

SPLITS = ("train", "val", "test")


def collate(tokenizer, items: list[tuple[dict, int]]) -> dict[str, torch.Tensor]:
    batch = tokenizer.pad([features for features, _ in items], return_tensors="pt")
    batch["labels"] = torch.tensor([label for _, label in items])
    return dict(batch)


def join_labels(path: Path, labels_csv: Path, column: str, out: Path) -> Path:
    """``path`` (a TSV with an ``id`` column) with the labels of ``labels_csv`` (``id,label``
    rows) added as ``column``: OLID ships its test labels apart from the test tweets."""
    with open(labels_csv, encoding="utf-8", newline="") as f:
        labels = dict(row[:2] for row in csv.reader(f) if len(row) >= 2)
    with open(path, encoding="utf-8") as src, open(out, "w", encoding="utf-8") as dst:
        header = src.readline().rstrip("\n").split("\t")
        if "id" not in header:
            raise ValueError(f"{path}: no id column to join {labels_csv} on")
        key = header.index("id")
        dst.write("\t".join([*header, column]) + "\n")
        for n, line in enumerate(src, 2):
            cells = line.rstrip("\n").split("\t")
            if cells[key] not in labels:
                raise ValueError(f"{path}:{n}: id {cells[key]} has no label in {labels_csv}")
            dst.write("\t".join([*cells, labels[cells[key]]]) + "\n")
    return out


class TextsDataModule(BucketLoaders, pl.LightningDataModule):
    """Train / val / test files of a classification task (``tc``, ``nli``, ``generic``).

    Without ``val_path`` a seeded ``val_fraction`` of the training file is held out. Class ids
    follow ``labels`` (for ``tc``: index = the 0/1 gold label; default "0", "1"; for the others
    default: the sorted training labels). ``test_labels`` joins an ``id,label`` CSV onto the test
    file as its ``test_label_column`` (OLID). Inputs are cut to ``max_length`` tokens.
    """

    def __init__(self, task: str, train_path: str, test_path: str, val_path: str | None = None,
                 val_fraction: float = 0.05, test_labels: str | None = None,
                 test_label_column: str = "label", labels: list[str] | None = None,
                 tokenizer: str | None = None, max_length: int = 64, batch_size: int = 32,
                 eval_batch_size: int = 128, bucket: int = 32, seed: int = 0,
                 num_workers: int = 0):
        super().__init__()
        self._set_sizes(batch_size, eval_batch_size, bucket)
        self.task = get_task(task)
        if self.task.inputs not in ("text", "pair"):
            raise ValueError(f"data.task: the fine-tune job classifies texts or pairs (nli, tc, "
                             f"generic), not {self.task.name}")
        if not 0 < val_fraction < 1:
            raise ValueError(f"data.val_fraction must be between 0 and 1, got {val_fraction}")
        self.paths = {"train": Path(train_path), "val": Path(val_path) if val_path else None,
                      "test": Path(test_path)}
        self.val_fraction, self.labels = val_fraction, list(labels) if labels else None
        self.test_labels = Path(test_labels) if test_labels else None
        self.test_label_column, self.tokenizer_dir = test_label_column, tokenizer
        self.max_length, self.seed, self.num_workers = max_length, seed, num_workers

    def setup(self, stage: str | None = None) -> None:
        if hasattr(self, "data"):
            return
        for split, path in self.paths.items():
            if path is not None and not path.is_file():
                raise FileNotFoundError(f"{split} file {path} does not exist (set data.{split}_path)")
        self.examples = {split: self._read(split) for split in SPLITS if self.paths[split]}
        if "val" not in self.examples:
            self.examples["train"], self.examples["val"] = self._hold_out(self.examples["train"])
        self._set_labels()
        from transformers import AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(self.tokenizer_dir or default_encoder(),
                                                       local_files_only=True)
        self.data = {split: self._encode(ex) for split, ex in self.examples.items()}

    def _read(self, split: str) -> Examples:
        path = self.paths[split]
        if split == "test" and self.test_labels is not None:
            with tempfile.TemporaryDirectory() as tmp:
                joined = join_labels(path, self.test_labels, self.test_label_column,
                                     Path(tmp) / path.name)
                return self.task.examples(joined, self.task.format_for(joined))
        return self.task.examples(path, self.task.format_for(path))

    def _hold_out(self, examples: Examples) -> tuple[Examples, Examples]:
        order = np.random.default_rng(self.seed).permutation(len(examples.inputs))
        cut = max(1, round(len(order) * self.val_fraction))
        if cut >= len(order):
            raise ValueError(f"{self.paths['train']}: too few examples to hold out a validation "
                             "set; set data.val_path")

        def pick(ids):
            return Examples(*([part[i] for i in sorted(ids)] for part in
                              (examples.inputs, examples.gold, examples.texts)))

        return pick(order[cut:]), pick(order[:cut])

    def _set_labels(self) -> None:
        """Class names in id order, checked against every split's gold labels."""
        golds = [g for ex in self.examples.values() for g in ex.gold]
        if self.task.name == "tc":
            if any(isinstance(g, list) for g in golds):
                raise ValueError("the fine-tune job trains single-label toxicity (0/1) victims")
            self.labels = self.labels or ["0", "1"]
            if len(self.labels) != 2:
                raise ValueError(f"data.labels: a toxicity victim has two classes, got {self.labels}")
            self.ids = {0: 0, 1: 1}
            return
        self.labels = self.labels or sorted(set(self.examples["train"].gold))
        unknown = sorted(set(golds) - set(self.labels))
        if unknown:
            raise ValueError(f"gold labels {unknown} are not in data.labels {self.labels}")
        self.ids = {name: i for i, name in enumerate(self.labels)}

    def _encode(self, examples: Examples) -> list[tuple[dict, int]]:
        pairs = self.task.inputs == "pair"
        columns = (([p for p, _ in examples.inputs], [h for _, h in examples.inputs]) if pairs
                   else (list(examples.inputs),))
        encoded = self.tokenizer(*columns, truncation=True, max_length=self.max_length)
        keys = list(encoded.keys())
        return [({k: encoded[k][i] for k in keys}, self.ids[gold])
                for i, gold in enumerate(examples.gold)]

    def model_inputs(self) -> dict:
        """What the model is built from besides its config: the task and the class names."""
        return {"task": self.task.name, "labels": list(self.labels)}

    def summary(self) -> dict:
        """Sizes and fingerprints of the files, for the exported model's record."""
        out = {split: {"path": str(path), "sha256": sha256_file(path),
                       "examples": len(self.examples[split].gold)}
               for split, path in self.paths.items() if path is not None}
        out["val"] = out.get("val") or {"held_out_of": "train",
                                         "examples": len(self.examples["val"].gold)}
        if self.test_labels is not None:
            out["test"]["labels"] = {"path": str(self.test_labels),
                                     "sha256": sha256_file(self.test_labels)}
        return out

    def _loader(self, split: str, shuffle: bool) -> DataLoader:
        items = self.data[split]
        lengths = [len(features["input_ids"]) for features, _ in items]
        return DataLoader(items, batch_sampler=self._sampler(lengths, shuffle),
                          collate_fn=partial(collate, self.tokenizer),
                          num_workers=self.num_workers, persistent_workers=self.num_workers > 0)
