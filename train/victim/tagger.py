"""The exported POS victim: ``load(path).predict(sentences) -> UPOS tags``.

Benchmark victims are loaded by import path; ``train.victim.tagger:load`` is the built-in
``pos-bilstm``. A model directory holds ``model.pt`` (a state dict of tensors, read with
``weights_only=True``), ``vocab.json`` and ``config.json`` (network sizes, sha256 of the other
two files, training record). torch is imported when a model is loaded, not with this module.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Sequence

FORMAT = "zeroe-pos-tagger"
VERSION = 1
MODEL, VOCAB, CONFIG = "model.pt", "vocab.json", "config.json"


class Tagger:
    """A trained tagger on CPU in eval mode; sentences are batched by length for speed.

    It uses torch's current intra-op thread count; the caller decides how many threads to give it.
    """

    def __init__(self, net, vocab, config: dict, batch_size: int = 256):
        self.net, self.vocab, self.config, self.batch_size = net.eval(), vocab, config, batch_size

    @property
    def tags(self) -> tuple[str, ...]:
        return self.vocab.tags

    def predict(self, sentences: Sequence[Sequence[str]]) -> list[list[str]]:
        """One tag per token for each sentence (an empty sentence gets an empty list)."""
        import torch

        for sentence in sentences:
            if isinstance(sentence, str):
                raise TypeError("predict takes sentences as lists of tokens, got a string "
                                f"({sentence[:30]!r}); tokenize it first")
        out: list[list[str]] = [[] for _ in sentences]
        order = sorted((i for i, s in enumerate(sentences) if len(s)), key=lambda i: len(sentences[i]))
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                rows = order[start:start + self.batch_size]
                batch = self.vocab.encode([sentences[i] for i in rows])
                best = self.net(**batch).argmax(-1).tolist()
                for i, ids in zip(rows, best):
                    out[i] = self.vocab.decode_tags(ids[:len(sentences[i])])
        return out

    def save(self, path: str | os.PathLike, info: dict[str, Any] | None = None) -> Path:
        """Write the model directory, staged next to ``path`` and swapped in by rename, so an
        interrupted export never leaves a mix of old and new files."""
        import torch

        from zeroe_assets.assets.store import json_bytes, sha256_file

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}."))
        umask = os.umask(0)
        os.umask(umask)
        try:
            stage.chmod(0o777 & ~umask)  # mkdtemp's 0700 would hide the model from other users
            state = {k: v.detach().cpu().contiguous() for k, v in self.net.state_dict().items()}
            torch.save(state, stage / MODEL)
            (stage / VOCAB).write_bytes(json_bytes(self.vocab.to_dict()))
            config = {**(info or {}), **self.config, "format": FORMAT, "version": VERSION,
                      "files": {name: sha256_file(stage / name) for name in (MODEL, VOCAB)}}
            (stage / CONFIG).write_bytes(json_bytes(config))
            old = None
            if path.exists():
                old = path.rename(stage.with_name(stage.name + ".old"))
            stage.rename(path)
            if old is not None:
                shutil.rmtree(old)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        self.config = config
        return path


def load(path: str | os.PathLike | None) -> Tagger:
    """The victim factory: a model directory written by ``python -m train.victim``."""
    if path is None:
        raise ValueError("the pos-bilstm victim needs a model directory (--victim-path DIR), "
                         "e.g. runs/victim/ud_ewt/model after `python -m train.victim`")
    import torch

    from zeroe_assets.assets.store import sha256_file

    from .nets import BiLSTMTagger
    from .vocab import TaggerVocab

    root = Path(path)
    missing = [name for name in (CONFIG, VOCAB, MODEL) if not (root / name).is_file()]
    if missing:
        raise FileNotFoundError(f"{root} is not a tagger model directory (missing {', '.join(missing)}); "
                                "train one with `python -m train.victim out_dir=...`")
    config = json.loads((root / CONFIG).read_text(encoding="utf-8"))
    if config.get("format") != FORMAT or config.get("version") != VERSION:
        raise ValueError(f"{root / CONFIG}: expected format {FORMAT} version {VERSION}, got "
                         f"{config.get('format')} version {config.get('version')}")
    for name, digest in config["files"].items():
        if sha256_file(root / name) != digest:
            raise ValueError(f"{root / name} does not match the checksum in {CONFIG} "
                             "(corrupt or from another export); re-export the model")
    vocab = TaggerVocab.from_dict(json.loads((root / VOCAB).read_text(encoding="utf-8")))
    net = BiLSTMTagger(vocab.n_words, vocab.n_chars, len(vocab.tags), **config["net"])
    net.load_state_dict(torch.load(root / MODEL, map_location="cpu", weights_only=True))
    return Tagger(net, vocab, config)
