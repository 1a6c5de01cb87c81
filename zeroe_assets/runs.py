"""Run folders, the floor under the jobs that write one (``zeroe search``, ``zeroe bench
constraints``), and the JSON records their files hold.

A run folder holds ``run.json`` (the settings and a fingerprint of what decides the results) and
``results.jsonl`` (one line per unit of work, appended and fsynced line by line), besides the
job's own outputs. A rerun with the same fingerprint resumes after the last complete line (a
partial last line, left by a kill, is dropped); other settings are refused unless ``restart``.
While a job writes a folder it holds the folder's lock (`locked`), so a second job started on
the same folder is refused instead of interleaving its lines with the first one's.
"""
from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import MISSING, fields
from pathlib import Path
from typing import IO, Any, TypeVar

from .assets import atomic_write, remove_stale_temporaries

RUN, RESULTS = "run.json", "results.jsonl"
LOCK = ".zeroe.lock"  # in a folder a job writes: the pid of the process writing it

T = TypeVar("T")


class FolderBusy(RuntimeError):
    """Another live process holds the folder's lock (the CLI exits 75, "try again later")."""


@contextmanager
def locked(folder: Path, command: str) -> Iterator[None]:
    """Hold ``folder``'s lock while the block runs: an advisory ``flock`` on its ``LOCK`` file,
    which says who holds it (``<pid> zeroe <command>``). A folder another process holds is
    refused (`FolderBusy` naming it and the folder); the lock of a process that died is released
    with it, so a lock file left by a kill is simply taken over."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} is a file, not a folder: choose another --out")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 200).decode("utf-8", "replace").strip()
            os.close(fd)
            pid, _, what = holder.partition(" ")
            who = f"process {pid} ({what})" if pid.isdigit() else "another process"
            raise FolderBusy(f"{folder} is in use by {who}: wait for it to end, or choose "
                             "another --out") from None
        try:
            if os.path.samestat(os.fstat(fd), os.stat(path)):
                break
        except FileNotFoundError:
            pass
        os.close(fd)  # the holder removed the file as we opened it: lock the one there now
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} zeroe {command}\n".encode())
        yield
    finally:
        path.unlink(missing_ok=True)  # still locked: no one can lock the file being removed
        os.close(fd)


@contextmanager
def open_run(out: Path, settings, restart: bool, outputs: tuple[str, ...],
             command: str) -> Iterator[Path]:
    """Check (or, with ``restart``, clear of ``outputs``) a run folder and record the run in
    ``run.json``: a folder holding a run with other settings (``settings.fingerprint()``) is
    refused, so a rerun only ever resumes its own run. ``command`` names the job in errors.
    Used as ``with open_run(...) as results:`` around everything the run writes, which it does
    holding the folder's lock (`locked`); ``results``: its ``results.jsonl``."""
    with locked(out, command):
        yield _check_run(out, settings, restart, outputs, command)


def _check_run(out: Path, settings, restart: bool, outputs: tuple[str, ...],
               command: str) -> Path:
    """`open_run`'s checks and ``run.json``, done holding the lock; the results file."""
    remove_stale_temporaries(out)  # of summary/report writes a kill interrupted
    results, run_file = out / RESULTS, out / RUN
    fingerprint = json.loads(json.dumps(settings.fingerprint()))  # as run.json reads back
    if restart:
        for name in (RESULTS, *outputs):
            (out / name).unlink(missing_ok=True)
    elif run_file.exists():
        try:
            recorded = json.loads(run_file.read_text(encoding="utf-8"))["fingerprint"]
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{run_file} is unreadable ({e}); pass --restart to start over")
        changed = [f"{k}: {recorded.get(k)!r} then, {v!r} now"
                   for k, v in fingerprint.items() if recorded.get(k) != v]
        if changed:
            raise ValueError(f"{out} holds a run with other settings ({'; '.join(changed)}); "
                             "pass --restart to start over there, or choose another --out")
    elif results.exists():
        raise ValueError(f"{results} exists but {run_file} does not: not a run of `zeroe "
                         f"{command}`; pass --restart to overwrite it, or choose another --out")
    atomic_write(run_file, json.dumps({"settings": settings.to_json(),
                                       "fingerprint": fingerprint}, indent=1).encode() + b"\n")
    return results


def complete_lines(path: Path) -> list[bytes]:
    """The complete lines of an appended file (none if it is missing); a partial last line (a
    kill mid-write) is cut off the file, so appending goes on after the last complete one."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    end = data.rfind(b"\n") + 1
    if end < len(data):
        with open(path, "r+b") as f:
            f.truncate(end)
            os.fsync(f.fileno())
    return data[:end].splitlines(keepends=True)


def read_lines(path: Path, read: Callable[[Any], T]) -> list[T]:
    """The complete lines of a results file (`complete_lines`), each JSON value made a record
    by ``read``; a line that is none is refused with its place, so that a damaged or foreign
    file is never resumed."""
    records = []
    for n, raw in enumerate(complete_lines(path), 1):
        try:
            records.append(read(json.loads(raw)))
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{path}:{n}: not a result line ({e}); pass --restart to start "
                             "over") from None
    return records


def append_line(f: IO[str], line: str) -> None:
    """Append one line to a results file and make it durable before the next: a kill loses at
    most the line being written (`complete_lines` drops it)."""
    f.write(line)
    f.flush()
    os.fsync(f.fileno())


class Record:
    """The JSON round trip of the records the toolkit's files hold (dataclasses):
    ``Record.from_json(r.to_json()) == r``; fields in order, ``None`` optionals left out, and
    reading refuses missing or unknown keys with their names."""

    _nested: dict[str, Any] = {}  # field name → how to read its JSON value (`list_of`...)

    def to_json(self) -> dict:
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.default is None:
                continue
            out[f.name] = _to_json(value)
        return out

    @classmethod
    def from_json(cls, data: Any, where: str = ""):
        what = where or cls.__name__
        if not isinstance(data, dict):
            raise ValueError(f"{what}: expected a JSON object, got {type(data).__name__}")
        names = {f.name for f in fields(cls)}
        required = [f.name for f in fields(cls) if f.default is MISSING]
        missing = [n for n in required if n not in data]
        unknown = sorted(set(data) - names)
        if missing or unknown:
            raise ValueError(f"{what}: not a {cls.__name__} record ("
                             + "; ".join(filter(None, [
                                 missing and "missing " + ", ".join(missing),
                                 unknown and "unknown " + ", ".join(unknown)])) + ")")
        return cls(**{k: cls._nested[k](v, f"{what}.{k}") if k in cls._nested and v is not None
                      else v for k, v in data.items()})


def _to_json(value):
    if isinstance(value, Record):
        return value.to_json()
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    return value


def list_of(cls):
    """How a `Record` reads a field that is a list of ``cls`` records."""
    def read(data, where):
        if not isinstance(data, list):
            raise ValueError(f"{where}: expected a list")
        return [cls.from_json(item, f"{where}[{i}]") for i, item in enumerate(data)]
    return read


def dict_of(cls):
    """How a `Record` reads a field that maps names to ``cls`` records."""
    def read(data, where):
        if not isinstance(data, dict):
            raise ValueError(f"{where}: expected an object")
        return {k: cls.from_json(v, f"{where}.{k}") for k, v in data.items()}
    return read
