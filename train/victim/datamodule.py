"""CoNLL-U files → length-bucketed, encoded batches for the tagger."""
from __future__ import annotations

from functools import partial
from pathlib import Path

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader

from train.batching import BucketLoaders
from zeroe_assets.assets.store import sha256_file
from zeroe_assets.victims.pos_bilstm.vocab import TaggerVocab

from .conllu import Sentence, read_conllu

IGNORE = -100  # target of padding positions (F.cross_entropy's default ignore_index)


def collate(vocab: TaggerVocab, items: list[Sentence]) -> dict[str, torch.Tensor]:
    batch = vocab.encode([forms for forms, _ in items])
    tags = torch.full(batch["words"].shape, IGNORE)
    for row, (_, labels) in enumerate(items):
        tags[row, :len(labels)] = torch.tensor(vocab.tag_ids(labels))
    batch["tags"] = tags
    return batch


class TaggerDataModule(BucketLoaders, pl.LightningDataModule):
    """Train / dev / test CoNLL-U files; the vocabulary comes from the training file only.

    ``train_path`` may be a perturbed file from ``zeroe bench generate`` (same format): that is
    adversarial training, and the vocabulary then includes the perturbed forms it contains.
    """

    def __init__(self, train_path: str, val_path: str, test_path: str, batch_size: int = 32,
                 eval_batch_size: int = 256, bucket: int = 32, min_count: int = 2,
                 max_chars: int = 32, seed: int = 0, num_workers: int = 0):
        super().__init__()
        self._set_sizes(batch_size, eval_batch_size, bucket)
        self.paths = {"train": Path(train_path), "val": Path(val_path), "test": Path(test_path)}
        self.min_count, self.max_chars = min_count, max_chars
        self.seed, self.num_workers = seed, num_workers

    def setup(self, stage: str | None = None) -> None:
        if hasattr(self, "data"):
            return
        for split, path in self.paths.items():
            if not path.is_file():
                raise FileNotFoundError(f"{split} file {path} does not exist (set data.{split}_path)")
        self.data = {split: read_conllu(path) for split, path in self.paths.items()}
        extra = {t for split in ("val", "test") for _, tags in self.data[split] for t in tags}
        self.vocab = TaggerVocab.build(self.data["train"], extra, self.min_count, self.max_chars)

    def model_inputs(self) -> dict:
        """What the model is built from besides its config: the vocabulary."""
        return {"vocab": self.vocab.to_dict()}

    def summary(self) -> dict:
        """Sizes and fingerprints of the files, for the exported model's record."""
        return {split: {"path": str(path), "sha256": sha256_file(path),
                        "sentences": len(self.data[split]),
                        "tokens": sum(len(f) for f, _ in self.data[split])}
                for split, path in self.paths.items()}

    def _loader(self, split: str, shuffle: bool) -> DataLoader:
        items = self.data[split]
        return DataLoader(items, batch_sampler=self._sampler([len(f) for f, _ in items], shuffle),
                          collate_fn=partial(collate, self.vocab),
                          num_workers=self.num_workers, persistent_workers=self.num_workers > 0)
