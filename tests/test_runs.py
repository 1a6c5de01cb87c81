"""Run folders (``zeroe_assets.runs``) on their own, with a toy job: a rerun resumes only its own
run, ``restart`` clears it, a kill's partial line is dropped, records round-trip, and a folder
another process holds is refused (issue 37)."""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

import pytest

from zeroe_assets.runs import (LOCK, RESULTS, RUN, FolderBusy, Record, append_line,
                               complete_lines, dict_of, list_of, locked, open_run, read_lines)

from .conftest import ROOT
from .test_assets_store import dead_pid


@dataclass(frozen=True)
class Toy(Record):
    """Settings of a toy job: what its fingerprint holds decides whether a rerun resumes."""

    seed: int
    note: str | None = None  # not in the fingerprint: a rerun may change it

    def fingerprint(self) -> dict:
        return {"seed": self.seed}


@dataclass(frozen=True)
class Box(Record):
    items: list[Toy] = field(default_factory=list)
    named: dict[str, Toy] | None = None

    _nested = {"items": list_of(Toy), "named": dict_of(Toy)}


def _open(out, settings, restart=False):
    with open_run(out, settings, restart, ("summary.json",), "toy") as results:
        return results


def test_a_run_records_its_settings_and_resumes_with_the_same_fingerprint(tmp_path):
    results = _open(tmp_path, Toy(1))
    assert results == tmp_path / RESULTS
    assert json.loads((tmp_path / RUN).read_text(encoding="utf-8")) == {
        "settings": {"seed": 1}, "fingerprint": {"seed": 1}}
    results.write_text('{"n": 0}\n', encoding="utf-8")
    _open(tmp_path, Toy(1, note="again"))  # what the fingerprint leaves out may change
    assert results.read_text(encoding="utf-8") == '{"n": 0}\n'
    assert json.loads((tmp_path / RUN).read_text(encoding="utf-8"))["settings"]["note"] == "again"


def test_other_settings_are_refused_and_restart_clears_the_run(tmp_path):
    results = _open(tmp_path, Toy(1))
    results.write_text('{"n": 0}\n', encoding="utf-8")
    (tmp_path / "summary.json").write_text("{}", encoding="utf-8")
    (tmp_path / "mine.txt").write_text("kept", encoding="utf-8")
    with pytest.raises(ValueError, match=r"other settings \(seed: 1 then, 2 now\)"):
        _open(tmp_path, Toy(2))
    assert results.exists()  # refused before anything was touched
    _open(tmp_path, Toy(2), restart=True)
    assert not results.exists() and not (tmp_path / "summary.json").exists()
    assert (tmp_path / "mine.txt").read_text(encoding="utf-8") == "kept"  # not the run's
    assert json.loads((tmp_path / RUN).read_text(encoding="utf-8"))["fingerprint"] == {"seed": 2}


def test_a_folder_that_is_no_run_is_refused(tmp_path):
    (tmp_path / RESULTS).write_text("{}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a run of `zeroe toy`"):
        _open(tmp_path, Toy(1))
    (tmp_path / RUN).write_text("{oops", encoding="utf-8")
    with pytest.raises(ValueError, match="is unreadable"):
        _open(tmp_path, Toy(1))


def test_a_partial_last_line_is_cut_off_and_appending_goes_on_after_it(tmp_path):
    path = tmp_path / RESULTS
    assert complete_lines(path) == []  # none yet
    path.write_bytes(b'{"n": 0}\n{"n": 1}\n{"n": 2, "ha')  # killed mid-write
    assert complete_lines(path) == [b'{"n": 0}\n', b'{"n": 1}\n']
    assert path.read_bytes() == b'{"n": 0}\n{"n": 1}\n'
    with open(path, "a", encoding="utf-8") as f:
        append_line(f, '{"n": 2}\n')
    assert read_lines(path, lambda line: line["n"]) == [0, 1, 2]


def test_a_line_that_is_no_result_is_refused_with_its_place(tmp_path):
    path = tmp_path / RESULTS
    path.write_text('{"n": 0}\n{oops\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"results.jsonl:2: not a result line"):
        read_lines(path, lambda line: line["n"])
    path.write_text('{"n": 0}\n{"m": 1}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"results.jsonl:2: not a result line \('n'\)"):
        read_lines(path, lambda line: line["n"])


def test_records_round_trip_and_name_what_is_missing_or_unknown():
    box = Box([Toy(1), Toy(2, "b")], {"x": Toy(3)})
    assert box.to_json() == {"items": [{"seed": 1}, {"seed": 2, "note": "b"}],
                             "named": {"x": {"seed": 3}}}
    assert Box.from_json(json.loads(json.dumps(box.to_json()))) == box
    assert Box().to_json() == {"items": []}  # a None optional is left out
    with pytest.raises(ValueError, match=r"box.items\[1\]: not a Toy record \(missing seed; "
                                         r"unknown sed\)"):
        Box.from_json({"items": [{"seed": 1}, {"sed": 2}]}, "box")
    with pytest.raises(ValueError, match="Box.named: expected an object"):
        Box.from_json({"items": [], "named": []})
    with pytest.raises(ValueError, match="Toy: expected a JSON object, got list"):
        Toy.from_json([1])


@contextlib.contextmanager
def held_by_another_process(folder):
    """A second Python process holding ``folder``'s lock (as `zeroe search` would) until the
    block ends; its pid."""
    code = ("import sys; from pathlib import Path; from zeroe_assets.runs import locked\n"
            f"with locked(Path({str(folder)!r}), 'toy'):\n"
            "    print('held', flush=True); sys.stdin.read()")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "held\n"
        yield proc.pid
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0


def test_a_folder_another_process_writes_is_refused_naming_it(tmp_path):
    with held_by_another_process(tmp_path) as pid:
        with pytest.raises(FolderBusy) as refused:
            _open(tmp_path, Toy(1))
        assert str(refused.value) == (f"{tmp_path} is in use by process {pid} (zeroe toy): wait "
                                      "for it to end, or choose another --out")
        assert not (tmp_path / RUN).exists()  # refused before anything was written
    assert _open(tmp_path, Toy(1)) == tmp_path / RESULTS  # free once the other one ended
    assert not (tmp_path / LOCK).exists()  # released: the lock file goes with the lock


def test_a_file_given_as_the_run_folder_is_refused_naming_it(tmp_path):
    (tmp_path / "f").write_text("keep")
    with pytest.raises(ValueError, match="f is a file, not a folder: choose another --out"):
        _open(tmp_path / "f", Toy(1))
    assert (tmp_path / "f").read_text() == "keep"


def test_the_lock_of_a_dead_process_is_taken_over(tmp_path):
    (tmp_path / LOCK).write_text(f"{dead_pid()} zeroe toy\n")  # what a kill -9 leaves
    with locked(tmp_path, "toy"):
        assert (tmp_path / LOCK).read_text() == f"{os.getpid()} zeroe toy\n"
        with pytest.raises(FolderBusy, match=r"in use by process \d+ \(zeroe toy\)"):
            _open(tmp_path, Toy(1))  # held, by this process's other open: still refused
    assert not (tmp_path / LOCK).exists()
