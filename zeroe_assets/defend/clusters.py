"""RobEn's clusters (Jones et al. 2020), traded off as they did between stability and fidelity:
words of the vocabulary one change of the attack surface apart (one is a form of the other, or
they share a form) are one cluster, so that an attacker cannot move a word to its neighbour, but
two *frequent* words never merge (that would cost the victim the difference between them). A
word seen fewer than ``merge_below`` times in training is rare: it joins the cluster of the most
frequent word it touches. ``merge_below=0`` merges nothing; a very large one is RobEn's
connected components (every chain of neighbours one cluster).
"""
from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

from .surface import Surface

# the families whose forms can be another vocabulary word or share one with it (the others
# put a symbol or a look-alike in, which no vocabulary word holds)
LINKING = ("swap", "delete", "insert", "keyboard", "truncate", "disemvowel", "natural-typo",
           "phonetic")


def build_clusters(counts: Mapping[str, int], surface: Surface,
                   merge_below: int) -> dict[str, str]:
    """word → its cluster's representative (the cluster's most frequent word), for every word
    of ``counts`` (lower case, training counts)."""
    by_form: dict[str, list[str]] = {}
    linking = Surface([f for f in LINKING if f in surface.families])
    for word in counts:
        for form in linking.forms(word):
            by_form.setdefault(form.lower(), []).append(word)
    edges = set()
    for form, words in by_form.items():
        if form in counts:
            words = words + [form]
        edges.update((min(u, v), max(u, v)) for u, v in combinations(set(words), 2))
    parent = {w: w for w in counts}

    def root(w: str) -> str:
        while parent[w] != w:
            parent[w] = parent[parent[w]]
            w = parent[w]
        return w

    def rank(w: str) -> tuple[int, str]:
        return counts[w], w

    frequent = {w: counts[w] >= merge_below for w in counts}  # per root: holds a frequent word
    # the strongest links first: a rare word joins the most frequent word it touches
    for u, v in sorted(edges, key=lambda e: (-max(counts[e[0]], counts[e[1]]),
                                             -min(counts[e[0]], counts[e[1]]), e)):
        a, b = root(u), root(v)
        if a == b or (frequent[a] and frequent[b]):
            continue
        if rank(a) < rank(b):
            a, b = b, a
        parent[b] = a  # the root is the cluster's most frequent word
        frequent[a] = frequent[a] or frequent[b]
    return {w: root(w) for w in counts}
