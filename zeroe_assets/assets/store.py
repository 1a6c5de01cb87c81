"""The artifact format: one owner for writing and reading prebuilt assets.

Layout: ``<root>/manifest.json`` plus one folder per component (``visual``, ``phonetic/seq2seq``
...; a component is replaced as a whole, so pipelines that export separately use separate ones).
The manifest lists, per component, every file with its sha256 and size, and free-form
metadata (dims, config, data fingerprint, quality figures). Writes are atomic: a component
is staged in a temporary folder, swapped in by rename, and only then is the manifest replaced,
so an interrupted export never leaves a half-written asset: one killed between the two keeps the
previous version in ``.<name>.old``, which readers fall back to and the next export puts back
before it starts. No pickle anywhere.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import platform
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping


from .hints import rebuild_hint

FORMAT_VERSION = 1
MANIFEST = "manifest.json"


class ArtifactError(RuntimeError):
    """A missing, corrupt or mismatched artifact; the message says which file and how to rebuild."""


def default_root() -> Path:
    """``$ZEROE_ARTIFACTS`` if set, else the ``artifacts/`` folder of the source checkout."""
    env = os.environ.get("ZEROE_ARTIFACTS")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "artifacts"


def missing(component: str, root: Path) -> str:
    """Why ``component`` is not under ``root`` and what to do: usually the root is not where the
    prebuilt assets are (they live in a checkout's ``artifacts/``, not in the installed package)."""
    if not (root / MANIFEST).exists():
        return (f"no artifacts at {root}: set ZEROE_ARTIFACTS to the artifacts/ folder of a zeroe "
                f"checkout (the prebuilt assets are not part of the Python package), or "
                f"{rebuild_hint(component)}")
    return f"no '{component}' assets in {root / MANIFEST}; {rebuild_hint(component)}"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sha256_path(path: Path) -> str:
    """Of a file's bytes, or of a folder's files (their names and sha256, in name order): a
    dataset saved as a folder is fingerprinted like a file."""
    if not path.is_dir():
        return sha256_file(path)
    h = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        h.update(f"{file.relative_to(path).as_posix()}\0{sha256_file(file)}\n".encode())
    return h.hexdigest()


def npy_bytes(array: np.ndarray) -> bytes:
    """Serialise an array as ``.npy`` without pickle (object arrays are refused)."""
    import numpy as np  # here, not at import: the rule-based perturbers never load an array

    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(array), allow_pickle=False)
    return buf.getvalue()


def json_bytes(obj: Any) -> bytes:
    return (json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def library_versions(*names: str) -> dict[str, str]:
    from importlib import metadata as _metadata  # slow to import (email parsers): on use only

    out = {"python": platform.python_version()}
    for name in ("numpy", "faiss-cpu", *names):
        with contextlib.suppress(_metadata.PackageNotFoundError):
            out[name] = _metadata.version(name)
    return out


# Temporary files and staging folders are named ``.<name>.tmp<pid>.<8 random>`` (``temp_prefix``
# and mkstemp/mkdtemp): the writer's pid in the name tells a leftover of a killed run from the
# file of a writer still at work.
_TEMP = re.compile(r"\..+\.tmp(?P<pid>\d+)\.[a-z0-9_]{8}")


def temp_prefix(name: str) -> str:
    """The ``prefix`` for mkstemp/mkdtemp of a temporary that becomes ``name``."""
    return f".{name}.tmp{os.getpid()}."


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def remove_stale_temporaries(folder: Path) -> list[Path]:
    """Remove the temporaries in ``folder`` that killed writers (``kill -9``, a crash) left: the
    ones named by ``temp_prefix`` whose pid is no running process. Those of a live writer (this
    run, another one) are kept, whatever their age. Returns what was removed."""
    removed = []
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        for path in Path(folder).iterdir():
            match = _TEMP.fullmatch(path.name)
            if match is None or _running(int(match["pid"])):
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename, so that readers see the
    old file or the new one, never half of it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=temp_prefix(path.name))
    except OSError as e:  # named by the file asked for, not by a temporary name
        raise OSError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def check_writable(path: Path) -> Path:
    """``path``, refused (an ``OSError`` naming it) where `atomic_write` could not write it: its
    nearest existing folder takes no new file. For a command that writes its one file at the end
    of a long run: checked before the run, not after it; nothing is left behind."""
    path = Path(path)
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        raise OSError(f"cannot write {path}: {e.strerror or e}") from None
    return path


@contextlib.contextmanager
def _locked(root: Path):
    """Serialise manifest updates between concurrent exports."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def read_manifest(root: Path | None = None) -> dict:
    root = Path(root) if root else default_root()
    path = root / MANIFEST
    if not path.exists():
        return {"format_version": FORMAT_VERSION, "components": {}}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ArtifactError(f"{path} is corrupt ({e}); restore it with `git checkout -- {path}` "
                            "or re-run the exports") from e
    if not isinstance(manifest, dict) or not isinstance(manifest.get("components"), dict):
        raise ArtifactError(f"{path} has no 'components' table; restore it or re-run the exports")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ArtifactError(f"{path} has format version {manifest.get('format_version')!r}, "
                            f"this zeroe reads version {FORMAT_VERSION}; re-run the exports")
    return manifest


def write_component(name: str, files: Mapping[str, bytes], meta: Mapping[str, Any],
                    root: Path | None = None) -> Path:
    """Write ``files`` (relative name -> bytes) as component ``name`` and record it in the manifest.

    The previous version of the component, if any, is replaced as a whole.
    """
    if not all(part.isidentifier() for part in name.split("/")):
        raise ValueError(f"component name must be identifiers joined by '/', got {name!r}")
    for rel in files:
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise ValueError(f"artifact file names must be relative and inside the component: {rel!r}")
    root = Path(root) if root else default_root()
    root.mkdir(parents=True, exist_ok=True)
    flat = name.replace("/", "-")
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(root)  # staging folders and manifests of killed exports
    stage = Path(tempfile.mkdtemp(dir=root, prefix=temp_prefix(flat)))
    stage.chmod(0o755)  # mkdtemp makes it private; artifacts are meant to be shared read-only
    try:
        entries = {}
        for rel, data in sorted(files.items()):
            path = stage / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            entries[rel] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
        with _locked(root):
            manifest = read_manifest(root)
            final, old = root / name, _kept(root, name)
            # nested components (``phonetic/seq2seq`` inside ``phonetic``) move over unchanged
            nested = [c[len(name) + 1:] for c in manifest["components"] if c.startswith(name + "/")]
            entry = manifest["components"].get(name)
            if entry is not None and old.is_dir() and not _mismatch(old, entry["files"], True) \
                    and (not final.exists() or _mismatch(final, entry["files"], True)):
                # an export killed mid-swap: keep what it kept
                _restore(final, old, nested, manifest["components"], name)
            shutil.rmtree(old, ignore_errors=True)
            if final.exists():
                os.replace(final, old)
            os.replace(stage, final)
            try:
                for sub in nested:
                    if (old / sub).exists():
                        (final / sub).parent.mkdir(parents=True, exist_ok=True)
                        os.replace(old / sub, final / sub)
                manifest["components"][name] = {
                    "files": entries,
                    "meta": dict(meta),
                    "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                }
                atomic_write(root / MANIFEST, json_bytes(manifest))
            except BaseException:  # roll back: the previous version stays in place
                _restore(final, old, nested)
                raise
            shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return root / name


def _restore(final: Path, old: Path, nested: list[str], components: Mapping | None = None,
             name: str = "") -> None:
    """Put the previous version (``old``) back in place of ``final``, with the nested components
    wherever the interrupted swap had moved them; where both folders hold one (it was exported
    again after the kill), the copy that matches the manifest (``components``) wins."""
    for sub in nested:
        if not (final / sub).exists():
            continue
        entry = (components or {}).get(f"{name}/{sub}")
        if (old / sub).exists() and entry and not _mismatch(final / sub, entry["files"], True):
            shutil.rmtree(old / sub)
        if not (old / sub).exists():
            (old / sub).parent.mkdir(parents=True, exist_ok=True)
            os.replace(final / sub, old / sub)
    shutil.rmtree(final, ignore_errors=True)
    if old.exists():
        os.replace(old, final)


@dataclass(frozen=True)
class Component:
    """A verified component on disk: its folder, its files and the metadata it was exported with."""

    name: str
    path: Path
    files: Mapping[str, Mapping[str, Any]]
    meta: Mapping[str, Any]

    def file(self, rel: str) -> Path:
        if rel not in self.files:
            raise ArtifactError(f"component {self.name!r} has no file {rel!r} in its manifest; "
                                f"{rebuild_hint(self.name)}")
        return self.path / rel

    def load_npy(self, rel: str, mmap: bool = False) -> np.ndarray:
        import numpy as np

        return np.load(self.file(rel), allow_pickle=False, mmap_mode="r" if mmap else None)

    def load_json(self, rel: str) -> Any:
        return json.loads(self.file(rel).read_text(encoding="utf-8"))


def component_available(name: str, root: Path | None = None) -> bool:
    """Whether the manifest lists ``name``; a manifest that cannot be read is an error, not
    "not built" (that would quietly drop the attackers that need it)."""
    return name in read_manifest(root)["components"]


def load_component(name: str, root: Path | None = None, verify: bool = True) -> Component:
    """Look up ``name`` in the manifest and check every file exists with its recorded checksum."""
    root = Path(root) if root else default_root()
    manifest = read_manifest(root)
    entry = manifest["components"].get(name)
    if entry is None:
        raise ArtifactError(missing(name, root))
    files = entry.get("files") if isinstance(entry, dict) else None
    if not isinstance(files, dict) or not all(
            isinstance(info, dict) and isinstance(info.get("sha256"), str)
            and isinstance(info.get("bytes"), int) for info in files.values()):
        raise ArtifactError(f"{root / MANIFEST}: the entry of '{name}' does not list its files "
                            f"with sha256 and bytes; restore the manifest or {rebuild_hint(name)}")
    primary = root / name
    problem = _mismatch(primary, files, verify)
    if problem:
        # an export killed between swapping its folder in and replacing the manifest leaves the
        # version the manifest describes in ``.<name>.old``: read that one
        for folder in _swapped_out(root, name):
            if folder.is_dir() and not _mismatch(folder, files, verify):
                return Component(name, folder, files, entry.get("meta", {}))
        raise ArtifactError(f"{problem}; {rebuild_hint(name)}")
    return Component(name, primary, files, entry.get("meta", {}))


def _mismatch(folder: Path, files: Mapping[str, Mapping[str, Any]], verify: bool) -> str:
    """Why ``folder`` does not hold ``files`` as the manifest lists them ("" if it does)."""
    for rel, info in files.items():
        path = folder / rel
        if not path.is_file():
            return f"missing artifact file {path}"
        if path.stat().st_size != info["bytes"]:
            return (f"{path} has {path.stat().st_size} bytes, the manifest says {info['bytes']}: "
                    "corrupt or mismatched")
        if verify and sha256_file(path) != info["sha256"]:
            return f"{path} does not match its sha256 in the manifest: corrupt or mismatched"
    return ""


def _swapped_out(root: Path, name: str) -> list[Path]:
    """Where ``write_component`` keeps the previous version of ``name`` while it swaps: its own
    ``.<name>.old``, or inside that of the component it is nested in."""
    parts = name.split("/")
    return [_kept(root, "/".join(parts[:i])) / Path(*parts[i:]) for i in range(len(parts), 0, -1)]


def _kept(root: Path, name: str) -> Path:
    """The folder ``write_component`` moves the previous version of ``name`` to while it swaps."""
    return root / f".{name.replace('/', '-')}.old"
