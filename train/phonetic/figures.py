"""Figures of a phonetic embedder run: the confusion matrix of its held-out pairs."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from zeroe_assets.phonetic.names import CLASSES
from zeroe_assets.report.plots import pyplot


def confusion_figure(confusion: np.ndarray, path: Path, title: str) -> Path:
    """Row-normalised confusion matrix with counts, as a PNG."""
    plt = pyplot()

    rates = confusion / np.maximum(confusion.sum(1, keepdims=True), 1)
    fig, ax = plt.subplots(figsize=(5.2, 4.4), dpi=120)
    ax.imshow(rates, cmap="Blues", vmin=0, vmax=1)
    names = [c.replace("_", " ") for c in CLASSES]
    ax.set_xticks(range(len(CLASSES)), names, rotation=20)
    ax.set_yticks(range(len(CLASSES)), names)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true (held-out pairs)")
    for i in range(len(CLASSES)):
        for j in range(len(CLASSES)):
            ax.text(j, i, f"{rates[i, j]:.2f}\n({confusion[i, j]})", ha="center", va="center",
                    fontsize=8, color="white" if rates[i, j] > 0.5 else "black")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
