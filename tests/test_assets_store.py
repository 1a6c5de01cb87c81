import json
import os
import subprocess
import sys

import numpy as np
import pytest

from zeroe_assets.assets import (ArtifactError, component_available, json_bytes, load_component,
                                 npy_bytes, read_manifest, write_component)


def test_write_and_load_round_trip(tmp_path):
    vectors = np.arange(12, dtype=np.float32).reshape(3, 4)
    write_component("visual", {"vectors.npy": npy_bytes(vectors), "keys.json": json_bytes([1, 2])},
                    {"dims": 4}, root=tmp_path)
    comp = load_component("visual", root=tmp_path)
    assert np.array_equal(comp.load_npy("vectors.npy"), vectors)
    assert comp.load_json("keys.json") == [1, 2] and comp.meta == {"dims": 4}
    manifest = read_manifest(tmp_path)
    assert set(manifest["components"]["visual"]["files"]) == {"vectors.npy", "keys.json"}


def test_nested_components_are_independent(tmp_path):
    write_component("phonetic/seq2seq", {"a.json": b"{}"}, {}, root=tmp_path)
    write_component("phonetic", {"b.json": b"[]"}, {}, root=tmp_path)
    assert load_component("phonetic/seq2seq", root=tmp_path).file("a.json").exists()


def test_corrupt_file_is_detected(tmp_path):
    write_component("visual", {"x.npy": npy_bytes(np.zeros(3))}, {}, root=tmp_path)
    path = tmp_path / "visual" / "x.npy"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ArtifactError, match="sha256.*train.vaegan"):
        load_component("visual", root=tmp_path)
    path.unlink()
    with pytest.raises(ArtifactError, match="missing artifact file"):
        load_component("visual", root=tmp_path)


def test_corrupt_or_missing_manifest(tmp_path):
    with pytest.raises(ArtifactError, match="no artifacts at .*set ZEROE_ARTIFACTS"):
        load_component("visual", root=tmp_path)
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(ArtifactError, match="corrupt"):
        load_component("visual", root=tmp_path)
    with pytest.raises(ArtifactError, match="corrupt"):  # not "not built": that hides attackers
        component_available("visual", root=tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"format_version": 99, "components": {}}))
    with pytest.raises(ArtifactError, match="format version"):
        load_component("visual", root=tmp_path)
    (tmp_path / "manifest.json").unlink()
    write_component("visual", {"x.json": b"[1]"}, {}, root=tmp_path)
    manifest = read_manifest(tmp_path)
    del manifest["components"]["visual"]["files"]["x.json"]["bytes"]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ArtifactError, match="sha256 and bytes"):
        load_component("visual", root=tmp_path)


def test_export_killed_mid_swap_keeps_previous_version(tmp_path):
    write_component("visual", {"x.json": b"[1]"}, {"v": 1}, root=tmp_path)
    write_component("visual/sub", {"s.json": b"[0]"}, {}, root=tmp_path)
    # what a kill between the folder swap and the manifest replace leaves: the new files in
    # place, the old ones (with the nested component) in .visual.old, the old manifest
    os.replace(tmp_path / "visual", tmp_path / ".visual.old")
    (tmp_path / "visual").mkdir()
    (tmp_path / "visual" / "x.json").write_bytes(b"[22]")
    assert load_component("visual", root=tmp_path).load_json("x.json") == [1]
    assert load_component("visual/sub", root=tmp_path).load_json("s.json") == [0]
    write_component("visual/sub", {"s.json": b"[5]"}, {}, root=tmp_path)  # exported again meanwhile
    # the next export puts the kept version back first, with the nested component's newest copy
    write_component("visual", {"x.json": b"[3]"}, {"v": 3}, root=tmp_path)
    assert load_component("visual", root=tmp_path).load_json("x.json") == [3]
    assert load_component("visual/sub", root=tmp_path).load_json("s.json") == [5]
    assert not (tmp_path / ".visual.old").exists()


def test_failed_write_keeps_previous_version(tmp_path, monkeypatch):
    write_component("visual", {"x.json": b"[1]"}, {"v": 1}, root=tmp_path)
    write_component("visual/sub", {"s.json": b"[0]"}, {}, root=tmp_path)
    real_replace = os.replace

    def failing_replace(src, dst):
        if str(dst).endswith("manifest.json"):
            raise OSError("disk full")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        write_component("other", {"y.json": b"[2]"}, {}, root=tmp_path)
    with pytest.raises(OSError):
        write_component("visual", {"x.json": b"[3]"}, {"v": 2}, root=tmp_path)
    monkeypatch.undo()
    assert load_component("visual", root=tmp_path).meta == {"v": 1}
    assert load_component("visual/sub", root=tmp_path).load_json("s.json") == [0]
    assert "other" not in read_manifest(tmp_path)["components"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".other")]


def test_no_pickle_and_bad_names(tmp_path):
    with pytest.raises(ValueError):
        npy_bytes(np.array([object()], dtype=object))
    with pytest.raises(ValueError, match="identifiers"):
        write_component("../evil", {}, {}, root=tmp_path)
    with pytest.raises(ValueError, match="inside the component"):
        write_component("ok", {"../x": b""}, {}, root=tmp_path)


def test_runtime_import_does_not_pull_torch():
    code = ("import sys, zeroe_assets, zeroe_assets.cli;"
            "bad = [m for m in ('torch', 'pytorch_lightning', 'lightning', 'hydra') if m in sys.modules];"
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_atomic_write_replaces_whole_files_and_leaves_no_temporaries(tmp_path):
    from zeroe_assets.assets import atomic_write

    path = tmp_path / "new" / "dir" / "file.bin"
    atomic_write(path, b"first")
    atomic_write(path, b"second")
    assert path.read_bytes() == b"second" and os.listdir(path.parent) == ["file.bin"]
    assert path.stat().st_mode & 0o777 == 0o644


def test_rebuild_hints_come_from_one_table():
    from zeroe_assets.assets import rebuild_hint
    from zeroe_assets.assets.hints import REBUILD

    assert "train.vaegan" in rebuild_hint("visual")
    assert rebuild_hint("phonetic/seq2seq") == REBUILD["phonetic/seq2seq"] != REBUILD["phonetic"]
    assert rebuild_hint("phonetic/other") == REBUILD["phonetic"]  # the enclosing component's
    assert "python -m train.victim" in rebuild_hint("victim/pos-bilstm")
    assert rebuild_hint("nothing") == "re-run the export that produced it"


def test_cached_component_builds_once_per_export(tmp_path):
    from zeroe_assets.assets import cached_component

    builds = []

    def build(root):
        builds.append(root)
        return object()

    write_component("space", {"a.json": b"[1]"}, {}, root=tmp_path)
    first = cached_component("space", tmp_path, build)
    assert cached_component("space", str(tmp_path), build) is first and len(builds) == 1
    write_component("space", {"a.json": b"[2]"}, {}, root=tmp_path)  # a new export
    assert cached_component("space", tmp_path, build) is not first and len(builds) == 2
    with pytest.raises(ArtifactError, match="no 'other' assets"):
        cached_component("other", tmp_path, build)


def dead_pid() -> int:
    """The pid of a process that has ended (reaped, so no process has it unless reused)."""
    proc = subprocess.Popen([sys.executable, "-c", ""])
    proc.wait()
    return proc.pid


def test_next_export_removes_a_killed_exports_leftovers_but_not_a_live_writers(tmp_path):
    """issue 21, leftovers: a kill -9 leaves staging folders and manifest temporaries."""
    from zeroe_assets.assets import temp_prefix

    write_component("visual", {"x.json": b"[1]"}, {}, root=tmp_path)
    dead, live = dead_pid(), temp_prefix("visual")  # this process: a writer at work
    stage = tmp_path / f".visual.tmp{dead}.abcd_123"
    (stage / "sub").mkdir(parents=True)
    (stage / "sub" / "big.npy").write_bytes(b"0" * 1000)
    manifest_tmp = tmp_path / f".manifest.json.tmp{dead}.zz9_q0ab"
    manifest_tmp.write_bytes(b"{")
    busy = tmp_path / f"{live}xyz_0123"
    busy.mkdir()
    write_component("visual", {"x.json": b"[2]"}, {}, root=tmp_path)
    assert not stage.exists() and not manifest_tmp.exists()
    assert busy.exists()
    assert load_component("visual", root=tmp_path).load_json("x.json") == [2]
    assert (tmp_path / ".lock").exists()  # not a temporary
