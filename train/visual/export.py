"""Export the visual space (paper §3.3): μ of every glyph → FAISS index + top-k neighbour table,
written through the artifact store with the font chain, config and quality figures."""
from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf

from train.checks import positive
from zeroe_assets.assets import library_versions, load_component, write_component
from zeroe_assets.assets.index import VectorIndex, choose_index, exact_top_k
from zeroe_assets.assets.tables import NeighbourTable
from zeroe_assets.visual.space import COMPONENT, is_candidate

from .datamodule import split
from .embed import embed_glyphs, load_checkpoint, over_fonts, reconstruct
from .glyphs import GlyphSet, build_glyphs
from train.publish import Destination

from .quality import YARDSTICKS, raw_pixels, recall, table_figures
from .rerank import Rerank, rerank

log = logging.getLogger(__name__)


def neighbour_table(vectors: np.ndarray, keys: np.ndarray, candidates: np.ndarray,
                    k: int) -> NeighbourTable:
    """Exact top-k among the candidate glyphs for every glyph, itself excluded."""
    pool = np.flatnonzero(candidates)
    k = min(k, len(pool) - 1)
    if k < 1:
        raise ValueError(f"only {len(pool)} candidate glyphs: too few for a neighbour table")
    scores, ids = exact_top_k(vectors[pool], vectors, k + 1)
    found = keys[pool][ids]
    keep = np.argsort(found == keys[:, None], axis=1, kind="stable")[:, :k]  # self last, dropped
    return NeighbourTable(keys, np.take_along_axis(found, keep, 1),
                          np.take_along_axis(scores, keep, 1).astype(np.float16))


@torch.no_grad()
def heldout_mse(model, glyphs: GlyphSet, data: dict) -> float:
    """Pixel MSE of Dec(μ) on the glyphs the training split held out."""
    _, val = split(len(glyphs), data["val_fraction"], data["seed"])
    x = torch.from_numpy(glyphs.images[val.numpy()]).unsqueeze(1).float() / 255
    return float(((reconstruct(model, x) - x) ** 2).mean())


def check_export(cfg: DictConfig) -> None:
    """Fail on bad ``export.*`` numbers before a training run whose end they would spoil."""
    positive("export", top_k=cfg.top_k, batch_size=cfg.batch_size)
    if cfg.get("rerank"):
        positive("export.rerank", tuning_words=cfg.rerank.tuning_words, pool=cfg.rerank.pool,
                 carriers=cfg.rerank.carriers, px=cfg.rerank.px)
        rerank_settings(cfg.rerank)


def rerank_settings(cfg: DictConfig) -> Rerank:
    """`Rerank` from ``export.rerank`` (a config without ``readers`` reads with Tesseract, as
    every export did before there was a second reader; without ``blur``, sharp only)."""
    return Rerank(pool=cfg.pool, carriers=cfg.carriers, px=cfg.px, bonus=cfg.bonus,
                  weight=cfg.weight, case=cfg.case, same_case=cfg.get("same_case", False),
                  shape=cfg.get("shape", 0.0),
                  readers=tuple(cfg.get("readers", ["tesseract"]) or ()),
                  blur=cfg.get("blur", 0.0))


def reranked(table: NeighbourTable, index: VectorIndex, cfg: DictConfig
             ) -> tuple[NeighbourTable, dict]:
    """``table`` with its letters re-ranked as ``cfg`` (``export.rerank``) says, on tuning words
    that are not among the held-out words the readability bench draws from; and its record."""
    from zeroe_assets.bench.readability import held_out_words, reader_version, words_in

    settings = rerank_settings(cfg)
    versions = [reader_version(r) for r in settings.readers]  # a missing reader: one line, now
    held = {w.lower() for w in words_in(Path(cfg.held_out))}
    words = held_out_words(Path(cfg.words), cfg.tuning_words, cfg.seed, exclude=held)
    new, rows = rerank(table, index, words, settings)
    return new, {"settings": OmegaConf.to_container(cfg, resolve=True), "readers": versions,
                 "table_before": table_figures(table), "table_after": table_figures(new),
                 "rows": rows}


def rerank_exported(cfg: DictConfig, dest: Destination) -> dict:
    """Re-rank the letters of the shipped table and write it to ``dest`` with its index
    unchanged: the reading order without a checkpoint (``ckpt=null``)."""
    check_export(cfg)
    if not cfg.get("rerank"):
        raise ValueError("ckpt=null re-ranks the exported table, but export.rerank is null")
    component = load_component(COMPONENT, dest.shipped)
    table, info = reranked(NeighbourTable.from_component(component, "table"),
                           VectorIndex.from_component(component, "index"), cfg.rerank)
    index_files = {rel: component.file(rel).read_bytes() for rel in component.files
                   if rel.startswith("index.")}
    meta = {**component.meta, "rerank": info,
            "quality": {**component.meta.get("quality", {}), "table": info["table_after"]}}
    write_component(COMPONENT, {**index_files, **table.files("table")}, meta,
                    root=dest.admit(COMPONENT, meta))
    log.info("re-ranked %d letters: same-letter precision@%d %s → %s, UTS #39 recall %s → %s",
             len(info["rows"]), table.k, info["table_before"]["same_letter_precision"],
             info["table_after"]["same_letter_precision"],
             info["table_before"]["confusables_recall"], info["table_after"]["confusables_recall"])
    return meta


def export_visual(ckpt: str | Path, cfg: DictConfig, dest: Destination,
                  glyphs: GlyphSet | None = None) -> dict:
    """Write ``visual`` to ``dest`` from checkpoint ``ckpt``; returns the metadata."""
    check_export(cfg)
    start = time.perf_counter()
    model, spec, data = load_checkpoint(ckpt)
    if glyphs is None or (cfg.every_font and not glyphs.spec.alternates):
        glyphs = build_glyphs(replace(spec, alternates=cfg.every_font))
    if data.get("fingerprint", glyphs.fingerprint) != glyphs.fingerprint:
        raise ValueError(f"{ckpt} was trained on glyph set {data['fingerprint']} but these fonts "
                         f"render {glyphs.fingerprint}: the font files or settings changed; "
                         "retrain, or restore the fonts listed in the checkpoint's run config")
    vectors = embed_glyphs(model, glyphs, cfg.every_font, cfg.batch_size)
    keys = glyphs.codepoints.astype(np.uint16 if glyphs.codepoints.max() < 1 << 16 else np.uint32)
    candidates = np.array([is_candidate(chr(c)) for c in keys.tolist()])
    table = neighbour_table(vectors, keys, candidates, cfg.top_k)
    index, agreement = choose_index(vectors, keys, list(cfg.factories), cfg.top_k, cfg.min_agreement)
    order = None
    if cfg.get("rerank"):
        table, order = reranked(table, index, cfg.rerank)
    built = time.perf_counter() - start
    spaces = {"learned": vectors, "raw_pixels": raw_pixels(glyphs.images)}
    if cfg.every_font:  # the baseline given the same treatment, so the comparison stays fair
        spaces["raw_pixels_every_font"] = over_fonts(spaces["raw_pixels"],
                                                     raw_pixels(glyphs.alt_images), glyphs.alt_rows)
    quality = {"heldout_recon_mse": round(heldout_mse(model, glyphs, data), 5),
               "table": table_figures(table),
               **{f"{name}_recall": {space: recall(v, keys.astype(np.int64), name, cfg.top_k)
                                     for space, v in spaces.items()} for name in YARDSTICKS}}
    meta = {"dims": index.dim, "glyphs": len(keys), "key": "code point", "top_k": table.k,
            "index_factory": list(agreement)[-1],  # tried in order, most compact first
            "index_tried": [{"factory": f, "agreement": a} for f, a in agreement.items()],
            "glyph_set": glyphs.meta(),
            "model": dict(model.hparams), "data": {k: v for k, v in data.items() if k != "glyphs"},
            "checkpoint": {"file": Path(ckpt).name,
                           "sha256": hashlib.sha256(Path(ckpt).read_bytes()).hexdigest()},
            "export_config": OmegaConf.to_container(cfg, resolve=True), "quality": quality,
            "rerank": order,
            "export_seconds": round(built, 1),
            "versions": library_versions("torch", "pytorch-lightning", "pillow", "fonttools")}
    path = write_component(COMPONENT, {**index.files("index"), **table.files("table")}, meta,
                           root=dest.admit(COMPONENT, meta))
    log.info("exported %d glyphs to %s in %.1f s (index %s, agreement %s)", len(keys), path, built,
             meta["index_factory"], agreement)
    for name in YARDSTICKS:
        log.info("%s recall@%d (macro / micro): %s", name, table.k, ", ".join(
            f"{space} {r['macro']} / {r['micro']}"
            for space, r in quality[f"{name}_recall"].items()))
    return meta
