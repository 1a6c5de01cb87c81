"""Scale-out on Ray: the same perturbation as ``zeroe perturb``, over a Ray Data pipeline.

Every record carries its global position (a column zipped on after reading); the rows are cut
into blocks of ``batch_size`` positions (whole blocks of the seeding, `rng.BLOCK`), materialised, and
perturbed by a pool of actors (`map_batches` with a callable class: each worker builds the
perturbation, loading its assets, once), each block as one batch starting at its own position. Ray
Data keeps the blocks in order (``preserve_order``), so the output equals the single-process CLI's
for the same seed whatever the number of workers and blocks; a batch that is not a whole block
stops the run (a `RuntimeError`) rather than give other output.

Text files are read as ``zeroe perturb`` reads them (lines split at ``\\n`` only, ``\\r\\n``
endings dropped; Ray's ``read_text`` also splits at ``\\r`` and the other Unicode line breaks),
JSON Lines and Parquet by Ray's readers; the output is Parquet or JSON Lines files in a folder,
in order by name. The perturbation is built on each worker from its spec, so workers need zeroe and
its artifacts (``ZEROE_ARTIFACTS``) where they run: see docs/integrations.md.
"""
from __future__ import annotations

import functools
import io
import logging
import os
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from ..parallel import Checked, perturb_at
from ..validate import NeedsExtra, check_int
from ..protocol import Perturbation
from ..rng import BLOCK, Seed, base_seed
from ..spec import get_perturbation

EXTRA = "pip install 'zeroe[scale]'"
POS = "__zeroe_position"  # the global position of a record
BATCH = 64 * BLOCK  # records per batch, by default
READERS = {".txt": "text", ".jsonl": "json", ".json": "json", ".parquet": "parquet"}
WRITERS = ("parquet", "json")


def connect(address: str | None = None, workers: int | None = None):
    """Ray, connected to the cluster at ``address`` (``auto``, ``HOST:PORT``,
    ``ray://HOST:PORT``) or else to a local instance of ``workers`` CPUs started here, its
    logging quiet (errors only, not its notes on token authentication; the workers' output kept
    off the driver's terminal); used as it is when already initialised. An address that does not
    answer within ``CONNECT_TIMEOUT`` seconds is a ``ValueError``; one that accepts connections
    but is no Ray cluster fails after as many attempts, about a second each
    (``RAY_gcs_server_port_wait_time_s``, where set, wins): Ray itself retries for minutes."""
    try:
        import ray
    except ImportError:
        raise NeedsExtra(f"the Ray engine needs Ray: {EXTRA}") from None
    if not ray.is_initialized():
        if address:
            reachable(address)
            os.environ.setdefault("RAY_gcs_server_port_wait_time_s", str(CONNECT_TIMEOUT))
        logging.getLogger("ray").setLevel(logging.ERROR)
        ray.init(address=address, num_cpus=None if address else workers,
                 include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    return ray


CONNECT_TIMEOUT = 5  # seconds a cluster's address has to accept a connection


def reachable(address: str) -> None:
    """A ``ValueError`` unless ``HOST:PORT`` (after an optional ``ray://``) accepts a TCP
    connection within ``CONNECT_TIMEOUT``; ``auto`` and other forms are left to Ray, which
    fails fast on them."""
    import socket

    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), CONNECT_TIMEOUT).close()
    except OSError as e:
        raise ValueError(f"no Ray cluster answers at {address} ({e.strerror or e}); start one "
                         "with `ray start --head`, or leave the address out for a local "
                         "instance") from None


def init(address: str | None = None, workers: int | None = None):
    """Ray as `connect` gives it, with Ray Data keeping the order of blocks and its progress
    bars on a terminal only."""
    ray = connect(address, workers)
    try:
        import ray.data
    except ImportError:
        raise NeedsExtra(f"the Ray engine needs Ray Data: {EXTRA}") from None
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True  # positions and output order rely on it
    context.enable_progress_bars = sys.stderr.isatty()
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    return ray


def perturb_files(paths: str | Sequence[str], out_dir: str | Path, spec: str | Perturbation,
                  columns: str | Sequence[str] = "text", seed: Seed = 0, workers: int = 2,
                  address: str | None = None, output_format: str = "parquet",
                  batch_size: int = BATCH, **perturb_options) -> int:
    """Perturb the ``columns`` of text (``.txt``: column ``text``), JSON Lines or Parquet files
    into ``out_dir`` (``output_format`` parquet or json); the number of records. ``spec``
    and ``perturb_options`` are `spec.get_perturbation`'s (level=, phi=, protocol=, options)."""
    columns = _checked(columns, workers, batch_size)
    paths = [str(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
    if output_format not in WRITERS:
        raise ValueError(f"output_format must be parquet or json, got {output_format!r}")
    kinds = {READERS.get(Path(p).suffix.lower()) for p in paths}
    if None in kinds or len(kinds) != 1:
        raise ValueError(f"inputs must all be .txt, .jsonl/.json or .parquet files, got {paths}")
    make = _factory(spec, perturb_options)
    ray = init(address, workers)
    ds = _read(ray, kinds.pop(), paths)
    _check_columns(ds.schema(), columns)
    n = ds.count()
    with warnings.catch_warnings():  # deprecated for Ray 2.64 (pyproject keeps Ray below it)
        warnings.filterwarnings("ignore", ".*zip.*deprecated", category=DeprecationWarning)
        ds = ds.zip(ray.data.range(n).rename_columns({"id": POS}))  # each record's position
    ds = perturb_positioned(ds, make, columns, seed, workers, batch_size).drop_columns([POS])
    getattr(ds, f"write_{output_format}")(str(out_dir))
    return n


class RayPerturbation:
    """What ``zeroe perturb --engine ray`` streams through: ``stream`` as `Perturbation.stream`
    gives it, computed on Ray (the texts are read first, their output then comes in order)."""

    def __init__(self, spec: str | Perturbation, workers: int = 2,
                 address: str | None = None, batch_size: int = BATCH, **perturb_options):
        _checked("text", workers, batch_size)
        self.make = _factory(spec, perturb_options)
        self.workers, self.address, self.batch_size = workers, address, batch_size

    def stream(self, texts: Iterable[str], seed: Seed = None, processes: int = 1) -> Iterator[str]:
        source = Checked(texts)  # the texts up to a failure, raised once their output is out
        texts = list(source)
        if texts:
            import pyarrow as pa

            ray = init(self.address, self.workers)
            size = self.batch_size
            blocks = [pa.table({POS: pa.array(range(a, min(a + size, len(texts))), pa.int64()),
                                "text": pa.array(texts[a:a + size], pa.string())})
                      for a in range(0, len(texts), size)]
            ds = perturb_positioned(ray.data.from_arrow(blocks), self.make, "text", seed,
                                    self.workers, size)
            for batch in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
                yield from batch.column("text").to_pylist()
        if source.error is not None:
            raise source.error


def perturb_positioned(ds, make_attack, columns: str | Sequence[str], seed: Seed, workers: int,
                       batch_size: int = BATCH):
    """Perturb ``columns`` of ``ds`` (positions in ``POS``) with the perturbation ``make_attack()``
    builds on each of ``workers`` actors, ``batch_size`` records a batch; a Ray dataset in the
    order of the positions."""
    import ray.data

    columns = _checked(columns, workers, batch_size)
    _check_columns(ds.schema(), columns)
    # whole blocks in the object store first: the actors then never wait for a read task that
    # has no CPU left (a deadlock on a cluster as small as the actor pool)
    ds = ds.repartition(target_num_rows_per_block=batch_size, strict=True).materialize()
    return ds.map_batches(_Worker, fn_constructor_args=(make_attack, columns, base_seed(seed),
                                                        batch_size),
                          batch_size=None, batch_format="pyarrow", num_cpus=1,
                          compute=ray.data.ActorPoolStrategy(size=workers))


def _checked(columns, workers: int, batch_size: int) -> list[str]:
    """The columns as a list, once the settings are checked."""
    check_int("workers", workers)
    if check_int("batch_size", batch_size, BLOCK) % BLOCK:
        raise ValueError(f"batch_size must be a multiple of {BLOCK}, got {batch_size}")
    columns = [columns] if isinstance(columns, str) else list(columns)
    if not columns:
        raise ValueError("no columns to perturb")
    return columns


def _check_columns(schema, columns: list[str]) -> None:
    import pyarrow as pa

    names = dict(zip(schema.names, schema.types))
    for column in columns:
        if column not in names:
            raise ValueError(f"no column {column!r} (have {', '.join(n for n in names if n != POS)})")
        if not (pa.types.is_string(names[column]) or pa.types.is_large_string(names[column])):
            raise ValueError(f"column {column!r} is {names[column]}, not strings")


class _Worker:
    """One actor: the perturbation built once, then whole blocks perturbed at their positions."""

    def __init__(self, make_attack, columns: list[str], base: int, batch_size: int):
        self.attack, self.columns, self.base = make_attack(), columns, base
        self.batch_size = batch_size

    def __call__(self, batch):
        import pyarrow as pa

        positions = batch.column(POS).to_pylist()
        if not positions:
            return batch
        start = positions[0]
        if start % self.batch_size or positions != list(range(start, start + len(positions))):
            raise RuntimeError(f"a batch of {len(positions)} records from position {start} is not "
                               f"one block of {self.batch_size}: its output would differ")
        values = [batch.column(c).to_pylist() for c in self.columns]
        width = len(self.columns)
        done = perturb_at(self.attack, [v for row in zip(*values) for v in row], self.base,
                          start * width)
        for j, column in enumerate(self.columns):
            index = batch.schema.get_field_index(column)
            batch = batch.set_column(index, batch.schema.field(index),
                                     pa.array(done[j::width], batch.schema.field(index).type))
        return batch


def _factory(spec, options: dict):
    """A picklable zero-argument builder of the perturbation, run once per worker; a spec is
    checked here first so that a bad one fails before Ray starts."""
    if isinstance(spec, Perturbation):
        if options:
            raise ValueError("attack options go with a spec, not a built Perturbation")
        return functools.partial(_same, spec)
    get_perturbation(spec, **options)
    return functools.partial(get_perturbation, spec, **options)


def _same(attack):
    return attack


def _read(ray, kind: str, paths: list[str]):
    if kind == "parquet":
        return ray.data.read_parquet(paths)
    if kind == "json":
        return ray.data.read_json(paths, lines=True)
    return ray.data.read_binary_files(paths, include_paths=True).flat_map(_lines)


def _lines(row: dict) -> list[dict]:
    """A text file's lines as ``zeroe perturb`` reads them."""
    out = []
    for number, raw in enumerate(io.BytesIO(row["bytes"]), 1):
        try:
            out.append({"text": raw.rstrip(b"\r\n").decode("utf-8")})
        except UnicodeDecodeError as e:
            raise ValueError(f"{row['path']}:{number} is not valid UTF-8 (byte {e.start})") \
                from None
    return out
