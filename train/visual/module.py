"""The VAE-GAN of Larsen et al. (2016) as used for Zéroe's visual embeddings (paper §3.3, A.1).

Three losses, three optimisers, updated in turn each step (manual optimisation):
  encoder:        L_prior + L_llike                     (KL to N(0, I), Dis_l feature reconstruction)
  decoder:        γ·L_llike − L_GAN                     (shared by x̃ = Dec(Enc(x)) and x_p = Dec(z_p))
  discriminator:  L_GAN on x, x̃ and x_p
A pixel reconstruction term (weight ``pixel_weight``) keeps early training stable before the
discriminator's features mean anything, and the KL weight ramps up over ``kl_warmup`` steps so
that the encoder learns to carry shape information before the prior squeezes it (otherwise the
posterior collapses to a few nats: ink density and width); the encoder sees augmented views and both reconstruction
terms compare against the canonical glyph.

Reconstruction alone makes μ a compressed picture: its cosine neighbours were no better than raw
pixels' on the NFKD yardstick. The encoder therefore also gets a contrastive term
(``contrast_weight``, NT-Xent of Chen et al. 2020): two distorted views of a glyph must be nearer
each other than any other glyph in the batch. It reads μ through a small projection head
(``projection``); on μ itself it lowered the yardstick in probes, as SimCLR's head ablation predicts.

Redrawing the canonical glyph from a shrunk, raised view of a asks μ to forget size and position,
while redrawing ᵃ asks it to remember them: from near-identical inputs the two goals conflict.
With ``pose`` the decoder is told the target's ink box, so μ can describe shape alone.

The head lets μ keep what the views differ in, size above all (ᵃ's neighbours were other
superscripts). ``align_weight`` also pulls μ of the two views together (1 − cosine), with no
negatives: nothing pushes á away from a, and reconstruction keeps μ from collapsing.

Redrawing the glyph from a view does not make μ(view) equal μ(glyph): the decoder only needs a code
it can decode, and μ of a letter moved by 2 px was barely nearer the letter than another letter
was. ``anchor_weight`` pulls μ of the distorted view towards μ of the glyph itself (1 − cosine,
the glyph's side held fixed, so the canonical code is the target and not half-way to the view).
"""
from __future__ import annotations

from functools import partial

import pytorch_lightning as pl
import torch
import torch.nn.functional as F

from train.checks import positive

from .nets import Decoder, Discriminator, Encoder, ink_box


def kl_prior(mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
    """KL(q(z|x) ‖ N(0, I)) summed over dims, averaged over the batch."""
    return 0.5 * (mu.pow(2) + logvar.exp() - 1 - logvar).sum(1).mean()


def per_sample_sum(loss: torch.Tensor) -> torch.Tensor:
    return loss.flatten(1).sum(1).mean()


def nt_xent(a: torch.Tensor, b: torch.Tensor, temperature: float) -> torch.Tensor:
    """SimCLR's loss: row i of ``a`` must pick row i of ``b`` (and vice versa) by cosine out of
    the 2B − 1 other rows of both."""
    z = F.normalize(torch.cat([a, b]), dim=1)
    sim = (z @ z.T / temperature).fill_diagonal_(float("-inf"))
    n = len(a)
    target = torch.cat([torch.arange(n, 2 * n), torch.arange(n)]).to(a.device)
    return F.cross_entropy(sim, target)


class VAEGANModule(pl.LightningModule):
    def __init__(self, latent: int = 256, channels: tuple[int, ...] = (32, 64, 128),
                 disc_channels: tuple[int, ...] = (16, 32, 64), lr: float = 1e-3,
                 betas: tuple[float, float] = (0.5, 0.999), kl_weight: float = 0.1,
                 kl_warmup: int = 2000, gamma: float = 1.0, llike_weight: float = 1.0,
                 pixel_weight: float = 1.0, gan_weight: float = 0.1, contrast_weight: float = 0.0,
                 temperature: float = 0.1, projection: int = 0, pose: bool = False,
                 align_weight: float = 0.0, anchor_weight: float = 0.0, pool: bool = False):
        super().__init__()
        positive("model", latent=latent)  # 0 would train a whole run and fail drawing the t-SNE
        self.save_hyperparameters()
        self.automatic_optimization = False
        self.encoder = Encoder(latent, tuple(channels), pool)
        self.decoder = Decoder(latent, tuple(channels), pose)
        self.discriminator = Discriminator(tuple(disc_channels))
        self.projection = (torch.nn.Sequential(torch.nn.Linear(latent, latent), torch.nn.ReLU(),
                                               torch.nn.Linear(latent, projection))
                           if projection else torch.nn.Identity())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The embedding μ of a batch of glyphs in [0, 1]."""
        return self.encoder(x)[0]

    def reconstruct(self, x: torch.Tensor, like: torch.Tensor | None = None) -> torch.Tensor:
        """Dec(μ(x)), drawn where the ink of ``like`` (default: x itself) sits."""
        return torch.sigmoid(self.decoder(self.encoder(x)[0], ink_box(x if like is None else like)))

    def configure_optimizers(self):
        adam = partial(torch.optim.Adam, lr=self.hparams.lr, betas=tuple(self.hparams.betas))
        return (adam([*self.encoder.parameters(), *self.projection.parameters()]),
                adam(self.decoder.parameters()),
                adam(self.discriminator.parameters()))

    def _step(self, opt, loss: torch.Tensor) -> None:
        opt.zero_grad(set_to_none=True)
        self.manual_backward(loss)
        opt.step()

    def _llike(self, x_rec: torch.Tensor, feats_real: torch.Tensor) -> torch.Tensor:
        """L_llike^Dis_l: Gaussian log-likelihood in the discriminator's feature layer."""
        return per_sample_sum(F.mse_loss(self.discriminator(x_rec)[1], feats_real, reduction="none"))

    def training_step(self, batch, batch_idx: int) -> None:
        view, view2, x = batch
        h = self.hparams
        opt_enc, opt_dec, opt_dis = self.optimizers()
        with torch.no_grad():
            feats_real = self.discriminator(x)[1]
            box = ink_box(x)

        # encoder: L_prior + L_llike (+ pixels), gradients through the decoder into Enc only
        self.toggle_optimizer(opt_enc)
        mu, logvar = self.encoder(view)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        logits = self.decoder(z, box)
        kl = kl_prior(mu, logvar)
        llike = self._llike(torch.sigmoid(logits), feats_real)
        pixel = per_sample_sum(F.binary_cross_entropy_with_logits(logits, x, reduction="none"))
        beta = h.kl_weight * min(1.0, (self.global_step + 1) / max(h.kl_warmup, 1))
        loss = beta * kl + h.llike_weight * llike + h.pixel_weight * pixel
        if h.contrast_weight or h.align_weight:
            mu2 = self.encoder(view2)[0]
        if h.contrast_weight:
            contrast = nt_xent(self.projection(mu), self.projection(mu2), h.temperature)
            loss = loss + h.contrast_weight * contrast
            self.log("train/contrast", contrast, prog_bar=True, on_step=True, on_epoch=True,
                     batch_size=len(x))
        if h.align_weight:
            align = (1 - F.cosine_similarity(mu, mu2)).mean()
            loss = loss + h.align_weight * align
            self.log("train/align", align, on_step=True, on_epoch=True, batch_size=len(x))
        if h.anchor_weight:
            with torch.no_grad():
                mu_x = self.encoder(x)[0]
            anchor = (1 - F.cosine_similarity(mu, mu_x)).mean()
            loss = loss + h.anchor_weight * anchor
            self.log("train/anchor", anchor, on_step=True, on_epoch=True, batch_size=len(x))
        self._step(opt_enc, loss)
        self.untoggle_optimizer(opt_enc)

        # decoder: γ·L_llike − L_GAN (non-saturating form) on x̃ and x_p, one discriminator pass
        self.toggle_optimizer(opt_dec)
        x_rec = torch.sigmoid(self.decoder(z.detach(), box))
        x_p = torch.sigmoid(self.decoder(torch.randn_like(mu), box))
        logit_fake, feats = self.discriminator(torch.cat([x_rec, x_p]))
        fool = F.binary_cross_entropy_with_logits(logit_fake, torch.ones_like(logit_fake)) * 2
        llike_dec = per_sample_sum(F.mse_loss(feats[:len(x)], feats_real, reduction="none"))
        pixel_dec = per_sample_sum(F.binary_cross_entropy(x_rec.clamp(1e-6, 1 - 1e-6), x,
                                                          reduction="none"))
        self._step(opt_dec, h.gamma * h.llike_weight * llike_dec + h.pixel_weight * pixel_dec
                   + h.gan_weight * fool)
        self.untoggle_optimizer(opt_dec)

        # discriminator: L_GAN, telling x from x̃ and x_p
        self.toggle_optimizer(opt_dis)
        logits = self.discriminator(torch.cat([x, x_rec.detach(), x_p.detach()]))[0]
        real = torch.zeros_like(logits)
        real[:len(x)] = 1
        gan = F.binary_cross_entropy_with_logits(logits, real) * 3
        self._step(opt_dis, gan)
        self.untoggle_optimizer(opt_dis)

        self.log_dict({"train/kl": kl, "train/llike": llike, "train/pixel_bce": pixel,
                       "train/gan": gan, "train/fool": fool}, prog_bar=False, on_step=True,
                      on_epoch=True, batch_size=len(x))
        self.log("train/recon_mse", F.mse_loss(x_rec.detach(), x), prog_bar=True,
                 on_step=True, on_epoch=True, batch_size=len(x))

    def validation_step(self, batch, batch_idx: int) -> None:
        x = batch[-1]
        mu, logvar = self.encoder(x)
        logits = self.decoder(mu, ink_box(x))
        self.log_dict({
            "val/recon_mse": F.mse_loss(torch.sigmoid(logits), x),
            "val/pixel_bce": per_sample_sum(F.binary_cross_entropy_with_logits(logits, x,
                                                                               reduction="none")),
            "val/kl": kl_prior(mu, logvar),
        }, prog_bar=True, batch_size=len(x), sync_dist=True)  # under DDP: over every rank's shard
