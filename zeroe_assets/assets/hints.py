"""How to rebuild each asset component: the one place error messages take the command from."""
from __future__ import annotations

REBUILD = {
    "visual": "rebuild with `python -m train.vaegan` (trains and exports) or "
    "`python -m train.export export=visual ckpt=PATH`",
    "phonetic": "rebuild with `python -m train.seq2seq`, `python -m train.phonetic` and "
    "`python -m train.export export=phonetic ckpt=PATH`",
    "phonetic/seq2seq": "rebuild with `python -m train.seq2seq direction=g2p` and "
    "`python -m train.seq2seq direction=p2g`",
    "shield": "rebuild with `python -m train.shield` (trains the ranker and exports it)",
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
