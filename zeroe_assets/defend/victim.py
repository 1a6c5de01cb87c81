"""A defended victim: one folder that loads like any other victim (``defended:DIR``).

``DIR/defense.json`` says what it is (task, the victim inside, the parts, what it was trained
on), ``DIR/vocabulary.txt`` the words its encoding keeps (with their training counts and
clusters), and the victim trained on encoded text: ``DIR/victim.joblib`` (a scikit-learn victim
of ``zeroe defend``) or the ``hf:`` model directory ``DIR/hf`` (a neural victim of ``python -m
train.defend``; torch and transformers are imported when it loads). Every query goes through
the parts in order: the shield restores, the encoding encodes, the victim predicts; an attacker
who queries it queries the whole pipeline.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..tasks import TASKS, get_task
from ..victims import BUILTIN_TRAINABLE, load_victim
from ..victims.wrapper import WrappedVictim
from .encoding import UNKNOWN, RobustEncoder

DEFENSE, VOCABULARY, MODEL = "defense.json", "vocabulary.txt", "victim.joblib"
HF = "hf"  # the victim of a neural defense: meta["victim"] == "hf", its directory meta["model"]
FORMAT = 1
PARTS = ("encode", "shield", "adversarial")  # `zeroe defend --parts`, in the order they apply


class DefendedVictim(WrappedVictim):
    """``victim`` (trained on encoded text) behind ``encoder`` and, when given, ``shield``."""

    rewrites = True

    def __init__(self, victim, task: str, encoder: RobustEncoder | None, shield=None,
                 name: str | None = None, anchored: bool = False):
        super().__init__(victim, name)
        self.task = get_task(task).name
        self.kind = {"text": "texts", "pair": "pairs"}.get(get_task(task).inputs)
        if self.kind is None:
            raise ValueError(f"defenses take text or sentence-pair tasks, not {task}")
        self.encoder, self.shield = encoder, shield
        self.restorations = None
        if shield is not None:
            from ..shield.victim import Restorations

            self.restorations = Restorations(shield)
        self.anchored = anchored  # a pair's hypothesis encoded against its premise (`anchor`)

    def one(self, text: str) -> str:
        """What the victim sees of one text (a premise, or a text of a one-text task)."""
        if self.restorations is not None:
            text = self.restorations.text(text)
        return text if self.encoder is None else self.encoder.encode(text)

    def pair(self, premise: str, hypothesis: str) -> tuple[str, str]:
        """What the victim sees of a pair: the shield reads the hypothesis against the restored
        premise, as `ShieldedVictim` does, and the encoding against the premise it is sent."""
        if self.restorations is not None:
            premise, hypothesis = self.restorations.pair(premise, hypothesis)
        if self.encoder is None:
            return premise, hypothesis
        return self.encoder.encode(premise), self.encoder.encode(
            hypothesis, anchor=premise if self.anchored else None)

    def seen(self, batch: Sequence) -> list:
        if self.kind == "pairs":
            return [self.pair(p, h) for p, h in batch]
        return [self.one(t) for t in batch]


def shield_fields(shield, trained: bool) -> dict:
    """What ``defense.json`` records of the shield in front (None: no shield): its mechanisms,
    ``shield_guess`` (it reads for the encoding behind it, `Shield`'s ``guess``) and
    ``shield_trained`` (the training texts were restored by it too; false for a shield put in
    front of a victim trained without it, `build.add_shield`, which reads the queries only).
    A folder from before the last two loads as it was built: guess off, trained behind it."""
    if shield is None:
        return {"shield": None}
    return {"shield": list(shield.mechanisms), "shield_guess": bool(shield.guess),
            "shield_trained": bool(trained)}


def save_defense(out: Path, meta: dict, counts: Mapping[str, int] | None,
                 clusters: Mapping[str, str], victim) -> None:
    """Write a defended victim's folder (each file atomically; defense.json removed first and
    written last, so a folder without it is an interrupted build, a first one or one that
    replaced another, and loads as none: never an old defense.json over new files). ``victim``
    None: the caller wrote the model itself (an ``hf:`` directory, ``meta["model"]``);
    ``counts`` None: the caller wrote the vocabulary too (`build.add_shield`)."""
    from ..assets import atomic_write, sha256_path

    out.mkdir(parents=True, exist_ok=True)
    (out / DEFENSE).unlink(missing_ok=True)
    if counts is not None:
        atomic_write(out / VOCABULARY, "".join(f"{w}\t{n}\t{clusters.get(w, w)}\n"
                                               for w, n in counts.items()).encode())
    if victim is not None:
        from ..victims.sklearn import save_victim

        save_victim(victim, out / MODEL)
    files = {name: sha256_path(out / name) for name in defense_files(meta)}
    atomic_write(out / DEFENSE, (json.dumps({"format": FORMAT, **meta, "files": files}, indent=1,
                                            ensure_ascii=False) + "\n").encode())


def defense_files(meta: Mapping) -> list[str]:
    """The files of a defended folder besides ``defense.json``: the model (``victim.joblib``, or
    the ``hf:`` directory of a neural defense) and, with the encoding, its vocabulary."""
    model = str(meta.get("model") or HF) if meta["victim"] == HF else MODEL
    return [model, *([VOCABULARY] if "encode" in meta["parts"] else [])]


def _check_file(folder: Path, meta: Mapping, name: str) -> None:
    """``folder/name`` as ``defense.json`` recorded it (``files``: sha256 of each, written by
    `save_defense`): a file damaged, truncated or swapped for another since is refused before
    it is read. A folder from before the checksums loads as it was built."""
    from ..assets import sha256_path

    recorded = meta.get("files", {}).get(name)
    if recorded is not None and (folder / name).exists() and sha256_path(folder / name) != recorded:
        raise ValueError(f"corrupt defense: {folder / name} is not the file {DEFENSE} was saved "
                         "with (its sha256 differs): build the folder again")


def read_defense(folder: str | Path) -> dict:
    """``defense.json`` of a defended victim's folder, checked; one-line errors naming it."""
    if not folder:
        raise ValueError("defended victims need their folder: defended:DIR (from `zeroe defend`)")
    path = Path(folder) / DEFENSE
    if not path.is_file():
        raise ValueError(f"not a defended victim (no {DEFENSE}): {folder} — build one with "
                         "`zeroe defend`")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"corrupt {path}: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or not isinstance(
            meta.get("parts"), list) or not {"task", "victim"} <= meta.keys():
        raise ValueError(f"corrupt {path}: not a defense of format {FORMAT}")
    shield, files = meta.get("shield"), meta.get("files", {})
    wrong = [key for key, right in (
        ("task", isinstance(meta["task"], str) and meta["task"] in TASKS),
        ("victim", meta["victim"] in (*BUILTIN_TRAINABLE, HF)),
        ("parts", all(isinstance(p, str) and p in PARTS for p in meta["parts"])),
        ("shield", shield is None or isinstance(shield, list) and all(
            isinstance(m, str) for m in shield)),
        ("files", isinstance(files, dict) and all(
            isinstance(v, str) for v in files.values()))) if not right]
    if wrong:
        raise ValueError(f"corrupt {path}: {wrong[0]} is {meta.get(wrong[0])!r}")
    return meta


def load_defended(folder: str | Path, task: str | None = None) -> DefendedVictim:
    """The defended victim in ``folder`` (refused for another ``task`` than its own)."""
    meta = read_defense(folder)
    folder = Path(folder)
    if task is not None and get_task(task).name != meta["task"]:
        raise ValueError(f"{folder} is a defense for {meta['task']}, not {get_task(task).name}")
    name = defense_files(meta)[0]  # a neural defense's: its hf: model directory
    model = folder / name
    spec, path = (f"hf:{model}", None) if meta["victim"] == HF else (meta["victim"], model)
    try:
        _check_file(folder, meta, name)  # before unpickling a file swapped in
        victim = load_victim(spec, path, task=meta["task"])
    except (EOFError, KeyError, ValueError, OSError, ImportError, AttributeError,
            RuntimeError) as e:
        said = str(e).strip().splitlines()  # one line: transformers' errors run to several
        raise ValueError(f"cannot load the victim of {folder}: {model}: "
                         f"{said[0] if said else type(e).__name__}") from None
    shield = encoder = None
    if "shield" in meta["parts"]:
        from ..shield import get_shield

        shield = get_shield(meta.get("shield"), guess=bool(meta.get("shield_guess", False)))
    if "encode" in meta["parts"]:
        words = folder / VOCABULARY
        if not words.is_file():
            raise ValueError(f"corrupt defense {folder}: {VOCABULARY} is missing")
        _check_file(folder, meta, VOCABULARY)
        counts, clusters = _read_vocabulary(words)
        encoder = RobustEncoder(counts, anagrams=bool(meta.get("anagrams", False)),
                                counts=counts if meta.get("sources") else None,
                                clusters=clusters, restore=bool(meta.get("restore", True)))
        if meta.get("guard"):  # folders built before the guard load as they were built
            encoder.guard(heavier_than_unknown(victim, counts, clusters))
    parts = "+".join(p for p in meta["parts"] if p != "adversarial")
    trained = "+adv" if "adversarial" in meta["parts"] else ""
    return DefendedVictim(victim, meta["task"], encoder, shield,
                          f"defended[{parts or 'none'}{trained}] {meta['victim']}",
                          anchored=bool(meta.get("anchors", False)))


def heavier_than_unknown(victim, counts: Mapping[str, int],
                         clusters: Mapping[str, str]) -> list[str]:
    """The vocabulary words (as their clusters) that ``victim`` weighs more than ``UNKNOWN``
    when its score only adds up (``weight``: ``tc-monotone``): what a lookup must not return,
    or an attacker turns a harmless word into one (`RobustEncoder.guard`). None for others."""
    weight = getattr(victim, "weight", None)
    if weight is None:
        return []
    floor = weight(UNKNOWN)
    return [w for w in counts if weight(clusters.get(w, w)) > floor]


def _read_vocabulary(path: Path) -> tuple[dict[str, int], dict[str, str]]:
    """``vocabulary.txt``: ``word<TAB>count<TAB>cluster`` per line (a bare word: count 1, its own
    cluster, as the first defenses wrote it); a word is one token, so a line with a space or
    invalid UTF-8 is a corrupt file, named."""
    from ..data import numbered_lines

    counts, clusters = {}, {}
    for k, line in numbered_lines(path):
        fields = line.rstrip("\r\n").split("\t")
        if len(fields) not in (1, 3) or not fields[0] or " " in fields[0] or (
                len(fields) == 3 and not fields[1].isdigit()):
            raise ValueError(f"corrupt defense: {path}, line {k}: not word<TAB>count<TAB>cluster")
        counts[fields[0]] = int(fields[1]) if len(fields) == 3 else 1
        if len(fields) == 3 and fields[2] != fields[0]:
            clusters[fields[0]] = fields[2]
    return counts, clusters
