"""Checkpoint → encoder → μ: the 256-d visual embedding of every glyph (paper §3.3)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from .datamodule import GlyphDataModule
from .glyphs import GlyphSpec
from .module import VAEGANModule


def load_checkpoint(path: str | Path) -> tuple[VAEGANModule, GlyphSpec, dict]:
    """The model in eval mode, the glyph spec it was trained on and the data module's state
    (fingerprint, split); read with ``weights_only=True``, so a checkpoint cannot run code."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint {path} does not exist")
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    model = VAEGANModule(**ckpt["hyper_parameters"])
    model.load_state_dict(ckpt["state_dict"])
    data = ckpt.get("datamodule_hyper_parameters")
    if data is None:
        raise ValueError(f"{path} has no data module settings; was it written by train.vaegan?")
    # a trained model only encodes the glyph set: its training views (alternates) need not load
    spec = GlyphSpec(**{**data["glyphs"], "alternates": False})
    return model.eval(), spec, {**data, **ckpt.get(GlyphDataModule.__qualname__, {})}


@torch.no_grad()
def encode(model: VAEGANModule, images: np.ndarray, batch_size: int = 2048) -> np.ndarray:
    """μ for uint8 glyph images (N, H, W), as float32."""
    out = [model(torch.from_numpy(images[i:i + batch_size]).unsqueeze(1).float().div_(255))
           for i in range(0, len(images), batch_size)]
    return torch.cat(out).numpy().astype(np.float32)


@torch.no_grad()
def reconstruct(model: VAEGANModule, images: torch.Tensor) -> torch.Tensor:
    """Dec(μ) for float images (B, 1, H, W) in [0, 1]."""
    return model.reconstruct(images)
