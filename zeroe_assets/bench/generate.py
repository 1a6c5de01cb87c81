"""``zeroe bench generate``: perturbed copies of task datasets (paper §4.1) and adversarial-training
mixtures (§4.3), named ``{split}_{attacker}_{level}{ext}`` as in the original code; a level is
low/mid/high or any p in [0, 1] (named by ``level_tag``), for robustness curves beyond the paper's.

Each output is one job, deterministic in (seed, attacker(s), level(s), split), streamed record by
record (bounded memory), written to a temporary file and renamed into place; a sidecar
``<output>.zeroe.json`` with counts and checksums marks it complete, so a rerun skips finished
outputs and redoes interrupted ones (and those whose input changed or whose visual/phonetic assets
were rebuilt). Jobs run in parallel over processes.

Unlike the original code, SNLI premises *and* hypotheses are attacked (the original wrote SNLI
unperturbed), and every occurrence of a POS word is perturbed on its own (the original reused
one perturbation per word type).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..assets import (ArtifactError, atomic_write, read_manifest, remove_stale_temporaries,
                      sha256_path)
from ..parallel import worker_pool
from ..perturbers.phonetic import oov_available
from ..phonetic.names import SEQ2SEQ
from ..progress import progress_bar, stream
from ..spec import perturbers_here, get_perturbation
from ..validate import LEVELS, resolve_level
from ..rng import sample_rngs
from ..registry import canonical, needs_assets, perturber_class, unavailable_reason
from ..runs import locked
from ..tasks import Task, get_task

SIDECAR = ".zeroe.json"
HF = "hf:"  # an --input that is a Hugging Face dataset


@dataclass(frozen=True)
class Job:
    task: str  # the task's name (sidecars are JSON)
    split: str
    input: str
    output: str
    mixture: tuple[tuple[str, str], ...]  # (attacker, level) drawn in equal shares per record
    seed: int
    fields: tuple[str, ...] = ()
    protocol: str = "paper"
    assets: tuple[tuple[str, str], ...] = ()  # (component, fingerprint): rebuilt assets → rerun
    mode: str = "grid"  # a one-level 1-1 mixture looks like a grid set: only grid sets are tested

    def params(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "output"}


@dataclass
class Outcome:
    output: str
    skipped: bool
    records: int = 0
    texts: int = 0
    changed: int = 0
    seconds: float = 0.0
    shares: dict = field(default_factory=dict)


def parse_inputs(inputs: Sequence[str]) -> dict[str, Path]:
    """``NAME=PATH`` or ``PATH`` (split named after the file stem). ``hf:PATH`` is a Hugging
    Face dataset: a ``save_to_disk`` folder (a ``DatasetDict``'s gives each of its splits) or
    a Parquet file."""
    out: dict[str, Path] = {}
    for item in inputs:
        name, sep, path = item.partition("=")
        if not sep or name.startswith(HF):
            name, path = None, item
        for split, file in _input(path, name):
            check_split_name(split, item)
            if split in out:
                raise ValueError(f"two inputs for split {split!r}; name them NAME=PATH")
            out[split] = file
    if not out:
        raise ValueError("no input files")
    return out


def check_split_name(split: str, given: str) -> None:
    """A split names the sets written for it (``{split}_{attacker}_{level}``), so it is a plain
    file name: nothing that could point outside ``--out`` (a separator, ``..``, an absolute
    path) nor characters a listing would hide (control characters). ``given``: the --input."""
    if not split or split in (".", "..") or "/" in split or "\\" in split \
            or not split.isprintable():
        raise ValueError(f"split name {split!r} (from --input {given!r}) is not a plain name: "
                         "it must be non-empty, without path separators, '.', '..' or control "
                         "characters")


def _input(path: str, name: str | None) -> list[tuple[str, Path]]:
    """(split, path) of one ``--input``."""
    if not path.startswith(HF):
        if not Path(path).is_file():
            raise ValueError(f"input file not found: {path}")
        return [(Path(path).stem if name is None else name, Path(path))]
    path = Path(path[len(HF):])
    if path.is_dir() and (path / "dataset_dict.json").is_file():
        if name:
            raise ValueError(f"{path} is a DatasetDict: its splits are named by it, drop {name}=")
        splits = json.loads((path / "dataset_dict.json").read_text())["splits"]
        return [(split, path / split) for split in splits]
    if not (path.is_dir() and (path / "state.json").is_file()) and \
            not (path.is_file() and path.suffix.lower() == ".parquet"):
        raise ValueError(f"hf:{path}: neither a folder written by save_to_disk nor a .parquet "
                         "file")
    return [(path.stem if name is None else name, path)]


def resolve_perturbers(task: str | Task, attackers: str | Sequence[str],
                      strict: bool = False) -> list[str]:
    """``all`` = every available perturber (segment left out for token-aligned tasks); those
    whose assets are missing or corrupt are left out with a warning, or an ``ArtifactError`` if
    ``strict``. A perturber named explicitly must be available: checked here, before any set is
    written."""
    task = get_task(task)
    aligned = task.token_aligned
    if isinstance(attackers, str):
        if attackers.strip() == "all":
            names = perturbers_here("--perturbers all", strict)
            return [n for n in names if not (aligned and not perturber_class(n).token_aligned)]
        attackers = [a for a in attackers.split(",") if a.strip()]
    names = [canonical(a) for a in attackers]
    for name in names:
        if aligned and not perturber_class(name).token_aligned:
            raise ValueError(f"{name} changes the number of tokens, so it cannot attack the "
                             f"token-aligned {task.name} task (paper §3.2)")
        reason = unavailable_reason(name, verify=True)
        if reason:
            raise ArtifactError(f"--perturbers needs {name}, which is not available: {reason}")
    if not names:
        raise ValueError("no attackers given")
    return names


def asset_fingerprints(attackers: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """A checksum of the manifest entry (its files' sha256) of each asset component the
    attackers use: theirs and the ones nested in it (phonetic/seq2seq), which a nested one only
    is where it runs (the phonetic OOV path needs torch), else it is "unused"."""
    used = {c for a in attackers if (c := needs_assets(a))}
    if not used:
        return ()
    manifest = read_manifest()["components"]
    nested = {c for c in manifest for u in used if c.startswith(u + "/")}

    def fingerprint(c: str) -> str:
        if c == SEQ2SEQ and not oov_available():
            return "unused"
        return hashlib.sha256(json.dumps(manifest.get(c, {}).get("files", {}),
                                         sort_keys=True).encode()).hexdigest()[:16]

    return tuple((c, fingerprint(c)) for c in sorted(used | nested))


def job_seed(seed: int, *parts: str) -> int:
    digest = hashlib.sha256("|".join([str(seed), *parts]).encode()).digest()
    return int.from_bytes(digest[:8], "little")


def level_tag(level: float | str) -> str:
    """A level's name in file names, mixtures, sidecars and seeds: low/mid/high keep theirs (so
    their outputs never change), a number becomes ``format(p, "g")``, so "0.30" and 0.3 name one
    set (and p is rounded to 6 significant digits)."""
    if isinstance(level, str) and level.strip().lower() in LEVELS:
        return level.strip().lower()
    return format(abs(resolve_level(level)), "g")  # abs: "-0" is 0


def plan(task: str | Task, inputs: dict[str, Path], attackers: Sequence[str],
         levels: Sequence[str], out_dir: Path, seed: int, mode: str = "grid",
         fields: Sequence[str] = (), protocol: str = "paper") -> list[Job]:
    """The jobs: ``grid`` (attacker × level), ``1-1`` (per attacker, its levels mixed) or
    ``loo`` (per attacker, all *other* attackers and levels mixed). ``levels``: named or numbers,
    two with the same p refused (they would be one set under two names)."""
    task = get_task(task)
    if not levels:
        raise ValueError("no levels given")
    tags = [level_tag(lv) for lv in levels]
    given: dict[float, str] = {}  # p → the level as given, to name both of a duplicate
    for level, tag in zip(levels, tags):
        p = resolve_level(tag)
        if p in given:
            raise ValueError(f"levels {given[p]!r} and {level!r} are the same p = {p:g}")
        given[p] = level
    levels = tags
    for path in inputs.values():  # read whole before any job runs: a bad record fails the run
        if not sum(bool(r.texts) for r in task.format_for(path, fields or None).read(path)):
            raise ValueError(f"{path}: no records to attack for task {task.name}")
    jobs = []
    for split, path in inputs.items():
        ext = path.suffix
        source = str(path.resolve())  # evaluate finds it from any directory
        for attacker in attackers:
            if mode == "grid":
                mixtures = [(level, ((attacker, level),)) for level in levels]
            elif mode == "1-1":
                mixtures = [("1-1", tuple((attacker, lv) for lv in levels))]
            elif mode == "loo":
                others = [a for a in attackers if a != attacker]
                if not others:
                    raise ValueError("leave-one-out needs at least two attackers")
                mixtures = [("loo", tuple((a, lv) for a in others for lv in levels))]
            else:
                raise ValueError(f"mode must be grid, 1-1 or loo, got {mode!r}")
            for tag, mixture in mixtures:
                name = (f"{split}_{attacker}_{tag}{ext}" if mode == "grid"
                        else f"{split}_{tag}_{attacker}{ext}")
                key = ",".join(f"{a}:{lv}" for a, lv in mixture)
                jobs.append(Job(task.name, split, source, str(out_dir / name), mixture,
                                job_seed(seed, mode, key, split), tuple(fields), protocol,
                                asset_fingerprints([a for a, _ in mixture]), mode))
    return jobs


def is_complete(job: Job, source: str | None = None) -> bool:
    """Whether the output and its sidecar are this job's, from this input (``source``: its
    sha256, when the caller has it already)."""
    sidecar = Path(job.output + SIDECAR)
    if not sidecar.exists() or not Path(job.output).exists():
        return False
    try:
        meta = json.loads(sidecar.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False
    return meta.get("params") == json.loads(json.dumps(job.params())) and \
        meta.get("sha256") == sha256_path(Path(job.output)) and \
        meta.get("input_sha256") == (source or sha256_path(Path(job.input)))


def run_job(job: Job) -> Outcome:
    """Stream ``job.input`` through its attack mixture into ``job.output`` (atomically)."""
    start = time.perf_counter()
    source = sha256_path(Path(job.input))  # what was read, not what the file may be by the end
    if is_complete(job, source):
        return Outcome(job.output, skipped=True)
    fmt = get_task(job.task).format_for(Path(job.input), job.fields or None)
    attacks = [get_perturbation(a, level=lv, protocol=job.protocol) for a, lv in job.mixture]
    prepare(attacks, fmt, Path(job.input))
    rngs = sample_rngs(job.seed)
    assign = random.Random(job.seed ^ 0x5EED)  # balanced shares: a permutation per block
    block: list[int] = []
    shares: Counter = Counter()
    counts = Counter()  # records, texts, changed

    def pieces():
        for record in fmt.read(Path(job.input)):
            if not record.texts:  # a header, a blank line: written back, not counted
                yield record.raw
                continue
            counts["records"] += 1
            if not block:
                block.extend(assign.sample(range(len(attacks)), len(attacks)))
            which = block.pop()
            shares[which] += 1
            new = [attacks[which].perturb(t, next(rngs)) for t in record.texts]
            counts["texts"] += len(new)
            counts["changed"] += sum(a != b for a, b in zip(new, record.texts))
            yield fmt.render(record, new)

    out = Path(job.output)
    fmt.write(out, pieces(), Path(job.input))
    records, texts, changed = counts["records"], counts["texts"], counts["changed"]
    outcome = Outcome(job.output, False, records, texts, changed, time.perf_counter() - start,
                      {f"{a}:{lv}": shares[i] for i, (a, lv) in enumerate(job.mixture)})
    meta = {"params": job.params(), "sha256": sha256_path(out),
            "input_sha256": source, "records": records, "texts": texts,
            "changed_texts": changed, "shares": outcome.shares,
            "components": dict(job.assets),  # what made the set: name → checksum of its files
            # whether words outside the phonetic table could be respelled (torch was there)
            "phonetic_oov": dict(job.assets).get(SEQ2SEQ, "unused") != "unused"}
    atomic_write(Path(job.output + SIDECAR), json.dumps(meta, indent=1).encode())
    return outcome


def prepare(attacks, fmt, path: Path) -> int:
    """Let the perturbations that batch work (phonetic decodes words outside its table) see all
    of a file's texts at once, many times faster than word by word; returns how many words."""
    attacks = [a for a in attacks if a.prepares]
    if not attacks:
        return 0
    texts = [text for record in fmt.read(path) for text in record.texts]
    return sum(a.prepare(texts) for a in attacks)


def _prepare_inputs(jobs: Sequence[Job], progress) -> None:
    """Prepare each input once, here, before workers fork: every job (each level, each worker)
    then finds its words decoded instead of decoding them again."""
    seen = set()
    for job in jobs:
        key = (job.task, job.input, job.fields, job.protocol)
        attackers = {a for a, _ in job.mixture if perturber_class(a).prepares}
        if not attackers or key in seen or is_complete(job):
            continue
        seen.add(key)
        start = time.perf_counter()
        n = prepare([get_perturbation(a, protocol=job.protocol) for a in sorted(attackers)],
                    get_task(job.task).format_for(Path(job.input), job.fields or None),
                    Path(job.input))
        if progress is not None and n:
            print(f"{Path(job.input).name}: {n} words outside the phonetic table respelled in "
                  f"{time.perf_counter() - start:.1f}s", file=progress, flush=True)


def run(jobs: Sequence[Job], processes: int = 1, progress=True) -> list[Outcome]:
    """Run jobs (in parallel when ``processes`` > 1), printing one progress line per job (and a
    bar of them on a terminal).

    The output folders are locked while it runs (`runs.locked`: a second run there is refused).
    Temporaries of killed runs are removed first; those of workers stopped by an interrupt
    (the pool terminates them) are removed when the run ends."""
    if processes < 1:
        raise ValueError(f"processes must be >= 1, got {processes}")
    progress = stream(progress)
    folders = sorted({Path(job.output).parent for job in jobs})
    outcomes = []
    with contextlib.ExitStack() as stack:
        for folder in folders:
            stack.enter_context(locked(folder, "bench generate"))
            remove_stale_temporaries(folder)
        _prepare_inputs(jobs, progress)
        stack.callback(lambda: [remove_stale_temporaries(f) for f in folders])
        if processes == 1 or len(jobs) <= 1:
            results = map(run_job, jobs)
        else:
            pool = stack.enter_context(worker_pool(processes))
            results = pool.imap_unordered(run_job, jobs)
        bar = stack.enter_context(progress_bar(len(jobs), "generate", " sets",
                                               enabled=progress is not None))
        for done, outcome in enumerate(results, 1):
            outcomes.append(outcome)
            if progress is not None:
                what = ("skipped (complete)" if outcome.skipped else
                        f"{outcome.records} records, {outcome.changed}/{outcome.texts} texts "
                        f"changed, {outcome.seconds:.1f}s")
                bar.write(f"[{done}/{len(jobs)}] {Path(outcome.output).name}: {what}",
                          file=progress)
                progress.flush()
            bar.update()
    return outcomes
