"""Clean sentences of the benchmark's training splits → copies perturbed by the toolkit's own
attackers → the runtime shield's candidate rows for each of their words, cached as one ``.npz``
in the run folder (a rerun or a resume reads it instead of rebuilding it).

The cache is ragged: every token's readings are consecutive rows of ``rows``; token ``t`` owns
``rows[offsets[t]:offsets[t + 1]]``, row 0 of each being "keep the word".
"""
from __future__ import annotations

import hashlib
import io
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, Dataset

import zeroe_assets.shield
from train.checks import positive
from train.shield import families as fam
from zeroe_assets import registry
from zeroe_assets.assets.store import atomic_write, sha256_file
from zeroe_assets.formats import TsvFormat
from zeroe_assets.progress import progress_bar
from zeroe_assets.protocol import PROTOCOLS
from zeroe_assets.validate import resolve_level
from zeroe_assets.shield import Shield, get_shield
from zeroe_assets.shield.features import FEATURES
from zeroe_assets.spec import perturbers_here, get_perturbation

log = logging.getLogger(__name__)
CLEAN = "clean"  # the spec of an unperturbed copy
FAMILY = "family:"  # a family's spec is family:NAME:LEVEL (two colons: never a perturbation spec)
TEXT = "# text = "  # a CoNLL-U sentence's text comment


def read_sentences(path: str | Path, fields: list[str] | None = None) -> list[str]:
    """The distinct non-empty sentences of ``path`` in file order: a CoNLL-U file's ``# text``
    lines, or the ``fields`` columns of a TSV file (SNLI's ``sentence1``/``sentence2``)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist (set paths.data_dir or ZEROE_DATA)")
    if path.suffix.lower() == ".conllu":
        with open(path, encoding="utf-8") as f:
            texts = [line[len(TEXT):].strip() for line in f if line.startswith(TEXT)]
    elif path.suffix.lower() == ".tsv":
        if not fields:
            raise ValueError(f"{path}: a TSV source needs its text columns (fields: [...])")
        texts = [t.strip() for record in TsvFormat(fields).read(path) for t in record.texts]
    else:
        raise ValueError(f"{path}: sources are .conllu or .tsv files")
    found = list(dict.fromkeys(t for t in texts if t))
    if not found:
        raise ValueError(f"{path}: no sentences")
    return found


@dataclass(frozen=True)
class Example:
    """One clean sentence and how it is perturbed: ``spec`` (``clean``, ``visual:0.3``, a
    chain ``a:0.1+b:0.5`` or a generator family ``family:dces:0.3``) under ``protocol`` (which
    families do not use) with ``seed``; ``val`` holds it out."""

    clean: str
    spec: str
    protocol: str
    seed: int
    val: bool

    @property
    def family(self) -> str | None:
        """The generator family's name (``dces``) of a family example, else ``None``."""
        if not self.spec.startswith(FAMILY):
            return None
        return self.spec[len(FAMILY):].rpartition(":")[0]

    @property
    def attack(self) -> str:
        """The attack without its levels, to report figures by (a family's name for a family
        example: leave one family out by it)."""
        if self.family is not None:
            return self.family
        return "+".join(part.split(":")[0] for part in self.spec.split("+"))


def plan(sentences: list[str], attackers: list[str], levels: list[float], protocols: list[str],
         clean_share: float, chain_share: float, val_share: float, seed: int,
         families: list[str] = (), family_share: float = 0.0) -> list[Example]:
    """How each sentence is perturbed, drawn from ``(seed, its index)`` alone: a clean copy
    (``clean_share``), a chain of two different attackers (``chain_share``), one generator family
    drawn from ``families`` (``family_share``) or one attacker, each at a level drawn from
    ``levels``, under a protocol drawn from ``protocols`` (families do not use it).

    The draws of an example that is not a family's are those of the plan without families, so
    ``family_share=0`` gives the same plan as before families existed; with ``family_share > 0``
    the examples whose draw falls in the family share become family examples, the others stay.
    """
    if family_share > 0 and not families:
        raise ValueError("family_share > 0 needs at least one family")
    examples = []
    for i, text in enumerate(sentences):
        rng = np.random.default_rng([seed, i])
        val, kind = rng.random() < val_share, rng.random()
        count = 0 if kind < clean_share else 2 if kind < clean_share + chain_share else 1
        if count == 1 and kind < clean_share + chain_share + family_share:
            family = families[rng.integers(len(families))]
            spec = f"{FAMILY}{family}:{levels[rng.integers(len(levels))]}"
        else:
            names = rng.choice(len(attackers), size=count, replace=False)
            spec = "+".join(f"{attackers[n]}:{levels[rng.integers(len(levels))]}" for n in names)
        examples.append(Example(text, spec or CLEAN, protocols[rng.integers(len(protocols))],
                                int(rng.integers(1 << 62)), bool(val)))
    return examples


def perturb(examples: list[Example], typos: str | Path | None = None) -> list[str]:
    """Each example's perturbed text; one attacker per (spec, protocol), prepared for all its
    sentences at once (phonetic respells the words outside its table in one batch); a family
    example by its family with ``numpy.random.default_rng(seed)`` (``typos``: the ``en.natural``
    file of ``natural-bb``, default ``$ZEROE_DATA/noise/en.natural``)."""
    groups: dict[tuple[str, str], list[int]] = {}
    out = [example.clean for example in examples]
    for i, example in enumerate(examples):
        if example.family is not None:
            level = float(example.spec.rpartition(":")[2])
            out[i] = fam.get_family(example.family, typos).perturb(
                example.clean, level, np.random.default_rng(example.seed))
        elif example.spec != CLEAN:
            groups.setdefault((example.spec, example.protocol), []).append(i)
    with progress_bar(len(groups), "perturbing", " attacks") as bar:
        for (spec, protocol), ids in groups.items():
            attack = get_perturbation(spec, protocol=protocol)
            attack.prepare([examples[i].clean for i in ids])
            for i in ids:
                out[i] = attack(examples[i].clean, seed=examples[i].seed)
            bar.update()
    return out


def build_rows(examples: list[Example], shield: Shield,
               typos: str | Path | None = None) -> dict[str, np.ndarray]:
    """The cache's arrays: every token's rows (``Shield.training_rows``), its gold reading, the
    mechanisms that proposed it, the attack and the example the token comes from."""
    rows, gold, mechanisms, attacks, owner = [], [], [], [], []
    with progress_bar(len(examples), "shield rows", " sentences") as bar:
        for i, (text, example) in enumerate(zip(perturb(examples, typos), examples)):
            for r, g, m in shield.training_rows(text, example.clean):
                rows.append(r)
                gold.append(g)
                mechanisms.append(m)
                attacks.append(example.attack)
                owner.append(i)
            bar.update()
    mechanism_names, mechanism_ids = np.unique(np.array(mechanisms, dtype=str), return_inverse=True)
    attack_names, attack_ids = np.unique(np.array(attacks, dtype=str), return_inverse=True)
    sizes = np.array([len(r) for r in rows], dtype=np.int64)
    return {"rows": np.concatenate(rows) if rows else np.zeros((0, len(FEATURES)), np.float32),
            "offsets": np.concatenate([[0], np.cumsum(sizes)]),
            "gold": np.array(gold, dtype=np.int64), "example": np.array(owner, dtype=np.int64),
            "mechanism": mechanism_ids.astype(np.int64), "mechanism_names": mechanism_names,
            "attack": attack_ids.astype(np.int64), "attack_names": attack_names,
            "val_examples": np.array([e.val for e in examples], dtype=bool)}


def shield_code_sha256() -> str:
    """A fingerprint of the runtime shield's code: rows built by other restorers are stale."""
    folder = Path(zeroe_assets.shield.__file__).parent
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


class TokenRows(Dataset):
    """The tokens ``ids`` of the cache, each as (its rows, its gold reading)."""

    def __init__(self, arrays: dict[str, np.ndarray], ids: np.ndarray):
        self.rows, self.offsets = torch.from_numpy(arrays["rows"]), arrays["offsets"]
        self.gold, self.ids = arrays["gold"], ids

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        t = self.ids[i]
        return self.rows[self.offsets[t]:self.offsets[t + 1]], int(self.gold[t])


def collate(items: list[tuple[torch.Tensor, int]]) -> dict[str, torch.Tensor]:
    """Readings padded to the batch's longest list; ``mask`` marks the real ones."""
    width = max(len(rows) for rows, _ in items)
    rows = torch.zeros(len(items), width, items[0][0].shape[1])
    mask = torch.zeros(len(items), width, dtype=torch.bool)
    for b, (r, _) in enumerate(items):
        rows[b, :len(r)] = r
        mask[b, :len(r)] = True
    return {"rows": rows, "mask": mask, "gold": torch.tensor([g for _, g in items])}


class ShieldRows(pl.LightningDataModule):
    """``sentences`` clean sentences drawn from each of ``sources`` (name → ``path`` and, for
    TSV, ``fields``), perturbed as `plan` says, turned into the rows of a hand-set shield (so the
    rows do not depend on an earlier export) and cached at ``cache``. Examples are held out whole
    (``val_share``); training skips tokens with one reading (nothing to choose).

    ``families`` (`train.shield.families`; ``None``: all that can run, i.e. ``natural-bb`` only
    when ``natural_typos`` exists) attack ``family_share`` of the sentences. ``exclude`` names
    attacks (perturbers or families) whose tokens the fit leaves out, chains with them included,
    while the held-out figures keep them: leave-one-family-out, on the same cached rows."""

    def __init__(self, sources: dict, sentences: int, cache: str,
                 attackers: list[str] | None = None,
                 levels: tuple = (0.1, 0.2, 0.3, 0.5, 0.8), protocols: tuple = PROTOCOLS,
                 clean_share: float = 0.15, chain_share: float = 0.1, val_share: float = 0.1,
                 seed: int = 0, batch_size: int = 256, eval_batch_size: int = 2048,
                 num_workers: int = 0, families: list[str] | None = None,
                 family_share: float = 0.0, natural_typos: str | None = None,
                 exclude: list[str] | None = None):
        super().__init__()
        positive("data", sentences=sentences, batch_size=batch_size,
                 eval_batch_size=eval_batch_size)
        if not sources:
            raise ValueError("data.sources is empty: name at least one file of clean sentences")
        for key, share in (("clean_share", clean_share), ("chain_share", chain_share),
                           ("family_share", family_share)):
            if not 0 <= share <= 1:
                raise ValueError(f"data.{key} must be in [0, 1], got {share}")
        if clean_share + chain_share + family_share > 1:
            raise ValueError("data.clean_share + data.chain_share + data.family_share must be at "
                             "most 1")
        if not 0 < val_share < 1:
            raise ValueError(f"data.val_share must be between 0 and 1, got {val_share}")
        unknown = [p for p in protocols if p not in PROTOCOLS]
        if unknown or not protocols:
            raise ValueError(f"data.protocols: choose from {', '.join(PROTOCOLS)}, got "
                             f"{list(protocols)}")
        if not levels:
            raise ValueError("data.levels is empty")
        self.levels = [resolve_level(level) for level in levels]
        self.attackers = ([registry.canonical(a) for a in attackers] if attackers
                          else perturbers_here("train.shield"))
        self.natural_typos = natural_typos
        named = None if families is None else [fam.get_family(n).name for n in families]
        if family_share == 0:
            self.families = []  # none drawn: the plan (and the cache key) as without families
        elif named is None:
            self.families = fam.available(natural_typos)
            if fam.NATURAL not in self.families:
                log.warning("family %s left out: no typo file at %s", fam.NATURAL,
                            natural_typos or "$ZEROE_DATA/noise/en.natural")
        elif not named:
            raise ValueError("data.families is empty: name at least one, or set "
                             "data.family_share=0")
        else:
            self.families = named
            if fam.NATURAL in named:
                fam.natural_path(natural_typos)  # a clear error now, not after the other rows
        self.sources = {name: dict(source) for name, source in sources.items()}
        self.sentences, self.cache, self.protocols = sentences, Path(cache), list(protocols)
        self.shares = {"clean_share": clean_share, "chain_share": chain_share,
                       "val_share": val_share, "family_share": family_share}
        self.seed, self.batch_size, self.eval_batch_size = seed, batch_size, eval_batch_size
        self.num_workers = num_workers
        self.exclude = sorted(set(exclude or ()))

    def setup(self, stage: str | None = None) -> None:
        if hasattr(self, "arrays"):
            return
        texts, self.drawn = [], {}
        for k, (name, source) in enumerate(self.sources.items()):
            found = read_sentences(source["path"], source.get("fields"))
            order = np.random.default_rng([self.seed, k]).permutation(len(found))
            texts += [found[i] for i in order[:self.sentences]]
            self.drawn[name] = {"path": str(source["path"]), "sha256": sha256_file(source["path"]),
                                "sentences": len(found), "drawn": min(self.sentences, len(found))}
        self.key = self._key()
        self.arrays = self._load()
        if self.arrays is None:
            examples = plan(texts, self.attackers, self.levels, self.protocols, seed=self.seed,
                            families=self.families, **self.shares)
            started, cpu_started = time.perf_counter(), time.process_time()
            self.arrays = build_rows(examples, get_shield(learned=False), self.natural_typos)
            log.info("built the rows of %d sentences in %.0f s (%.0f CPU s)", len(examples),
                     time.perf_counter() - started, time.process_time() - cpu_started)
            self._save()
        val = self.arrays["val_examples"][self.arrays["example"]]
        sizes = np.diff(self.arrays["offsets"])
        train = ~val & (sizes > 1)
        if self.exclude:  # left out of the fit only: the held-out figures still report them
            left_out = np.array([bool(set(name.split("+")) & set(self.exclude))
                                 for name in self.arrays["attack_names"]], dtype=bool)
            unknown = set(self.exclude) - {part for name in self.arrays["attack_names"]
                                           for part in name.split("+")}
            if unknown:
                raise ValueError(f"data.exclude: no rows of {', '.join(sorted(unknown))} (the "
                                 f"attacks here: {', '.join(self.arrays['attack_names'])})")
            train &= ~left_out[self.arrays["attack"]]
        self.ids = {"train": np.flatnonzero(train), "val": np.flatnonzero(val)}
        for split, ids in self.ids.items():
            if not len(ids):
                raise ValueError(f"no {split} tokens to fit or hold out: raise data.sentences "
                                 "(or move data.val_share away from 0 or 1)")

    def _key(self) -> str:
        """What the rows depend on: the sources' contents, the settings, the features and the
        shield's code."""
        settings = {"sources": {n: [d["sha256"], self.sources[n].get("fields")]
                                for n, d in self.drawn.items()},
                    "sentences": self.sentences, "attackers": self.attackers,
                    "levels": self.levels, "protocols": self.protocols,
                    **{k: v for k, v in self.shares.items() if k != "family_share" or v},
                    "seed": self.seed, "features": list(FEATURES), "shield": shield_code_sha256()}
        if self.families:
            settings["families"] = self.families
            settings["family_resources"] = fam.fingerprint(self.families, self.natural_typos)
        return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()

    def _load(self) -> dict[str, np.ndarray] | None:
        if not self.cache.is_file():
            return None
        with np.load(self.cache, allow_pickle=False) as cached:
            if str(cached["key"]) == self.key:
                log.info("shield rows from %s", self.cache)
                return {k: cached[k] for k in cached.files if k != "key"}
        log.warning("%s was built from other settings, data or shield code: rebuilding it",
                    self.cache)
        return None

    def _save(self) -> None:
        buffer = io.BytesIO()
        np.savez_compressed(buffer, key=np.array(self.key), **self.arrays)  # mostly zeros
        self.cache.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.cache, buffer.getvalue())

    def tokens(self, split: str) -> dict[str, np.ndarray]:
        """The ``split`` tokens' gold readings, attacks and mechanisms (names, not ids)."""
        ids, a = self.ids[split], self.arrays
        return {"ids": ids, "gold": a["gold"][ids], "attack": a["attack_names"][a["attack"][ids]],
                "mechanism": a["mechanism_names"][a["mechanism"][ids]]}

    def summary(self) -> dict:
        """The sources, sizes and fingerprint of the rows, for the export's record."""
        gold = self.arrays["gold"]
        return {"sources": self.drawn, "families": self.families,
                "examples": len(self.arrays["val_examples"]),
                "val_examples": int(self.arrays["val_examples"].sum()),
                "tokens": len(gold), "perturbed_tokens": int((gold != 0).sum()),
                "readings": len(self.arrays["rows"]), "train_tokens": len(self.ids["train"]),
                "val_tokens": len(self.ids["val"]), "rows_key": self.key,
                "cache": str(self.cache)}

    def _loader(self, split: str, shuffle: bool) -> DataLoader:
        return DataLoader(TokenRows(self.arrays, self.ids[split]), collate_fn=collate,
                          batch_size=self.batch_size if shuffle else self.eval_batch_size,
                          shuffle=shuffle, num_workers=self.num_workers,
                          persistent_workers=self.num_workers > 0)

    def train_dataloader(self) -> DataLoader:
        return self._loader("train", True)

    def val_dataloader(self) -> DataLoader:
        return self._loader("val", False)
