"""Quality of the visual space (JSON on stdout) and the figures for the README (docs/):
held-out reconstruction error, the NFKD and UTS #39 confusables yardsticks for the learned space
vs raw pixels side by side (each from the first font that covers a glyph and averaged over every
font of the chain, as the export does by default), recall@k for k from 1 to 5,000 (the table's
top 20 is one point on that curve), where each kind of NFKD look-alike (accented, superscript,
fullwidth, …) ranks in both spaces, how much of a letter survives a move, a size or a stroke
weight in each space, neighbour sheets for both, the reconstruction grid (paper Fig. 7) and the t-SNE (Fig. 8).

    python benchmarks/visual_quality.py --ckpt PATH [--docs docs] [--out FILE]

The learned neighbour sheet shows the exported table (what the attack uses), so run the export
of the same checkpoint first.
"""
from __future__ import annotations

import argparse
import json
import string
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from train.visual.augment import GlyphAugment
from train.visual.embed import encode, load_checkpoint, over_fonts
from train.visual.export import heldout_mse, neighbour_table
from train.visual.figures import (TSNE_LETTERS, distorted_views, neighbour_sheet,
                                  reconstruction_grid, recall_curve_plot, tsne_plot)
from train.visual.glyphs import build_glyphs
from train.visual.quality import (YARDSTICKS, accented_only, compare_letters, member_ranks,
                                  ranks_by_kind, raw_pixels, recall, recall_curve, top_k_shares,
                                  view_invariance)
from zeroe_assets.assets import load_component
from zeroe_assets.assets.index import normalise
from zeroe_assets.assets.tables import NeighbourTable
from zeroe_assets.visual import is_candidate

ROOT = Path(__file__).resolve().parents[1]
CURVE_KS = (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700, 1000, 2000, 5000)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--docs", type=Path, default=ROOT / "docs")
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    model, spec, data = load_checkpoint(args.ckpt)
    glyphs = build_glyphs(replace(spec, alternates=True))
    keys = glyphs.codepoints.astype(np.int64)
    first = {"learned": encode(model, glyphs.images), "raw_pixels": raw_pixels(glyphs.images)}
    alts = {"learned": encode(model, glyphs.alt_images), "raw_pixels": raw_pixels(glyphs.alt_images)}
    spaces = {**{f"{s}_first_font": normalise(v) for s, v in first.items()},
              **{f"{s}_every_font": over_fonts(first[s], alts[s], glyphs.alt_rows) for s in first}}
    raw = spaces["raw_pixels_first_font"]
    scores = {name: {space: recall(v, keys, name, args.k) for space, v in spaces.items()}
              for name in YARDSTICKS}
    curves = {name: {space: recall_curve(member_ranks(v, keys, YARDSTICKS[name](keys)), CURVE_KS)
                     for space, v in spaces.items()} for name in YARDSTICKS}
    rows = {int(cp): i for i, cp in enumerate(keys)}
    letters = glyphs.images[[rows[ord(c)] for c in string.ascii_letters]]
    table = NeighbourTable.from_component(load_component("visual"), "table")
    candidates = np.array([is_candidate(chr(c)) for c in keys.tolist()])
    raw_table = neighbour_table(raw, keys, candidates, args.k)
    aug = GlyphAugment()
    figures = [
        neighbour_sheet(glyphs, table.keys, table.neighbours, args.docs / "visual_neighbours.png"),
        neighbour_sheet(glyphs, raw_table.keys, raw_table.neighbours,
                        args.docs / "visual_neighbours_raw.png"),
        reconstruction_grid(model, glyphs, args.docs / "visual_reconstructions.png", aug),
        recall_curve_plot(curves, args.docs / "visual_recall_curve.png", args.k),
        tsne_plot(spaces["learned_first_font"], glyphs, args.docs / "visual_tsne.png",
                  extra=distorted_views(model, glyphs, aug, TSNE_LETTERS)),
    ]
    result = {
        "glyphs": len(glyphs), "checkpoint": str(args.ckpt),
        "heldout_recon_mse": round(heldout_mse(model, glyphs, data), 5),
        **{f"{name}_recall_at_k": yardstick_report(s, args.k) for name, s in scores.items()},
        "nfkd_accented_only": accented_only(keys, args.k),
        "recall_curve (macro recall@k by k)": curves,
        "nfkd_by_kind": {space: ranks_by_kind(v, keys, args.k) for space, v in spaces.items()},
        "top_k_shares": {space: top_k_shares(v, keys, args.k) for space, v in spaces.items()},
        "view_invariance (a-z, A-Z, first font)": {
            "learned": view_invariance(lambda im: encode(model, im), letters),
            "raw_pixels": view_invariance(raw_pixels, letters)},
        "figures": [str(f.relative_to(ROOT)) if f.is_relative_to(ROOT) else str(f) for f in figures],
    }
    text = json.dumps(result, indent=1, ensure_ascii=False)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


def yardstick_report(scores: dict[str, dict], k: int) -> dict:
    """Macro and micro recall of every space, the shipped space against raw pixels letter by
    letter (is the difference consistent, or a few letters?) and the per-letter figures."""
    ours = scores["learned_every_font"]["per_letter"]
    return {
        "k": k, **{space: {m: r[m] for m in ("macro", "micro")} for space, r in scores.items()},
        "letters, learned every font vs raw pixels": {
            f"raw_{fonts}": compare_letters(ours, scores[f"raw_pixels_{fonts}"]["per_letter"])
            for fonts in ("first_font", "every_font")},
        "per_letter (learned every font, raw pixels first font)": {
            c: [ours[c], scores["raw_pixels_first_font"]["per_letter"][c]] for c in ours}}


if __name__ == "__main__":
    main()
