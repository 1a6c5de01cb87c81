"""Quality figures: reconstructions (paper Fig. 7), a t-SNE of a labelled subset (Fig. 8) and a
neighbour sheet. Glyphs are drawn as their own images, so no plotting font has to cover them."""
from __future__ import annotations

import string
from pathlib import Path

import numpy as np
import torch

from zeroe_assets.report.plots import pyplot

from .augment import GlyphAugment
from .glyphs import GlyphSet
from .module import VAEGANModule
from .quality import nfkd_groups

TSNE_LETTERS = "acegiosuyAEO"
FIG7_CHARS = string.ascii_lowercase + string.ascii_uppercase + string.digits + "αβγδЖЯשאضع漢字가나ℵ∑"


def _save(pixels: np.ndarray, path: Path, zoom: int = 3) -> Path:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    img = Image.fromarray((255 - pixels).astype(np.uint8))  # dark ink on white
    img.resize((img.width * zoom, img.height * zoom), Image.Resampling.NEAREST).save(path)
    return path


def _tile(rows: list[np.ndarray], pad: int = 1) -> np.ndarray:
    """Stack rows of (n, H, W) glyphs into one image with ``pad`` pixels between glyphs."""
    n = max(len(r) for r in rows)
    h, w = rows[0].shape[1:]
    out = np.zeros((len(rows) * (h + pad) + pad, n * (w + pad) + pad), np.float32)
    for i, row in enumerate(rows):
        for j, g in enumerate(row):
            out[pad + i * (h + pad):pad + i * (h + pad) + h, pad + j * (w + pad):pad + j * (w + pad) + w] = g
    return out


@torch.no_grad()
def reconstruction_grid(model: VAEGANModule, glyphs: GlyphSet, path: Path,
                        augment: GlyphAugment | None = None, chars: str = FIG7_CHARS,
                        per_row: int = 32, seed: int = 0) -> Path:
    """Originals over their reconstructions; with ``augment``, also a distorted view over what the
    model makes of it (it should redraw the canonical glyph)."""
    idx = glyphs.index_of(chars)
    x = torch.from_numpy(glyphs.images[idx]).unsqueeze(1).float() / 255
    bands = [x, model.reconstruct(x)]
    if augment is not None:
        view = augment(x, torch.Generator().manual_seed(seed))
        bands += [view, model.reconstruct(view, like=x)]
    rows = []
    for start in range(0, len(idx), per_row):
        rows += [b[start:start + per_row, 0].numpy() * 255 for b in bands]
        rows.append(np.zeros((1, *x.shape[2:])))  # blank separator row
    return _save(_tile(rows), path)


def neighbour_sheet(glyphs: GlyphSet, keys: np.ndarray, neighbours: np.ndarray, path: Path,
                    chars: str = string.ascii_lowercase + string.ascii_uppercase) -> Path:
    """Each character followed by its neighbours, one row per character."""
    rows_of = {int(k): i for i, k in enumerate(keys)}
    at = {int(cp): i for i, cp in enumerate(glyphs.codepoints)}
    blank = np.zeros(glyphs.images.shape[1:], np.uint8)
    rows = []
    for ch in chars:
        if ord(ch) in rows_of:
            cps = [ord(ch)] + [int(c) for c in neighbours[rows_of[ord(ch)]]]
            imgs = [glyphs.images[at[c]] if c in at else blank for c in cps]
            rows.append(np.stack([imgs[0], blank, *imgs[1:]]))
    return _save(_tile(rows), path, zoom=2)


@torch.no_grad()
def distorted_views(model: VAEGANModule, glyphs: GlyphSet, augment: GlyphAugment, letters: str,
                    n: int = 4, seed: int = 0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Letter → (μ, images) of ``n`` random distortions of it: where robustness shows in a t-SNE."""
    generator = torch.Generator().manual_seed(seed)
    out = {}
    for ch in letters:
        idx = glyphs.index_of(ch) * n
        if idx:
            view = augment(torch.from_numpy(glyphs.images[idx]).unsqueeze(1).float() / 255, generator)
            out[ch] = (model(view).numpy(), (view[:, 0].numpy() * 255).astype(np.uint8))
    return out


def tsne_plot(vectors: np.ndarray, glyphs: GlyphSet, path: Path,
              letters: str = TSNE_LETTERS, per_letter: int = 25, seed: int = 0,
              extra: dict[str, tuple[np.ndarray, np.ndarray]] | None = None) -> Path | None:
    """t-SNE of letters and their NFKD look-alikes, each point drawn as its glyph tinted by group.
    ``extra`` maps a letter to (vectors, images) of more points for it, e.g. distorted views.
    None (no figure) for a glyph set without such letters, e.g. a font of symbols."""
    plt = pyplot()
    from matplotlib.offsetbox import AnnotationBbox, OffsetImage
    from sklearn.manifold import TSNE


    groups = nfkd_groups(glyphs.codepoints)
    at = {int(cp): i for i, cp in enumerate(glyphs.codepoints)}
    vecs, imgs, labels = [], [], []
    for li, letter in enumerate(c for c in letters if c in groups):
        rows = [at[ord(letter)]] + [at[cp] for cp in groups[letter][:per_letter]]
        points = [(vectors[rows], glyphs.images[rows])]
        if extra and letter in extra:
            points.append(extra[letter])
        for v, im in points:
            vecs.append(v)
            imgs.extend(im)
            labels.extend([li] * len(v))
    if sum(map(len, vecs)) < 3:
        return None
    v = np.concatenate(vecs)
    v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
    xy = TSNE(2, perplexity=min(30, len(v) - 1), init="pca", random_state=seed,
              metric="cosine").fit_transform(v)
    fig, ax = plt.subplots(figsize=(12, 12))
    ax.scatter(xy[:, 0], xy[:, 1], s=0)
    cmap = plt.get_cmap("tab20")
    for (x, y), img, lab in zip(xy, imgs, labels):
        rgba = np.zeros((*img.shape, 4))
        rgba[..., :3] = cmap(lab % 20)[:3]
        rgba[..., 3] = img / 255
        ax.add_artist(AnnotationBbox(OffsetImage(rgba, zoom=1.2), (x, y), frameon=False))
    ax.set_title("t-SNE of visual embeddings: letters, their NFKD look-alikes and distorted views")
    ax.set_xticks([]), ax.set_yticks([])
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return path


def recall_curve_plot(curves: dict[str, dict[str, dict[int, float]]], path: Path,
                      k_mark: int = 20) -> Path:
    """Recall@k against k (log scale) for each yardstick (one panel) and space (one line), with
    the neighbour table's k marked."""
    plt = pyplot()

    fig, axes = plt.subplots(1, len(curves), figsize=(6 * len(curves), 4.5), squeeze=False)
    for ax, (name, spaces) in zip(axes[0], curves.items()):
        for space, curve in spaces.items():
            ax.plot(list(curve), list(curve.values()), marker=".",
                    ls="-" if space.startswith("learned") else "--", label=space.replace("_", " "))
        ax.axvline(k_mark, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set(title=f"{name}: look-alikes found among a letter's k nearest", xlabel="k",
               ylabel="macro recall@k", ylim=(0, 1))
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return path
