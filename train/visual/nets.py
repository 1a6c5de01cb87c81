"""The three networks of the VAE-GAN (Larsen et al. 2016) for 24×24 glyphs: three stride-2
stages (24 → 12 → 6 → 3) in each, small enough to train on the whole BMP on a laptop CPU.
No batch normalisation: the decoder sees both Enc(x) and z_p ~ N(0, I) batches, whose running
statistics would not describe either at evaluation time."""
from __future__ import annotations

import torch
from torch import nn


def _down(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 4, 2, 1), nn.LeakyReLU(0.2, inplace=True))


class Encoder(nn.Module):
    """x → (μ, log σ²); μ is the visual embedding (paper §3.3: 256-d)."""

    def __init__(self, latent: int = 256, channels: tuple[int, ...] = (32, 64, 128),
                 pool: bool = False):
        super().__init__()
        c1, c2, c3 = channels
        # pool: the largest response of each feature anywhere on the 3×3 map, so a feature counts
        # wherever the glyph sits (each unit already sees 22 of the 24 px)
        self.conv = nn.Sequential(_down(1, c1), _down(c1, c2), _down(c2, c3),
                                  nn.AdaptiveMaxPool2d(1) if pool else nn.Identity(), nn.Flatten())
        self.head = nn.Linear(c3 * (1 if pool else 9), 2 * latent)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mu, logvar = self.head(self.conv(x)).chunk(2, dim=1)
        return mu, logvar


def ink_box(x: torch.Tensor, threshold: float = 0.25) -> torch.Tensor:
    """(top, bottom, left, right) of each (B,1,H,W) glyph's ink, scaled to [-1, 1]; 0s if blank."""
    def ends(profile: torch.Tensor) -> torch.Tensor:  # (B, N) bool → first and last inked index
        n = profile.shape[1]
        idx = torch.arange(n, device=profile.device)
        first = torch.where(profile, idx, n).amin(1)
        last = torch.where(profile, idx, -1).amax(1)
        found = profile.any(1)
        box = torch.stack([first, last], 1).to(torch.float32) / (n - 1) * 2 - 1
        return torch.where(found[:, None], box, torch.zeros_like(box))

    ink = x[:, 0] > threshold
    return torch.cat([ends(ink.any(2)), ends(ink.any(1))], 1)


class Decoder(nn.Module):
    """z → pixel logits; the same network decodes Enc(x) and generates from z_p ~ N(0, I).

    With ``pose`` the decoder is also told where the target's ink sits (its ``ink_box``), so z
    need not carry size and position: ᵃ can share a's code and still be redrawn small and high.
    """

    def __init__(self, latent: int = 256, channels: tuple[int, ...] = (32, 64, 128),
                 pose: bool = False):
        super().__init__()
        c1, c2, c3 = channels
        self.pose = pose
        up = lambda cin, cout: [nn.ConvTranspose2d(cin, cout, 4, 2, 1), nn.ReLU(inplace=True)]  # noqa: E731
        self.net = nn.Sequential(nn.Linear(latent + 4 * pose, c3 * 9), nn.ReLU(inplace=True),
                                 nn.Unflatten(1, (c3, 3, 3)),
                                 *up(c3, c2), *up(c2, c1), nn.ConvTranspose2d(c1, 1, 4, 2, 1))

    def forward(self, z: torch.Tensor, box: torch.Tensor | None = None) -> torch.Tensor:
        if self.pose:
            if box is None:
                raise ValueError("this decoder draws at a given ink box: pass box=ink_box(target)")
            z = torch.cat([z, box.to(z.dtype)], 1)
        return self.net(z)


class Discriminator(nn.Module):
    """Real/fake logit, plus the intermediate layer Dis_l whose features define the
    reconstruction likelihood (Larsen et al. 2016, §2.2)."""

    def __init__(self, channels: tuple[int, ...] = (32, 64, 128)):
        super().__init__()
        c1, c2, c3 = channels
        self.features = nn.Sequential(_down(1, c1), _down(c1, c2))
        self.head = nn.Sequential(_down(c2, c3), nn.Flatten(), nn.Linear(c3 * 9, 1))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        feats = self.features(x)
        return self.head(feats).squeeze(1), feats
