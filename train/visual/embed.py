"""Checkpoint → encoder → μ: the 256-d visual embedding of every glyph (paper §3.3)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from train.checks import load_module
from zeroe_assets.assets.index import normalise

from .datamodule import GlyphDataModule
from .glyphs import GlyphSet, GlyphSpec
from .module import VAEGANModule


def load_checkpoint(path: str | Path) -> tuple[VAEGANModule, GlyphSpec, dict]:
    """The model in eval mode, the glyph spec it was trained on and the data module's state
    (fingerprint, split); read with ``weights_only=True``, so a checkpoint cannot run code."""
    model, ckpt = load_module(path, VAEGANModule, "a VAE-GAN checkpoint (written by train.vaegan)")
    data = ckpt.get("datamodule_hyper_parameters")
    if data is None:
        raise ValueError(f"{path} has no data module settings; was it written by train.vaegan?")
    # a trained model only encodes the glyph set: its training views (alternates) need not load
    spec = GlyphSpec(**{**data["glyphs"], "alternates": False})
    return model, spec, {**data, **ckpt.get(GlyphDataModule.__qualname__, {})}


@torch.no_grad()
def encode(model: VAEGANModule, images: np.ndarray, batch_size: int = 2048) -> np.ndarray:
    """μ for uint8 glyph images (N, H, W), as float32."""
    if not len(images):
        return np.zeros((0, model.hparams.latent), np.float32)
    out = [model(torch.from_numpy(images[i:i + batch_size]).unsqueeze(1).float().div_(255))
           for i in range(0, len(images), batch_size)]
    return torch.cat(out).numpy().astype(np.float32)


def over_fonts(vectors: np.ndarray, alt_vectors: np.ndarray, alt_rows: np.ndarray) -> np.ndarray:
    """One unit vector per character: the mean direction of its renderings in every font of the
    chain that covers it (``vectors`` for the glyph set, ``alt_vectors[j]`` for row ``alt_rows[j]``
    in another font). A reader may meet the character in any of these typefaces, so its look-alikes
    should not hinge on one of them; each rendering counts once."""
    out = normalise(vectors)
    np.add.at(out, alt_rows, normalise(alt_vectors))
    return normalise(out)


def embed_glyphs(model: VAEGANModule, glyphs: GlyphSet, every_font: bool = True,
                 batch_size: int = 2048) -> np.ndarray:
    """The exported space: L2-normalised μ of each glyph, averaged ``over_fonts`` when
    ``every_font`` (and ``glyphs`` carries its alternates)."""
    vectors = encode(model, glyphs.images, batch_size)
    if not every_font:
        return normalise(vectors)
    return over_fonts(vectors, encode(model, glyphs.alt_images, batch_size), glyphs.alt_rows)


@torch.no_grad()
def reconstruct(model: VAEGANModule, images: torch.Tensor) -> torch.Tensor:
    """Dec(μ) for float images (B, 1, H, W) in [0, 1]."""
    return model.reconstruct(images)
