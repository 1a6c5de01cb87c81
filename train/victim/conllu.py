"""Token forms and UPOS tags per sentence from a CoNLL-U file (clean or perturbed)."""
from __future__ import annotations

from pathlib import Path

Sentence = tuple[list[str], list[str]]


def read_conllu(path: str | Path) -> list[Sentence]:
    """``(forms, upos)`` per sentence; comments, multiword ranges (``1-2``) and empty nodes
    (``1.1``) are skipped because the tagger labels syntactic words only."""
    sentences: list[Sentence] = []
    forms: list[str] = []
    tags: list[str] = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                if forms:
                    sentences.append((forms, tags))
                    forms, tags = [], []
                continue
            if line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 10:
                raise ValueError(f"{path}:{number}: expected 10 tab-separated CoNLL-U columns, "
                                 f"got {len(cols)}")
            if "-" in cols[0] or "." in cols[0]:
                continue
            forms.append(cols[1])
            tags.append(cols[3])
    if forms:
        sentences.append((forms, tags))
    if not sentences:
        raise ValueError(f"{path}: no sentences (is it a CoNLL-U file?)")
    return sentences
