"""The POS victim bundle: the model directory the built-in ``pos-bilstm`` victim loads.

``model.pt`` (a state dict of tensors, read with ``weights_only=True``), ``vocab.json`` and
``config.json`` (network sizes, sha256 of the other two files, the training record). A bundle is
staged next to its path and swapped in by rename, so an interrupted export never leaves a mix of
old and new files. torch is imported when a bundle is written or read, not with this module.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from .hints import rebuild_hint
from ..validate import require_torch
from .store import json_bytes, remove_stale_temporaries, sha256_file, temp_prefix

FORMAT = "zeroe-pos-tagger"
VERSION = 1
MODEL, VOCAB, CONFIG = "model.pt", "vocab.json", "config.json"
COMPONENT = "victim/pos-bilstm"  # for its rebuild hint


@dataclass(frozen=True)
class PosBundle:
    """A verified bundle: its config (with ``net`` sizes), vocabulary and weights."""

    path: Path
    config: dict
    vocab: dict
    state: dict


@contextlib.contextmanager
def staged_folder(path: str | os.PathLike) -> Iterator[Path]:
    """A fresh folder to fill in place of ``path``: staged next to it and swapped in by rename
    when the block ends without error (removed otherwise), so readers see the old model directory
    or the new one, never a mix. Shared by the victims' model directories."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path.parent)  # staging folders of killed exports
    stage = Path(tempfile.mkdtemp(dir=path.parent, prefix=temp_prefix(path.name)))
    umask = os.umask(0)
    os.umask(umask)
    try:
        stage.chmod(0o777 & ~umask)  # mkdtemp's 0700 would hide the model from other users
        yield stage
        old = None
        if path.exists():
            old = path.rename(stage.with_name(stage.name + ".old"))
        stage.rename(path)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def write_pos_bundle(path: str | os.PathLike, state: Mapping[str, Any], vocab: dict,
                     config: dict) -> dict:
    """Write the bundle of ``state`` (tensors) and ``vocab``; returns ``config`` as written (with
    format, version and the checksums of the other files)."""
    torch = require_torch("writing a pos-bilstm bundle")

    with staged_folder(path) as stage:
        torch.save(dict(state), stage / MODEL)
        (stage / VOCAB).write_bytes(json_bytes(vocab))
        config = {**config, "format": FORMAT, "version": VERSION,
                  "files": {name: sha256_file(stage / name) for name in (MODEL, VOCAB)}}
        (stage / CONFIG).write_bytes(json_bytes(config))
    return config


def load_pos_bundle(path: str | os.PathLike) -> PosBundle:
    """Read and verify a bundle written by :func:`write_pos_bundle`."""
    torch = require_torch("the pos-bilstm victim")

    root = Path(path)
    missing = [name for name in (CONFIG, VOCAB, MODEL) if not (root / name).is_file()]
    if missing:
        raise FileNotFoundError(f"{root} is not a tagger model directory (missing "
                                f"{', '.join(missing)}); {rebuild_hint(COMPONENT)}")
    config = json.loads((root / CONFIG).read_text(encoding="utf-8"))
    if config.get("format") != FORMAT or config.get("version") != VERSION:
        raise ValueError(f"{root / CONFIG}: expected format {FORMAT} version {VERSION}, got "
                         f"{config.get('format')} version {config.get('version')}")
    for name, digest in config["files"].items():
        if sha256_file(root / name) != digest:
            raise ValueError(f"{root / name} does not match the checksum in {CONFIG} "
                             f"(corrupt or from another export); {rebuild_hint(COMPONENT)}")
    vocab = json.loads((root / VOCAB).read_text(encoding="utf-8"))
    state = torch.load(root / MODEL, map_location="cpu", weights_only=True)
    return PosBundle(root, config, vocab, state)
