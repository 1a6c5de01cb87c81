"""Where a job's export goes. Into its own run folder (``RUN/artifacts``) unless the config asks
to replace the shipped assets (``export_to=artifacts``): a smoke or experiment run never touches
what the runtime loads. A replacement must score at least as well as the component it replaces on
the export's own yardsticks (``export_force=true`` overrides that), and the replaced version is
kept in the run folder (``RUN/replaced/<its export time>``, an artifact root ``copy_component``
can restore from).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from omegaconf import DictConfig

from zeroe_assets.assets import (ArtifactError, default_root, load_component, read_manifest,
                                 write_component)

TARGETS = ("run", "artifacts")

# per component, what its export measures: name -> (keys into its metadata, +1 if higher is
# better, -1 if lower is)
YARDSTICKS: dict[str, dict[str, tuple[tuple[str, ...], int]]] = {
    "visual": {"NFKD recall": (("quality", "nfkd_recall", "learned", "macro"), 1),
               "confusables recall": (("quality", "confusables_recall", "learned", "macro"), 1),
               "glyphs": (("glyphs",), 1), "neighbours per glyph": (("top_k",), 1)},
    "phonetic": {"embedder macro F1": (("embedder", "heldout", "macro_f1"), 1),
                 "table coverage": (("table", "coverage"), 1), "words": (("words",), 1)},
    "phonetic/seq2seq": {"G2P WER": (("g2p", "test", "wer"), -1),
                         "P2G WER": (("p2g", "test", "wer"), -1)},
    "shield": {"accuracy": (("val", "accuracy"), 1),
               "perturbed accuracy": (("val", "perturbed_accuracy"), 1)},
}


def _figure(meta: Mapping, keys: tuple[str, ...]) -> float | None:
    for key in keys:
        meta = meta.get(key) if isinstance(meta, Mapping) else None
    return float(meta) if isinstance(meta, (int, float)) and not isinstance(meta, bool) else None


def shortfalls(component: str, new: Mapping[str, Any], old: Mapping[str, Any]) -> list[str]:
    """The yardsticks of ``component`` on which the export with metadata ``new`` scores below the
    one with ``old``; one that ``new`` does not measure counts where ``old`` has a figure."""
    found = []
    for name, (keys, sign) in YARDSTICKS.get(component, {}).items():
        was, now = _figure(old, keys), _figure(new, keys)
        if was is None:
            continue
        if now is None:
            found.append(f"{name} not measured (the current one: {was:g})")
        elif sign * (now - was) < 0:
            found.append(f"{name} {now:g} {'<' if sign > 0 else '>'} {was:g}")
    return found


def copy_component(name: str, source: Path | str | None, root: Path | str | None) -> Path:
    """Write component ``name`` of artifact root ``source`` (verified) into ``root``, with its
    metadata: how the replaced version is kept, and how it is put back."""
    component = load_component(name, Path(source) if source else None)
    files = {rel: component.file(rel).read_bytes() for rel in component.files}
    return write_component(name, files, component.meta, Path(root) if root else None)


@dataclass(frozen=True)
class Destination:
    """Where a job's exports go, from its config: ``export_to``, ``export_force``, ``out_dir`` and
    ``paths.artifacts_dir`` (the shipped assets, which jobs also read their inputs from)."""

    root: Path
    shipped: Path
    run: Path
    replace: bool
    force: bool

    @classmethod
    def of(cls, cfg: DictConfig) -> "Destination":
        if cfg.export_to not in TARGETS:
            raise ValueError(f"export_to must be {' or '.join(TARGETS)}, got {cfg.export_to!r}")
        shipped = Path(cfg.paths.artifacts_dir) if cfg.paths.artifacts_dir else default_root()
        run = Path(cfg.out_dir)
        replace = cfg.export_to == "artifacts"
        return cls(shipped if replace else run / "artifacts", shipped, run, replace,
                   bool(cfg.export_force))

    def admit(self, component: str, meta: Mapping[str, Any]) -> Path:
        """The root to write ``component`` (exported with ``meta``) to. Replacing the shipped one
        is refused when it scores below it (unless forced); the shipped one is copied first. One
        that is missing or corrupt is replaced without either: there is nothing to keep."""
        entry = read_manifest(self.root)["components"].get(component) if self.replace else None
        if not isinstance(entry, dict):
            return self.root
        try:
            load_component(component, self.root)
        except ArtifactError:
            return self.root
        worse = shortfalls(component, meta, entry.get("meta") or {})
        if worse and not self.force:
            raise ValueError(f"export refused: the new {component} export scores below the one "
                             f"in {self.root} ({'; '.join(worse)}); it is kept as it is. "
                             "export_force=true replaces it anyway (a copy is kept in the run "
                             "folder), export_to=run writes the new one to the run folder")
        stamp = re.sub(r"[^0-9A-Za-z]+", "-", str(entry.get("created", "unknown"))).strip("-")
        copy_component(component, self.root, self.run / "replaced" / stamp)
        return self.root
