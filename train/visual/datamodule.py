"""Glyph images for the VAE-GAN, with a seeded train/val split (paper §3.3, appendix A.1)."""
from __future__ import annotations

import logging
from dataclasses import asdict

import numpy as np
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

from train.checks import positive

from .augment import GlyphAugment
from .glyphs import GlyphSet, GlyphSpec, build_glyphs, diacritics

log = logging.getLogger(__name__)


def balanced_weights(groups: np.ndarray, balance: float) -> np.ndarray:
    """Sampling weight n_g^-balance per glyph, n_g the size of its group (the font that rendered it).

    Unifont's 41k glyphs, mostly CJK and Hangul, would otherwise take most of the model's capacity
    from the outline fonts' letters and symbols, where readers meet look-alikes.
    """
    _, inverse, counts = np.unique(groups, return_inverse=True, return_counts=True)
    return counts[inverse].astype(np.float64) ** -balance


def split(n: int, val_fraction: float, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Seeded (train, val) row indices; the export recomputes the held-out rows from the seed."""
    n_val = max(1, round(n * val_fraction))
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    return order[n_val:].sort().values, order[:n_val].sort().values


class Alternates:
    """For each glyph row, its renderings in other fonts of the chain (a CSR table of images)."""

    def __init__(self, images: np.ndarray, rows: np.ndarray, n: int, allowed: np.ndarray):
        keep = np.isin(rows, allowed)  # held-out glyphs lend no views to training
        order = np.argsort(rows[keep], kind="stable")
        self.images = torch.from_numpy(images[keep][order]).unsqueeze(1)
        self.count = torch.from_numpy(np.bincount(rows[keep], minlength=n))
        self.start = torch.cumsum(self.count, 0) - self.count

    def pick(self, rows: torch.Tensor, prob: float) -> tuple[torch.Tensor, torch.Tensor]:
        """(mask, images): which rows get another font's rendering (with probability ``prob``
        where one exists) and that rendering, drawn uniformly among the row's alternates."""
        count = self.count[rows]
        mask = (torch.rand(len(rows)) < prob) & (count > 0)
        # float rounding can put rand · count on count itself
        offset = (torch.rand(len(rows)) * count).long().clamp_(max=(count - 1).clamp(min=0))
        return mask, self.images[(self.start[rows] + offset)[mask]]


class GlyphDataModule(pl.LightningDataModule):
    """Batches of (view, second view, target): the target is the canonical glyph in [0, 1]; the
    views are two independently augmented copies while training and the glyph itself otherwise.
    With ``alternate_prob`` the second view starts from the same character in another font of
    the chain, so the contrastive term teaches μ that a letter is the same in any typeface."""

    def __init__(self, glyphs: GlyphSpec, augment: GlyphAugment | None = None,
                 val_fraction: float = 0.02, batch_size: int = 256, num_workers: int = 0,
                 balance: float = 0.0, alternate_prob: float = 0.0, seed: int = 0):
        super().__init__()
        if not 0 < val_fraction < 1:
            raise ValueError(f"val_fraction must be in (0, 1), got {val_fraction}")
        if not 0 <= alternate_prob <= 1:
            raise ValueError(f"alternate_prob must be in [0, 1], got {alternate_prob}")
        positive("data", batch_size=batch_size)
        self.spec, self.augment = glyphs, augment
        self.val_fraction, self.batch_size, self.num_workers, self.balance, self.seed = (
            val_fraction, batch_size, num_workers, balance, seed)
        self.alternate_prob = alternate_prob
        # the checkpoint carries what is needed to rebuild the same glyph set at export
        self.save_hyperparameters({"glyphs": asdict(glyphs), "val_fraction": val_fraction,
                                   "seed": seed})
        self.glyph_set: GlyphSet | None = None

    def prepare_data(self) -> None:
        build_glyphs(self.spec)  # render once per machine; workers then hit the cache

    def setup(self, stage: str | None = None) -> None:
        if self.glyph_set is not None:
            return
        self.glyph_set = build_glyphs(self.spec)
        if self.augment is not None and self.augment.accents:
            inks, below = diacritics(self.spec)
            self.augment.set_diacritics(inks, below)
            log.info("diacritics to stamp on views: %d above, %d below", len(inks) - sum(below),
                     sum(below))
        self.train_idx, self.val_idx = split(len(self.glyph_set), self.val_fraction, self.seed)
        images = torch.from_numpy(self.glyph_set.images).unsqueeze(1)
        self.train_set = TensorDataset(images[self.train_idx], self.train_idx)
        self.val_set = TensorDataset(images[self.val_idx], self.val_idx)
        g = self.glyph_set
        self.alternates = Alternates(g.alt_images, g.alt_rows, len(g), self.train_idx.numpy())
        log.info("glyphs: %d train, %d val; %d renderings in other fonts", len(self.train_set),
                 len(self.val_set), len(self.alternates.images))

    def state_dict(self) -> dict:
        """Saved in checkpoints so that an export can tell whether the fonts changed since."""
        if self.glyph_set is None:
            return {}
        return {"fingerprint": self.glyph_set.fingerprint, "count": len(self.glyph_set)}

    def train_dataloader(self) -> DataLoader:
        generator = torch.Generator().manual_seed(self.seed)
        sampler = None
        if self.balance:
            weights = balanced_weights(self.glyph_set.font_index[self.train_idx.numpy()],
                                       self.balance)
            sampler = WeightedRandomSampler(weights.tolist(), len(weights), generator=generator)
        return DataLoader(self.train_set, self.batch_size, shuffle=sampler is None, sampler=sampler,
                          drop_last=True, num_workers=self.num_workers, generator=generator)

    def val_dataloader(self) -> DataLoader:
        return DataLoader(self.val_set, self.batch_size * 4, num_workers=self.num_workers)

    def on_after_batch_transfer(self, batch, dataloader_idx: int):
        x = batch[0].float().div_(255)
        training = self.trainer is not None and self.trainer.training
        if not training or self.augment is None:
            return x, x, x
        other = x
        if self.alternate_prob:
            mask, images = self.alternates.pick(batch[1].cpu(), self.alternate_prob)
            other = x.clone()
            other[mask.to(x.device)] = images.to(x.device).float().div_(255)
        return self.augment(x), self.augment(other), x
