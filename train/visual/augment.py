"""Batch augmentations that model how readers see letters: any size, position or stroke weight.

The encoder sees an augmented view while the decoder must redraw the canonical glyph, so μ has to
ignore these nuisances (raw-pixel similarity cannot): shifted, scaled, bold or thin look-alikes
land next to each other.
"""
from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .nets import ink_box


def affine(x: torch.Tensor, scale: torch.Tensor, width: torch.Tensor, angle: torch.Tensor,
           dx: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """Each (B,1,H,W) glyph scaled by ``scale``, widened by ``width``, rotated by ``angle``
    (radians) and moved left by ``dx`` and up by ``dy``; all of shape (B,). The move is in canvas
    half-widths of the glyph's own frame, so it shrinks with the glyph: on the canvas it is
    ``dx · scale · width`` and ``dy · scale`` (scale 0.6, dy = 4/12: 2.4 px up)."""
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    # the grid maps output to input coordinates, so dividing its x row by w widens by w
    theta = torch.stack([torch.stack([cos / width, -sin / width, dx], 1),
                         torch.stack([sin, cos, dy], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    return F.grid_sample(x, grid, align_corners=False, padding_mode="zeros")


def stroke(x: torch.Tensor, amount: torch.Tensor) -> torch.Tensor:
    """Stroke weight: blend each glyph towards its 3×3 dilation (``amount`` > 0, bolder) or
    erosion (< 0, thinner); ``amount`` of shape (B,) in [-1, 1]."""
    amount = amount.view(-1, 1, 1, 1)
    bold, thin = F.max_pool2d(x, 3, 1, 1), -F.max_pool2d(-x, 3, 1, 1)
    return torch.where(amount > 0, x + amount * (bold - x), x + amount * (x - thin))


class GlyphAugment(nn.Module):
    """Random scale, width, shift, small rotation, stroke weight, a stray mark and a diacritic,
    applied per sample to a (B,1,H,W) batch. A reader still reads a letter drawn wide (fullwidth
    ａ), with a speck of dirt next to it or with an accent over it; the model should too."""

    def __init__(self, prob: float = 0.5, scale: tuple[float, float] = (0.55, 1.15),
                 shift: float | tuple[float, float] = (0.3, 0.6), rotate: float = 5.0,
                 stroke: float = 0.4, marks: float = 0.5, stretch: float = 1.0,
                 accents: float = 0.0):
        super().__init__()
        if stretch < 1:
            raise ValueError(f"stretch is a factor ≥ 1 (widths vary within [1/s, s]), got {stretch}")
        self.prob, self.scale, self.rotate, self.stroke = prob, tuple(scale), rotate, stroke
        self.stretch = stretch
        self.shift = (shift, shift) if isinstance(shift, (int, float)) else tuple(shift)  # (x, y)
        self.marks, self.accents = marks, accents
        # stray marks: a dot, short bars and diagonals (3×3), stamped at random places
        k = torch.zeros(5, 1, 3, 3)
        k[0, 0, 1, 1] = k[0, 0, 1, 2] = k[0, 0, 2, 1] = k[0, 0, 2, 2] = 1
        k[1, 0, 1, :] = 1
        k[2, 0, :, 1] = 1
        k[3, 0, [0, 1, 2], [0, 1, 2]] = 1
        k[4, 0, [0, 1, 2], [2, 1, 0]] = 1
        self.register_buffer("mark_kernels", k, persistent=False)
        self.register_buffer("accent_kernels", torch.zeros(0, 1, 1, 1), persistent=False)
        self.register_buffer("accent_below", torch.zeros(0, dtype=torch.bool), persistent=False)

    def set_diacritics(self, inks: list[np.ndarray], below: list[bool]) -> None:
        """The diacritics to stamp (uint8 ink crops, e.g. ``glyphs.diacritics``), each on a square
        kernel whose centre is where it meets the letter: the middle of its bottom row (above the
        letter) or of its top row (below)."""
        if not inks:
            raise ValueError("no diacritics to stamp: the font chain and DejaVu Sans draw none")
        k = max(max(ink.shape) for ink in inks)
        kernels = torch.zeros(len(inks), 1, 2 * k + 1, 2 * k + 1)
        for i, (ink, low) in enumerate(zip(inks, below)):
            h, w = ink.shape
            top = k if low else k - h + 1
            kernels[i, 0, top:top + h, k - w // 2:k - w // 2 + w] = torch.from_numpy(ink).float() / 255
        self.accent_kernels = kernels.to(self.accent_kernels.device)
        self.accent_below = torch.tensor(below, dtype=torch.bool, device=self.accent_kernels.device)

    def forward(self, x: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        """Distort ``x``; ``generator`` makes figures reproducible (training uses the seeded global one)."""
        b = x.shape[0]
        rand = lambda lo, hi: torch.empty(b, device=x.device).uniform_(lo, hi, generator=generator)  # noqa: E731
        scale = torch.exp(rand(math.log(self.scale[0]), math.log(self.scale[1])))
        angle = rand(-self.rotate, self.rotate) * math.pi / 180
        width = torch.exp(rand(-math.log(self.stretch), math.log(self.stretch)))
        sx, sy = self.shift
        out = affine(x, scale, width, angle, rand(-sx, sx), rand(-sy, sy))
        out = stroke(out, rand(-self.stroke, self.stroke))
        if self.marks:
            out = torch.maximum(out, self._marks(x, rand))
        if self.accents:
            out = torch.maximum(out, self._accent(out, rand))
        keep = (rand(0, 1) >= self.prob).view(b, 1, 1, 1)
        return torch.where(keep, x, out.clamp(0, 1))

    def _marks(self, x: torch.Tensor, rand) -> torch.Tensor:
        """With probability ``marks`` per sample, one small stroke or dot somewhere on the canvas."""
        b, _, h, w = x.shape
        where = (rand(0, h * w).long().clamp_(max=h * w - 1))
        spot = torch.zeros(b, h * w, device=x.device).scatter_(1, where[:, None], 1.0).view(b, 1, h, w)
        stamps = F.conv2d(spot, self.mark_kernels.to(x.dtype), padding=1)  # (B, 5, H, W)
        shape = rand(0, len(self.mark_kernels)).long().clamp_(max=len(self.mark_kernels) - 1)
        mark = stamps.gather(1, shape.view(b, 1, 1, 1).expand(b, 1, h, w))
        return mark * (rand(0, 1) < self.marks).view(b, 1, 1, 1).to(x.dtype)

    def _accent(self, x: torch.Tensor, rand) -> torch.Tensor:
        """With probability ``accents`` per sample, one diacritic 1 px above (or below) the ink,
        centred on it within a pixel."""
        n = len(self.accent_kernels)
        if not n:
            raise RuntimeError("GlyphAugment.accents needs its diacritics: call set_diacritics "
                               "(GlyphDataModule.setup does)")
        b, _, h, w = x.shape
        shape = rand(0, n).long().clamp_(max=n - 1)
        box = (ink_box(x) + 1) / 2 * torch.tensor([h - 1, h - 1, w - 1, w - 1], device=x.device)
        row = torch.where(self.accent_below[shape], box[:, 1] + 2, box[:, 0] - 2)
        row = row.round().long().clamp(0, h - 1)
        col = ((box[:, 2] + box[:, 3]) / 2 + rand(-1, 1)).round().long().clamp(0, w - 1)
        spot = torch.zeros(b, h * w, device=x.device).scatter_(1, (row * w + col)[:, None], 1.0)
        # each sample's own kernel: a grouped convolution over the batch as channels
        kernels = self.accent_kernels[shape].flip(-1, -2).to(x.dtype)
        mark = F.conv2d(spot.view(1, b, h, w), kernels, padding=kernels.shape[-1] // 2, groups=b)
        return mark.view(b, 1, h, w) * (rand(0, 1) < self.accents).view(b, 1, 1, 1).to(x.dtype)
