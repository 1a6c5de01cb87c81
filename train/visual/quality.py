"""Quality of a visual space without human labels of our own: two Unicode yardsticks.

NFKD: for each ASCII letter, the BMP letters whose compatibility decomposition starts with it
(à á â ä ą ǎ ª ａ …) are look-alikes by construction. Confusables: the characters Unicode's
security report (UTS #39, ``confusables.txt``, read from the ``confusable_homoglyphs`` package)
lists as confusable with the letter (Cyrillic а, Greek ο, fullwidth ａ …), a human-curated list.
A good space ranks them among the letter's top k; the same measures on raw pixels are the
baseline the learned space must beat. ``view_invariance`` asks the question behind both: does a
letter stay itself when it is moved, resized, widened or drawn bolder?
"""
from __future__ import annotations

import math
import re
import string
import unicodedata

import numpy as np
import torch

from zeroe_assets.assets.index import exact_top_k, normalise
from zeroe_assets.assets.tables import NeighbourTable
from zeroe_assets.visual.confusables import reads_as

from .augment import affine, stroke


def nfkd_groups(codepoints: np.ndarray) -> dict[str, list[int]]:
    """ASCII letter → code points (in the glyph set) of the other letters decomposing to it."""
    present = set(codepoints.tolist())
    groups: dict[str, list[int]] = {c: [] for c in string.ascii_letters if ord(c) in present}
    for cp in codepoints.tolist():
        ch = chr(cp)
        if unicodedata.category(ch).startswith("L") and ch not in groups:
            head = unicodedata.normalize("NFKD", ch)[:1]
            if head in groups:
                groups[head].append(cp)
    return {c: g for c, g in groups.items() if g}


def confusable_groups(codepoints: np.ndarray) -> dict[str, list[int]]:
    """ASCII letter → code points (in the glyph set) that UTS #39 lists as confusable with it."""
    from confusable_homoglyphs.confusables import confusables_data

    present = set(codepoints.tolist())
    groups = {}
    for letter in string.ascii_letters:
        found = sorted({ord(e["c"]) for e in confusables_data.get(letter, ())
                        if len(e["c"]) == 1 and e["c"] != letter and ord(e["c"]) in present})
        if found and ord(letter) in present:
            groups[letter] = found
    return groups


YARDSTICKS = {"nfkd": nfkd_groups, "confusables": confusable_groups}


def reads_like(letter: str, ch: str) -> bool:
    """Whether Unicode says ``ch`` reads as ``letter`` (either case): UTS #39 or NFKD
    (`reads_as`), or its name is the letter's with something (LATIN SMALL LETTER K WITH HOOK)."""
    if letter.lower() in reads_as(ch):
        return True
    name = unicodedata.name(ch, "")
    return re.search(rf"\bLETTER (SMALL |CAPITAL )?{letter.upper()}\b", name) is not None


def table_figures(table: NeighbourTable, k: int = 20) -> dict:
    """The exported table's own figures for a-z, A-Z (what the attack draws from): same-letter
    precision@k, the share of a letter's top k that reads like it (`reads_like`), and UTS #39
    recall@k (`confusable_groups` of the table's glyphs, normalised as in `group_recall`); both
    macro over the letters."""
    rows = {int(c): i for i, c in enumerate(table.keys.tolist())}
    groups = confusable_groups(table.keys.astype(np.int64))
    precision, recall = [], []
    for letter in string.ascii_letters:
        if ord(letter) not in rows:
            continue
        top = table.neighbours[rows[ord(letter)], :k].tolist()
        precision.append(np.mean([reads_like(letter, chr(c)) for c in top]))
        if letter in groups:
            recall.append(len(set(groups[letter]) & set(top)) / min(len(groups[letter]), k))
    return {"k": k, "letters": len(precision),
            "same_letter_precision": round(float(np.mean(precision)), 4) if precision else None,
            "confusables_recall": round(float(np.mean(recall)), 4) if recall else None}


def letter_tops(vectors: np.ndarray, codepoints: np.ndarray, letters: list[str],
                k: int = 20) -> dict[str, list[int]]:
    """Each letter's ``k`` nearest code points by cosine, nearest first, itself excluded."""
    rows = {int(cp): i for i, cp in enumerate(codepoints)}
    vectors = normalise(vectors)
    _, ids = exact_top_k(vectors, vectors[[rows[ord(c)] for c in letters]], k + 1)
    return {letter: [int(codepoints[i]) for i in found if i >= 0 and codepoints[i] != ord(letter)][:k]
            for letter, found in zip(letters, ids)}


def group_recall(vectors: np.ndarray, codepoints: np.ndarray, groups: dict[str, list[int]],
                 k: int = 20) -> dict:
    """Recall of each letter's group in its top ``k`` (self excluded), normalised by
    min(|group|, k); macro over letters, plus micro (all hits / all reachable). None for both
    when no letter has a group (a glyph set without accented Latin, say)."""
    letters = list(groups)
    if not letters:
        return {"k": k, "letters": 0, "macro": None, "micro": None, "per_letter": {}}
    per_letter, hits_all, reach_all = {}, 0, 0
    for letter, top in letter_tops(vectors, codepoints, letters, k).items():
        target = set(groups[letter])
        hits, reach = len(target.intersection(top)), min(len(target), k)
        per_letter[letter] = round(hits / reach, 4)
        hits_all, reach_all = hits_all + hits, reach_all + reach
    return {"k": k, "letters": len(letters), "macro": round(float(np.mean(list(per_letter.values()))), 4),
            "micro": round(hits_all / reach_all, 4), "per_letter": per_letter}


def recall(vectors: np.ndarray, codepoints: np.ndarray, yardstick: str = "nfkd", k: int = 20) -> dict:
    """``group_recall`` on one of the ``YARDSTICKS``."""
    return group_recall(vectors, codepoints, YARDSTICKS[yardstick](codepoints), k)


def accented_only(codepoints: np.ndarray, k: int = 20) -> dict:
    """NFKD recall@k of a space that ranks every accented look-alike of a letter (canonically
    decomposed: à, ą) first and no compatibility form (ａ, ᵃ, ℓ): what accents alone can score,
    the reference for how much of the room above raw pixels a space takes."""
    hits = {c: (min(sum(nfkd_kind(chr(cp)) == "accented" for cp in g), k), min(len(g), k))
            for c, g in nfkd_groups(codepoints).items()}
    return {"macro": round(float(np.mean([h / r for h, r in hits.values()])), 4),
            "micro": round(sum(h for h, _ in hits.values()) / sum(r for _, r in hits.values()), 4)}


def compare_letters(ours: dict[str, float], theirs: dict[str, float],
                    resamples: int = 10_000) -> dict:
    """Letter by letter, how often one space's recall is higher, equal or lower than another's,
    with the exact two-sided sign test on the letters that differ; and how large the macro
    difference is, with a 95% bootstrap interval over letters (seeded, so it is reproducible)."""
    diffs = np.array([ours[c] - theirs[c] for c in ours])
    better, worse = int((diffs > 0).sum()), int((diffs < 0).sum())
    n = better + worse
    tail = sum(math.comb(n, i) for i in range(max(better, worse), n + 1)) / 2 ** n if n else 1.0
    means = np.random.default_rng(0).choice(diffs, (resamples, len(diffs))).mean(1)
    return {"better": better, "same": len(diffs) - n, "worse": worse,
            "sign_test_p": round(min(1.0, 2 * tail), 4),
            "macro_difference": round(float(diffs.mean()), 4),
            "ci95": [round(float(q), 4) for q in np.percentile(means, [2.5, 97.5])]}


def nfkd_kind(ch: str) -> str:
    """How a letter decomposes: "accented" (canonically: base + marks) or its compatibility tag
    ("super", "sub", "wide", "font", "circle", "compat", …)."""
    tag = unicodedata.decomposition(ch)
    return tag[1:tag.index(">")] if tag.startswith("<") else "accented"


def member_ranks(vectors: np.ndarray, codepoints: np.ndarray,
                 groups: dict[str, list[int]]) -> dict[str, np.ndarray]:
    """Where each member of a letter's group ranks among the letter's neighbours (1 = nearest,
    the letter itself not counted; ties share the better rank), in the group's order."""
    rows = {int(cp): i for i, cp in enumerate(codepoints)}
    vectors = normalise(vectors)
    out = {}
    for letter, members in groups.items():
        q = rows[ord(letter)]
        sims = vectors @ vectors[q]
        sims[q] = -np.inf
        found = sims[[rows[cp] for cp in members]]
        out[letter] = len(sims) - np.searchsorted(np.sort(sims), found, "right") + 1  # 1 + how many nearer
    return out


def recall_curve(ranks: dict[str, np.ndarray], ks: tuple[int, ...]) -> dict[int, float]:
    """Macro recall@k for every k in ``ks``, normalised as in ``group_recall``: the top-20 cut-off
    of the table is one point on it; the rest shows how far off the missed look-alikes are."""
    return {k: round(float(np.mean([min(int((r <= k).sum()), k) / min(len(r), k)
                                    for r in ranks.values()])), 4) for k in ks}


def ranks_by_kind(vectors: np.ndarray, codepoints: np.ndarray, k: int = 20) -> dict:
    """For each kind of NFKD look-alike, where it ranks among its letter's neighbours: the median
    rank (1 = nearest) and the share in the top ``k``; shows what a recall figure hides."""
    groups = nfkd_groups(codepoints)
    ranks: dict[str, list[int]] = {}
    for letter, found in member_ranks(vectors, codepoints, groups).items():
        for cp, rank in zip(groups[letter], found.tolist()):
            ranks.setdefault(nfkd_kind(chr(cp)), []).append(rank)
    return {kind: {"members": len(r), "median_rank": int(np.median(r)),
                   "in_top_k": round(float(np.mean(np.array(r) <= k)), 3)}
            for kind, r in sorted(ranks.items(), key=lambda kv: -len(kv[1]))}


def top_k_shares(vectors: np.ndarray, codepoints: np.ndarray, k: int = 20) -> dict:
    """What fills a letter's top ``k``, averaged over the letters with an NFKD group: its NFKD
    look-alikes, its UTS #39 confusables that are not NFKD ones, and the rest (letters with hooks,
    strokes or bars, which neither list names: ƙ for k, ɋ for q). The rest caps NFKD recall."""
    nfkd, confusable = nfkd_groups(codepoints), confusable_groups(codepoints)
    counts = np.zeros(3)
    for letter, top in letter_tops(vectors, codepoints, list(nfkd), k).items():
        a, b = set(top) & set(nfkd[letter]), set(top) & set(confusable.get(letter, ()))
        counts += [len(a), len(b - a), len(top) - len(a | b)]
    return dict(zip(("nfkd", "confusable", "other"), np.round(counts / len(nfkd), 2).tolist()))


# Views a reader still reads as the same letter: moves in canvas half-widths (12 px) of the glyph's
# own frame (scaled with it), stroke in [-1, 1] (towards erosion or dilation); see
# ``train.visual.augment.affine``.
VIEWS = {"2 px right": {"dx": -2 / 12}, "4 px up": {"dy": 4 / 12}, "scale 0.8": {"scale": 0.8},
         "scale 0.6 and 2.4 px up (superscript size)": {"scale": 0.6, "dy": 4 / 12},
         "width x1.6": {"width": 1.6}, "bold": {"stroke": 0.5}, "thin": {"stroke": -0.5}}


def view_invariance(embed, images: np.ndarray) -> dict:
    """Mean cosine between each glyph and a distorted view of it, for each of ``VIEWS``, next to
    the mean cosine between different glyphs: how much of a glyph's identity a space keeps through
    a move, a size, a width or a stroke weight. ``embed`` maps uint8 images (N, H, W) to vectors."""
    x = torch.from_numpy(images).float().div(255).unsqueeze(1)
    base = normalise(embed(images))
    one, zero = torch.ones(len(x)), torch.zeros(len(x))
    out = {}
    for name, view in VIEWS.items():
        p = {"scale": 1.0, "width": 1.0, "dx": 0.0, "dy": 0.0, "stroke": 0.0, **view}
        y = stroke(affine(x, one * p["scale"], one * p["width"], zero, one * p["dx"], one * p["dy"]),
                   one * p["stroke"])
        y = y.clamp(0, 1).mul(255).round().to(torch.uint8).squeeze(1).numpy()
        out[name] = round(float((normalise(embed(y)) * base).sum(1).mean()), 3)
    sims = base @ base.T
    out["different glyphs"] = round(float((sims.sum() - np.trace(sims)) / (len(x) * (len(x) - 1))), 3)
    return out


def raw_pixels(images: np.ndarray) -> np.ndarray:
    """The baseline space: each glyph's pixels as one vector."""
    return images.reshape(len(images), int(np.prod(images.shape[1:]))).astype(np.float32)
