"""Readability of the visual attack, JSON on stdout: the neighbour table's own figures
for a-z, A-Z (same-letter precision@20, UTS #39 recall@20) and the share of held-out words (UD
English-EWT test, 4-10 letters) a reader reads back when attacked at φ = 0.3, next to nothing
substituted, UTS #39 confusables and random letters of another script at the same positions.

    python benchmarks/visual_readability.py [--root ARTIFACTS] [--words 300] [--phi 0.3]
                                            [--seed 0] [--reader tesseract|rapidocr] [--px 48]
                                            [--font FILE ...] [--out FILE] [--png FILE]
                                            [--sheet FILE]

``--root``: an artifacts folder (manifest.json + visual/), e.g. a copy of the table before a
re-ranking, so two tables are measured on the same words. ``--png``: examples of the four
conditions; ``--sheet``: a-z, A-Z with their 20 neighbours in the table. ``--reader rapidocr``:
RapidOCR's PP-OCRv4 recogniser instead of Tesseract (pip install rapidocr-onnxruntime);
``--font``: font files drawn first, before the glyph set's chain (a check with other fonts).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from perturb_throughput import DATA, DATA_HELP, recorded
from train.visual.figures import neighbour_sheet
from train.visual.glyphs import GlyphSpec, build_glyphs
from train.visual.quality import table_figures
from zeroe_assets.assets import load_component
from zeroe_assets.assets.tables import NeighbourTable
from zeroe_assets.bench import readability as R
from zeroe_assets.spec import get_perturbation
from zeroe_assets.validate import check_int
from zeroe_assets.visual.fonts import resolve_chain
from zeroe_assets.visual.render import WordRenderer

HELD_OUT = "bench/ud_ewt/en_ewt-ud-test.conllu"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help=DATA_HELP)
    ap.add_argument("--root", type=Path, default=None, help="artifacts folder (default: the "
                                                            "checkout's)")
    ap.add_argument("--words", type=int, default=300)
    ap.add_argument("--phi", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reader", choices=R.READERS, default="tesseract")
    ap.add_argument("--px", type=int, default=R.PX,
                    help=f"the words' size in pixels (default {R.PX}, the targets' size)")
    ap.add_argument("--font", type=Path, action="append", default=[],
                    help="a font file drawn before the chain (repeatable)")
    ap.add_argument("--out", type=Path, help="also write the JSON here")
    ap.add_argument("--png", type=Path, help="write the example sheet here")
    ap.add_argument("--sheet", type=Path, help="write the letters' neighbour sheet here")
    args = ap.parse_args()
    try:  # a bad size, a missing reader or font: one line, before any work
        check_int("--px", args.px, 8, 400)
        reader = R.reader_version(args.reader)
        first = resolve_chain((), tuple(map(str, args.font))) if args.font else []
    except (ValueError, OSError) as e:
        raise SystemExit(f"visual_readability: {e}") from None

    component = load_component("visual", args.root)
    table = NeighbourTable.from_component(component, "table")
    words = R.held_out_words(args.data / HELD_OUT, args.words, args.seed)
    attack = get_perturbation("visual", level=1.0, phi=args.phi, root=args.root)
    renderer = WordRenderer(args.px, first + [p for p in resolve_chain() if p not in first])
    result = R.measure(words, attack, args.seed, renderer=renderer, reader=args.reader)
    report = {"artifacts": str(args.root) if args.root else "the checkout's artifacts/",
              "table": table_figures(table),
              "reranked": bool(component.meta.get("rerank")),
              "held_out": recorded(args.data / HELD_OUT, args.data), "seed": args.seed,
              "phi": args.phi, "reader": reader, "px": args.px,
              "first_fonts": [p.name for p in renderer.chain[:2]], **result.summary()}
    if args.png:
        R.example_sheet(result, renderer, args.png)
    if args.sheet:
        neighbour_sheet(build_glyphs(GlyphSpec()), table.keys, table.neighbours, args.sheet)
    text = json.dumps(report, indent=1, ensure_ascii=False)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
