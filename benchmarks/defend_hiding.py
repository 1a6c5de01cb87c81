"""The most a defended victim can hold against an attacker who can make any content word
unreadable: each word the encoding reads becomes ``unkword``, greedily, in the order that lowers
the gold label's probability most, up to ρ_max of the text's words (rounded up, as the search
recipes count), never a stopword (the recipes keep them too). Every flip found is a real flip of
the model behind the encoding, so the share held is an upper bound on accuracy under any attack
that can hide those words — whatever the encoding reads back of the rest.

For a two-sided victim (sentiment, NLI, ``tc-tfidf``) this bound, not the encoding's reading,
is what caps accuracy under attack (docs/defend.md); a ``tc-monotone`` victim gains nothing
from hiding a harmless tweet's words, so there it is the offensive tweets that fall.

    python benchmarks/defend_hiding.py --task generic --victim defended:DIR --input FILE \
        [--limit 200] [--max-perturbed 0.3] [--out FILE]

Prints JSON: examples, right (clean), held (no flip found), the share held of all examples, and
how many words the flips hid.
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from zeroe_assets import tokenize
from zeroe_assets.assets import atomic_write
from zeroe_assets.constraints.words import stopwords
from zeroe_assets.defend.encoding import UNKNOWN
from zeroe_assets.search.goals import goal_for
from zeroe_assets.tasks import get_task
from zeroe_assets.victims import load_victim


def hidden(goal, model, seen, gold, budget: int, keep) -> int | None:
    """Words hidden when the model's prediction on ``seen`` (its input: a text, or a pair whose
    second text is attacked) first leaves ``gold``; None when ``budget`` hides cannot move it."""
    pair = isinstance(seen, tuple)
    words = (seen[1] if pair else seen).split()
    build = (lambda ws: (seen[0], " ".join(ws))) if pair else " ".join
    for step in range(budget):
        options = [i for i, w in enumerate(words) if w != UNKNOWN and w not in keep]
        if not options:
            return None
        tried = [words[:i] + [UNKNOWN] + words[i + 1:] for i in options]
        outcomes = goal.outcomes(model, [build(ws) for ws in tried], gold)
        if any(o.met for o in outcomes):
            return step + 1
        words = tried[max(range(len(tried)), key=lambda k: outcomes[k].score)]
    return None


def bound(task: str, victim_spec: str, path: Path, limit: int | None, rho: float) -> dict:
    if not path.is_file():
        raise SystemExit(f"defend_hiding.py: no such file: {path}")
    task_ = get_task(task)
    victim = load_victim(victim_spec, None, task=task_.name)
    if not hasattr(victim, "seen"):
        raise SystemExit(f"{victim_spec}: not a defended victim (defended:DIR)")
    examples = task_.examples(path, task_.format_for(path))
    inputs, golds = examples.inputs[:limit], examples.gold[:limit]
    goal, keep = goal_for(task_), stopwords()
    right = held = 0
    hides: list[int] = []
    for x, gold in zip(inputs, golds):
        gold = goal.check_gold(gold)
        seen = victim.seen([x])[0]
        if goal.outcomes(victim.victim, [seen], gold)[0].met:
            continue  # wrong on the clean text
        right += 1
        attacked = x[1] if isinstance(x, tuple) else x
        budget = math.ceil(rho * len(tokenize.words(attacked)) - 1e-9)
        found = hidden(goal, victim.victim, seen, gold, budget, keep)
        if found is None:
            held += 1
        else:
            hides.append(found)
    n = len(inputs)
    return {"victim": victim_spec, "input": str(path), "examples": n, "max_perturbed": rho,
            "right": right, "held": held, "held_share": round(100.0 * held / max(1, n), 2),
            "hidden_words_mean": round(sum(hides) / max(1, len(hides)), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", required=True, choices=("tc", "nli", "generic"))
    parser.add_argument("--victim", required=True, help="defended:DIR")
    parser.add_argument("--input", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=None, help="the first N examples only")
    parser.add_argument("--max-perturbed", type=float, default=0.3, metavar="RHO")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args()
    result = bound(args.task, args.victim, args.input, args.limit, args.max_perturbed)
    text = json.dumps(result, indent=1) + "\n"
    print(text, end="")
    if args.out is not None:
        atomic_write(args.out, text.encode())


if __name__ == "__main__":
    main()
