"""What a character reads as by Unicode's own account, not by pixels: the UTS #39 confusable
classes (the data of the ``confusable-homoglyphs`` package, imported on use) and NFKD.

``skeleton(text)``: each character of the NFD form replaced by the representative of its
confusable class. The package lists single characters only, so UTS #39's few multi-character
prototypes (m ~ rn) are not known here; two strings with equal skeletons are confusable.
``reads_as(ch)``: the ASCII letters (lower case) a reader takes ``ch`` for: those in its
confusable class, and the base letter of its NFKD decomposition (ë → e).
"""
from __future__ import annotations

import functools
import string
import unicodedata


@functools.lru_cache(maxsize=1)
def _classes() -> dict[str, str]:
    """Character → its class representative (the smallest member), by union-find over the
    package's confusable pairs."""
    try:
        from confusable_homoglyphs import confusables
    except ImportError:
        raise ValueError("UTS #39 skeletons need confusable-homoglyphs: pip install "
                         "confusable-homoglyphs (the [bench] extra)") from None
    parent: dict[str, str] = {}

    def root(c: str) -> str:
        while parent.get(c, c) != c:
            parent[c] = parent.get(parent[c], parent[c])
            c = parent[c]
        return c

    for ch, similar in confusables.confusables_data.items():
        if len(ch) != 1:
            continue
        for entry in similar:
            other = entry["c"]
            if len(other) == 1:
                a, b = root(ch), root(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {c: root(c) for c in parent}


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text`` as far as single-character classes go."""
    classes = _classes()
    return "".join(classes.get(c, c) for c in unicodedata.normalize("NFD", text))


@functools.lru_cache(maxsize=None)
def reads_as(ch: str) -> frozenset[str]:
    """The lower-case ASCII letters ``ch`` reads as (empty: none, e.g. a digit or a symbol)."""
    letters = set(_letters().get(_classes().get(ch, ch), ()))
    base = unicodedata.normalize("NFKD", ch)[:1]
    if base and base in string.ascii_letters:
        letters.add(base.lower())
    return frozenset(letters)


def confusables_of(ch: str) -> list[str]:
    """The other members of ``ch``'s confusable class, in code point order."""
    classes = _classes()
    root = classes.get(ch, ch)  # a class's representative is not among the keys
    return sorted({root, *(c for c, r in classes.items() if r == root)} - {ch})


@functools.lru_cache(maxsize=1)
def _letters() -> dict[str, frozenset[str]]:
    """Class representative → the lower-case ASCII letters in the class."""
    classes, out = _classes(), {}
    for c in string.ascii_letters:
        rep = classes.get(c, c)
        out[rep] = out.get(rep, frozenset()) | {c.lower()}
    return out


__all__ = ["confusables_of", "reads_as", "skeleton"]
