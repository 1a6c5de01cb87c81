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

    def __init__(self, latent: int = 256, channels: tuple[int, ...] = (32, 64, 128)):
        super().__init__()
        c1, c2, c3 = channels
        self.conv = nn.Sequential(_down(1, c1), _down(c1, c2), _down(c2, c3),
                                  nn.Flatten())
        self.head = nn.Linear(c3 * 9, 2 * latent)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mu, logvar = self.head(self.conv(x)).chunk(2, dim=1)
        return mu, logvar


class Decoder(nn.Module):
    """z → pixel logits; the same network decodes Enc(x) and generates from z_p ~ N(0, I)."""

    def __init__(self, latent: int = 256, channels: tuple[int, ...] = (32, 64, 128)):
        super().__init__()
        c1, c2, c3 = channels
        up = lambda cin, cout: [nn.ConvTranspose2d(cin, cout, 4, 2, 1), nn.ReLU(inplace=True)]  # noqa: E731
        self.net = nn.Sequential(nn.Linear(latent, c3 * 9), nn.ReLU(inplace=True),
                                 nn.Unflatten(1, (c3, 3, 3)),
                                 *up(c3, c2), *up(c2, c1), nn.ConvTranspose2d(c1, 1, 4, 2, 1))

    def forward(self, z: torch.Tensor) -> torch.Tensor:
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
