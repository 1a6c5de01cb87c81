"""A per-user cache of what a slow reader makes of a file: codespell's 65k-line table was a
third of natural-typo's start-up to read (about 50 ms), and loads from here in about 7.

The compiled form is ``marshal`` data (strings, tuples, dicts: no pickle, no code) behind a
CRC-32 of it, keyed by the file (path, size, modification time), the reader (its module and
name, and that module's file's size and modification time) and Python's version: any change
reads the file again, and a cache file whose header, checksum or key does not match is read
past and rebuilt, never trusted. Writing is best effort (a read-only home costs the read only).
Where: ``$ZEROE_CACHE_DIR`` (empty: no cache), else ``$XDG_CACHE_HOME/zeroe``, else
``~/.cache/zeroe``. CRC-32, not sha256: ``zlib`` is cheap to import (the command line has it
already), ``hashlib`` (OpenSSL) took 7 ms, and the check guards against damage, not against
someone who can write to the user's own cache.
"""
from __future__ import annotations

import marshal
import os
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

HEADER = b"zeroe compiled 1\n"  # this module's format; a change of it reads every file again


def cache_dir() -> Path | None:
    """The folder of compiled files, None where ``ZEROE_CACHE_DIR`` is set empty (no cache)."""
    where = os.environ.get("ZEROE_CACHE_DIR")
    if where is not None:
        return Path(where) if where else None
    try:
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "zeroe"
    except RuntimeError:  # no home folder to be found
        return None


def compiled(read: Callable[[Path], object], path: Path):
    """``read(path)``, from the cache where it holds this file's result by this reader (kept
    there after a read). ``read`` must give the same value for the same file, made of what
    ``marshal`` writes; its errors (a missing file …) are its own."""
    folder = cache_dir()
    try:
        key = _key(read, path)
    except (OSError, TypeError):  # a missing file (the reader says so), a reader without one
        return read(path)
    if folder is None:
        return read(path)
    where = folder / f"{zlib.crc32(repr(key[:5]).encode()):08x}.marshal"  # one per file, reader
    found = _load(where, key)
    if found is not None:
        return found[0]
    value = read(path)
    _store(where, key, value)
    return value


def _key(read: Callable, path: Path) -> tuple:
    """What a compiled file must have been made from: the file as it is now and the reader's
    code as it is now (an edit or reinstall of either changes a size or a modification time)."""
    source = os.stat(path)
    module = getattr(sys.modules.get(read.__module__), "__file__", None)
    code = os.stat(module)
    return (read.__module__, read.__qualname__, os.path.realpath(path), module, sys.version,
            source.st_size, source.st_mtime_ns, code.st_size, code.st_mtime_ns)


def _load(where: Path, key: tuple) -> tuple | None:
    """``(value,)`` from the file ``where`` if it is whole and of ``key``, else None."""
    try:
        blob = where.read_bytes()
    except OSError:
        return None
    head, stored, payload = blob[:len(HEADER)], blob[len(HEADER):len(HEADER) + 4], \
        blob[len(HEADER) + 4:]
    if head != HEADER or stored != zlib.crc32(payload).to_bytes(4, "big"):
        return None
    try:
        found_key, value = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    return (value,) if found_key == key else None


def _store(where: Path, key: tuple, value) -> None:
    """Write ``(key, value)`` to ``where`` through a temporary file and a rename (readers see
    the old file or the new one); any failure leaves no cache, and no error."""
    import tempfile  # only when a file is compiled

    try:
        payload = marshal.dumps((key, value))
        where.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where.parent, prefix=f".{where.name}.")
    except (OSError, ValueError):
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(HEADER + zlib.crc32(payload).to_bytes(4, "big") + payload)
        os.replace(tmp, where)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
