"""Token forms and UPOS tags per sentence from a CoNLL-U file (clean or perturbed)."""
from __future__ import annotations

from pathlib import Path

from zeroe_assets.formats import ConlluFormat

Sentence = tuple[list[str], list[str]]


def read_conllu(path: str | Path) -> list[Sentence]:
    """``(forms, upos)`` per sentence through the benchmark's CoNLL-U reader, which skips
    comments, multiword ranges (``1-2``) and empty nodes (``1.1``): the tagger labels syntactic
    words only."""
    fmt = ConlluFormat()
    sentences = [fmt.tokens(record) for record in fmt.read(Path(path)) if record.texts]
    if not sentences:
        raise ValueError(f"{path}: no sentences (is it a CoNLL-U file?)")
    return sentences
