"""``zeroe defend``: a hardened victim from a training file and any trainable victim.

The parts compose (`victim.PARTS`): ``encode`` trains the victim on robustly encoded text
(`encoding`), and with it on twins of the examples an attacker of the encoding could make
(`twins`: one word ``unkword``; each example's worst one-change encodings, in rounds);
``shield`` restores every text before it is encoded (``shield_guess``: reading for the encoding
behind it, `Shield`'s ``guess``); ``adversarial`` adds, for
every training example, ``copies`` perturbed twins (all ten Zéroe attackers mixed, a seeded draw
per example) passed through the same parts, so the victim learns what attacked text looks like
after the defense — unknown words included — and then, for ``rounds`` rounds, attacks
``per_round`` training examples with a search recipe against the defended victim as it stands
(the attack in the loop: every query through the whole pipeline) and trains again with the
adversarial texts it found. The result is one folder (`victim.save_defense`). `add_shield` puts
the shield in front of a folder trained without it, as a new folder, without training again.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from ..assets import sha256_file
from ..progress import progress_bar
from ..runs import locked
from ..tasks import get_task
from ..validate import check_int
from .encoding import RobustEncoder, vocabulary
from .twins import WorstTwins, with_unknown
from .victim import (DEFENSE, HF, MODEL, PARTS, DefendedVictim, defense_files,
                     heavier_than_unknown, load_defended, read_defense, save_defense,
                     shield_fields)

ATTACK = "rand"  # the augmentation's attackers: the ten Zéroe perturbers, mixed
LEVEL = "mid"
RECIPE = "textfooler-zeroe"  # the attack in the loop
MERGE_BELOW = 20  # clusters: words seen fewer times join a frequent neighbour (docs/defend.md)
UNKNOWN_TWINS = 2  # pairs: twins per example with one hypothesis word unkword (docs/defend.md)
WORST_ROUNDS = 3  # pairs: rounds of each example's worst one-change twins (docs/defend.md)
WORST_PER_ROUND = 2  # the twins an example gets each round


def parse_parts(parts: str | Sequence[str]) -> list[str]:
    """``encode,shield,adversarial`` → the parts in their fixed order; unknown ones refused."""
    names = [p.strip() for p in (parts.split(",") if isinstance(parts, str) else parts)]
    names = [p for p in names if p]
    unknown = [p for p in names if p not in PARTS]
    if unknown or not names:
        raise ValueError(f"unknown defense part(s) {', '.join(unknown) or '(none given)'}; "
                         f"choose from {', '.join(PARTS)}")
    return [p for p in PARTS if p in names]


def check_shield_guess(parts: Sequence[str], guess: bool) -> bool:
    """``guess`` (the shield reads for the encoding behind it), refused without the shield."""
    if guess and "shield" not in parts:
        raise ValueError("--shield-guess (defense.shield_guess) is a mode of the shield: add "
                         "shield to the parts")
    return bool(guess)


def defend(task: str, victim: str, train: str | Path, out: str | Path,
           parts: str | Sequence[str] = ("encode",), *, seed: int = 0,
           copies: int = 1, level: str = LEVEL, fields: Sequence[str] | None = None,
           encoder_model: str | None = None, min_count: int = 2, rounds: int = 0,
           per_round: int = 200, recipe: str = RECIPE, anagrams: bool = False,
           sources: bool = True, merge_below: int = MERGE_BELOW, fragments: bool = False,
           restore: bool = False, guard: bool = True, anchors: bool = True,
           unknown_twins: int | None = None, worst_rounds: int | None = None,
           shield_guess: bool = False, progress: bool = True) -> DefendedVictim:
    """Train ``victim`` (a trainable built-in name) on ``train`` behind ``parts``, save it in
    ``out`` and return it as it loads (``defended:OUT``). ``guard``: once trained, lookups never
    return a word the victim weighs more than ``unkword`` (victims whose score only adds up);
    ``anchors``: a pair's hypothesis is read against its premise (`anchor`);
    ``unknown_twins``: encoded twins per example with one word ``unkword`` (`with_unknown`;
    default 2 for pairs, 0 for single texts); ``worst_rounds``: rounds of training again with
    each example's two changed encodings the model scores worst for its gold label, one word
    changed once on the certificates' surface (`twins.WorstTwins`; default 3 for pairs, 0 for
    single texts); ``shield_guess``: the shield (part ``shield``) reads for the encoding behind
    it, in training as in every query."""
    from .. import get_perturbation
    from ..victims.sklearn import check_labels, check_trainable, train_victim

    spec = get_task(task)
    check_trainable(victim, spec.name)
    parts = parse_parts(parts)
    shield_guess = check_shield_guess(parts, shield_guess)
    copies = check_int("copies", copies, low=0)
    rounds = check_int("rounds", rounds, low=0)
    per_round = check_int("per_round", per_round)
    merge_below = check_int("merge_below", merge_below, low=0)
    if unknown_twins is None:
        unknown_twins = UNKNOWN_TWINS if spec.inputs == "pair" else 0
    unknown_twins = check_int("unknown_twins", unknown_twins, low=0)
    if worst_rounds is None:
        worst_rounds = WORST_ROUNDS if spec.inputs == "pair" and "encode" in parts else 0
    worst_rounds = check_int("worst_rounds", worst_rounds, low=0)
    if worst_rounds and "encode" not in parts:
        raise ValueError("worst twins change words as the encoding reads them: add --parts encode")
    train = Path(train)
    if not train.is_file():
        raise ValueError(f"training file not found: {train}")
    examples = spec.examples(train, spec.format_for(train, fields))
    check_labels(examples.gold, train)  # before the encoding's minutes, not after
    kind = {"text": "texts", "pair": "pairs"}.get(spec.inputs)
    if kind is None:
        raise ValueError(f"defenses take text or sentence-pair tasks, not {spec.name}")
    if "adversarial" in parts and rounds and kind != "texts":
        raise ValueError("the attack in the loop (--rounds) takes single-text tasks")
    # one writer per folder: a second defend on OUT is refused before it trains (exit 75)
    with locked(Path(out), "defend"):
        start = time.perf_counter()
        texts = [t for item in examples.inputs for t in (item if kind == "pairs" else (item,))]
        counts, clusters, encoder, shield = pipeline(parts, texts, min_count=min_count,
                                                     anagrams=anagrams, sources=sources,
                                                     merge_below=merge_below, fragments=fragments,
                                                     restore=restore, shield_guess=shield_guess)
        defended = DefendedVictim(None, spec.name, encoder, shield, anchored=anchors)
        inputs, gold = list(examples.inputs), list(examples.gold)
        if "adversarial" in parts and copies:
            attack = get_perturbation(ATTACK, level=level)
            for c in range(copies):
                flat = attack(texts, seed=seed * 1000 + c)
                twins = list(zip(flat[0::2], flat[1::2])) if kind == "pairs" else flat
                inputs += twins
                gold += examples.gold
        seen = []
        with progress_bar(len(inputs), "defend: encode", "ex", enabled=progress) as bar:
            for i in range(0, len(inputs), 256):
                seen += defended.seen(inputs[i:i + 256])
                bar.update(min(256, len(inputs) - i))
        if "encode" in parts and unknown_twins:
            twins, twin_gold = with_unknown(seen, gold, kind, unknown_twins, seed)
            seen, gold = seen + twins, gold + twin_gold
        model = train_victim(victim, seen, gold, seed, encoder_model, spec.name)
        if worst_rounds:
            with progress_bar(len(inputs), "defend: changed words", "ex", enabled=progress) as bar:
                worst = WorstTwins(encoder, inputs, seen[:len(inputs)], kind, tick=bar.update)
            with progress_bar(worst_rounds, "defend: worst twins", "round",
                              enabled=progress) as bar:
                for _ in range(worst_rounds):
                    twins, twin_gold = worst(model, gold[:len(inputs)], WORST_PER_ROUND, spec.name)
                    seen, gold = seen + twins, gold + twin_gold
                    model = train_victim(victim, seen, gold, seed, encoder_model, spec.name)
                    bar.update()
        found = 0
        if "adversarial" in parts and rounds:
            for r in range(rounds):
                defended.victim = model
                if guard and encoder is not None:
                    encoder.guard(heavier_than_unknown(model, counts, clusters))
                adversarial = attacked(defended, spec, examples, per_round, recipe,
                                        seed * 1000 + r, progress, f"defend: round {r + 1}")
                found += len(adversarial)
                seen += defended.seen([text for text, _ in adversarial])
                gold += [g for _, g in adversarial]
                model = train_victim(victim, seen, gold, seed, encoder_model, spec.name)
        meta = {"task": spec.name, "victim": victim, "parts": parts, "seed": seed,
                "copies": copies if "adversarial" in parts else 0, "level": level,
                "attack": ATTACK, "min_count": min_count, "anagrams": anagrams,
                "sources": sources, "merge_below": merge_below, "fragments": fragments,
                "restore": restore, "guard": guard, "anchors": anchors,
                "unknown_twins": unknown_twins, "worst_rounds": worst_rounds,
                "rounds": rounds if "adversarial" in parts else 0, "per_round": per_round,
                "recipe": recipe, "adversarial_found": found,
                **shield_fields(shield, trained=True),
                "trained_on": {"file": train.name, "sha256": sha256_file(train),
                               "examples": len(examples.inputs), "rows": len(seen)},
                "seconds": round(time.perf_counter() - start, 1)}
        from .. import __version__

        meta["zeroe_version"] = __version__
        save_defense(Path(out), meta, counts, clusters, model)
        return load_defended(out, spec.name)


def pipeline(parts: Sequence[str], texts: Sequence[str], *, min_count: int = 2,
             anagrams: bool = False, sources: bool = True, merge_below: int = MERGE_BELOW,
             fragments: bool = False, restore: bool = False, shield_guess: bool = False):
    """What stands before the victim, built from the training ``texts``: ``(counts, clusters,
    encoder, shield)`` — the vocabulary with its counts, its clusters, the `RobustEncoder` (None
    without ``encode``) and the shield (None without ``shield``; ``shield_guess``: in its guess
    mode). Shared by ``zeroe defend`` and the neural job ``python -m train.defend``, which save
    the first two (`save_defense`) and the shield's fields (`shield_fields`)."""
    from ..shield import get_shield

    shield = get_shield(guess=shield_guess) if "shield" in parts else None
    counts = (vocabulary(texts, min_count, None if fragments else get_shield().lexicon)
              if "encode" in parts else {})
    clusters = {}
    if "encode" in parts and merge_below:
        from .clusters import build_clusters
        from .surface import Surface

        clusters = build_clusters(counts, Surface(), merge_below)
    encoder = RobustEncoder(counts, anagrams=anagrams, counts=counts if sources else None,
                            clusters=clusters, restore=restore) if "encode" in parts else None
    return counts, clusters, encoder, shield


def attacked(victim, spec, examples, n: int, recipe: str, seed: int, progress: bool,
             desc: str) -> list[tuple[object, object]]:
    """(adversarial input, gold) for the successful attacks of ``recipe`` on a seeded sample of
    ``n`` training examples, querying ``victim`` (the pipeline as it stands: a `DefendedVictim`
    over the current model). One round of the attack in the loop, for ``zeroe defend`` and for
    the neural job ``python -m train.defend``."""
    import random

    from ..search.recipes import get_recipe
    from ..search.results import SUCCESSFUL

    attack = get_recipe(recipe, spec, seed=seed)
    order = random.Random(seed).sample(range(len(examples.inputs)),
                                       min(n, len(examples.inputs)))
    found = []
    with progress_bar(len(order), desc, "ex", enabled=progress) as bar:
        for i in order:
            result = attack.run((examples.inputs[i], examples.gold[i]), victim, index=i)
            if result.status == SUCCESSFUL:
                found.append((result.adversarial, examples.gold[i]))
            bar.update()
    return found


def add_shield(source: str | Path, out: str | Path, *, guess: bool = False,
               task: str | None = None) -> DefendedVictim:
    """The defended victim of ``source``, trained without the shield, with the shield in front
    (``guess``: reading for the encoding behind it), saved as the folder ``out`` without training
    again: the victim and its vocabulary are hard-linked where the file system allows (copied
    where not; every writer of a defended folder replaces files by rename, so a later build of
    ``source`` never changes ``out``), and ``defense.json`` is ``source``'s with the shield in
    its parts, ``shield_trained`` false (the model never saw restored text: the shield reads the
    queries only) and ``added_to`` naming ``source``. What ``zeroe search --shield``
    (``--shield-guess``) in front of ``defended:SOURCE`` queries, as one folder. ``task``:
    refused when ``source`` serves another."""
    from ..shield import get_shield

    source, out = Path(source), Path(out)
    load_defended(source, task)  # every file of it checked before anything is written
    meta = read_defense(source)
    if "shield" in meta["parts"]:
        added = meta.get("added_to", {}).get("folder")
        raise ValueError(f"{source} has the shield in front already: " + (
            f"add it to {added} again for another mode" if added
            else "trained behind it, build a new defense for another shield"))
    if out.resolve() == source.resolve():
        raise ValueError(f"--out {out} is the folder the shield is added to: choose a new one")
    # (file in source, file in out): the model (an hf: directory goes to out/hf), the vocabulary
    model, *rest = defense_files(meta)
    files = [(model, HF if meta["victim"] == HF else MODEL), *((name, name) for name in rest)]
    shield = get_shield(guess=guess)
    with locked(out, "defend"):
        (out / DEFENSE).unlink(missing_ok=True)  # no old defense.json over the files linked now
        for name, new in files:
            _link_or_copy(source / name, out / new)
        added = {"folder": str(source.resolve()), "sha256": sha256_file(source / DEFENSE)}
        meta = {k: v for k, v in meta.items() if k != "format"}
        meta.update(parts=parse_parts([*meta["parts"], "shield"]),
                    **shield_fields(shield, trained=False), added_to=added)
        if meta["victim"] == HF:
            meta["model"] = HF
        save_defense(out, meta, None, {}, None)
        return load_defended(out, meta["task"])


def _link_or_copy(source: Path, target: Path) -> None:
    """``source`` (a file or a directory) at ``target``, replacing what is there: hard links,
    copies where the file system has none (another device)."""
    import os
    import shutil

    def link(src, dst):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    else:
        target.unlink(missing_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, copy_function=link)
    else:
        link(source, target)
