"""Quality and speed of the exported G2P / P2G models on their held-out test split; prints JSON.

    python benchmarks/g2p_seq2seq.py [--direction g2p p2g] [--beams 1 5] [--threads 2]
                                     [--precision auto|bf16|fp32]

The test split is rebuilt from the lexicon and split settings recorded in the manifest, so the
figures are measured on exactly the words the model never saw. G2P: WER and PER (silent-letter
marks ignored); P2G: WER and CER. The split is by word, so a test pronunciation may also be the
pronunciation of a training word (absolute / absolut): P2G also reports ``wer_any_spelling``,
where any lexicon spelling of the pronunciation counts as right, and how many test inputs are
pronunciations seen in training. Speed: words decoded per second, batched, n=1 (an ensemble
runs every member at each step, so it decodes proportionally slower).
"""
from __future__ import annotations

import argparse
import json
import time

import torch
from hydra.utils import instantiate

from train.phonetic.datamodule import Seq2SeqDataModule
from train.phonetic.lexicon import filter_lexicon
from train.phonetic.seq2seq import TOKEN_METRIC, error_counts
from zeroe_assets.assets.store import load_component
from zeroe_assets.phonetic.seq2seq import (COMPONENT, PRECISIONS, load_transliterator, native_bf16,
                                           uses_bf16)


def measure(direction: str, beams, batch_size: int, precision: str, root=None) -> dict:
    config = load_component(COMPONENT, root).meta[direction]["config"]
    lexicon = filter_lexicon(instantiate(config["lexicon"]["reader"]), **config["lexicon"]["filter"])
    data = Seq2SeqDataModule(lexicon, direction, split_ratios=config["data"]["split_ratios"],
                             split_salt=config["data"]["split_salt"])
    items = data.eval_items("test")
    inputs = [data.src_vocab.decode(src) for src, _ in items]
    model = load_transliterator(direction, root)
    silent = model.silent if direction == "g2p" else frozenset()
    out = {"test_inputs": len(inputs), "lexicon": lexicon.source, "members": len(model.nets),
           "right_to_left": sum(m.reverse for m in model.nets)}
    spellings: dict[tuple[str, ...], set[str]] = {}  # P2G: pronunciation → every lexicon spelling
    if direction == "p2g":
        for word, pron in lexicon.pairs():
            spellings.setdefault(tuple(pron), set()).add(word)
        seen = {tuple(pron) for _, pron in data.splits["train"].pairs()}
        out["test_inputs_seen_in_training"] = sum(tuple(i) in seen for i in inputs)
    for beam in beams:
        model.translate(inputs[:batch_size], n=1, beam=beam, batch_size=batch_size,
                        precision=precision)  # warm-up: first-call kernel set-up is not decoding
        start = time.perf_counter()
        hyps = model.translate(inputs, n=1, beam=beam, batch_size=batch_size, precision=precision)
        seconds = time.perf_counter() - start
        items_, wrong, edits, length = error_counts([h[0].tokens for h in hyps],
                                                    [refs for _, refs in items], silent)
        found = {"wer": round(wrong / items_, 4), TOKEN_METRIC[direction]: round(edits / length, 4),
                 "words_per_s": round(len(inputs) / seconds, 1), "seconds": round(seconds, 2)}
        if spellings:
            found["wer_any_spelling"] = round(sum(
                "".join(h[0].tokens) not in spellings[tuple(i)] for h, i in zip(hyps, inputs))
                / len(inputs), 4)
        out["greedy" if beam == 1 else f"beam{beam}"] = found
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--direction", nargs="+", default=["g2p", "p2g"], choices=["g2p", "p2g"])
    parser.add_argument("--beams", nargs="+", type=int, default=[1, 5])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--precision", default="auto", choices=PRECISIONS)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    report = {"threads": args.threads, "batch_size": args.batch_size, "torch": torch.__version__,
              "precision": "bf16" if uses_bf16(args.precision) else "fp32",
              "cpu_native_bf16": native_bf16()}
    for direction in args.direction:
        report[direction] = measure(direction, args.beams, args.batch_size, args.precision)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
