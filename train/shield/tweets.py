"""Write ``zeroe_assets/data/tweets.tsv``, the word counts of OLID's *training* tweets that the
shield's lexicon reads (`zeroe_assets.shield.lexicon`): Google's n-grams rate the words of
insult and slang rare (``shit`` log10 −4.6, ``crap`` −4.9), so a reading such as *crap* for
``carp`` lost on frequency alone. Only the training split is counted (the benchmark measures on
OLID test), stems as the tokenizer cuts them, lower case, ASCII letters, the ``@USER``/``URL``
placeholders left out, words seen ``MIN_COUNT`` times or more.

    python -m train.shield.tweets [--data DIR]
"""
from __future__ import annotations

import argparse
import csv
import os
from collections import Counter
from pathlib import Path

from zeroe_assets import tokenize
from zeroe_assets.data import data_path
from zeroe_assets.shield.placeholders import PLACEHOLDERS  # OLID's for mentions and links

MIN_COUNT = 5
SOURCE = "bench/olid/olid-training-v1.0.tsv"


def count_words(tweets) -> tuple[Counter, int]:
    """Stem counts (lower case, ASCII letters) over ``tweets`` and the number of stems counted."""
    counts: Counter = Counter()
    for tweet in tweets:
        for word in tokenize.split(tweet)[0]:
            stem = tokenize.stem(word)[1].lower()
            if stem.isascii() and stem.isalpha() and stem not in PLACEHOLDERS:
                counts[stem] += 1
    return counts, sum(counts.values())


def write_table(counts: Counter, total: int, path: Path) -> None:
    kept = sorted(((w, c) for w, c in counts.items() if c >= MIN_COUNT),
                  key=lambda wc: (-wc[1], wc[0]))
    lines = [f"# Word counts of OLID's training tweets (Zampieri et al. 2019, {SOURCE}), words",
             f"# seen {MIN_COUNT} times or more; written by `python -m train.shield.tweets`.",
             f"# total\t{total}"] + [f"{w}\t{c}" for w, c in kept]
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(path)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("ZEROE_DATA", "data")))
    args = parser.parse_args(argv)
    with open(args.data / SOURCE, encoding="utf-8", newline="") as f:
        tweets = [row["tweet"] for row in csv.DictReader(f, delimiter="\t",
                                                         quoting=csv.QUOTE_NONE)]
    counts, total = count_words(tweets)
    write_table(counts, total, data_path("tweets.tsv"))
    print(f"{len(tweets)} tweets, {total} words, {sum(c >= MIN_COUNT for c in counts.values())}"
          f" kept in {data_path('tweets.tsv')}")


if __name__ == "__main__":
    main()
