"""Export of a trained tagger as the POS victim bundle the benchmark loads (``pos-bilstm``)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from zeroe_assets.assets.victim import write_pos_bundle
from zeroe_assets.victims.pos_bilstm.predict import Tagger


def export(tagger: Tagger, path: str | os.PathLike, info: dict[str, Any] | None = None) -> Path:
    """Write ``tagger`` with the training record ``info``; its config becomes the one written."""
    state = {k: v.detach().cpu().contiguous() for k, v in tagger.net.state_dict().items()}
    tagger.config = write_pos_bundle(path, state, tagger.vocab.to_dict(),
                                     {**(info or {}), **tagger.config})
    return Path(path)
