"""The Ray engines on a local two-CPU Ray instance: perturbations identical to the single-process
CLI for any number of workers and blocks (text, JSON Lines and Parquet in; Parquet and JSON Lines
out), and ``zeroe search --engine ray`` writing the files of ``-j 1``, resumed or not."""
import io
import json
import sys

import pytest

pytest.importorskip("ray.data", reason="needs Ray Data: pip install 'zeroe[scale]'")
pa = pytest.importorskip("pyarrow")
import pyarrow.parquet as pq  # noqa: E402

from zeroe_assets.cli import main  # noqa: E402
from zeroe_assets.integrations import ray_data  # noqa: E402

WORDS = "the quick brown fox jumps over a lazy dog while seven wizards quietly box".split()
SIZE = 128  # records per batch: N is six blocks of positions
N = 5 * SIZE + 70


def _line(i):
    return " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(2 + i % 5))


@pytest.fixture(scope="module")
def ray():
    try:
        ray = ray_data.init(workers=2)
    except Exception as e:  # a sandbox without the sockets or shared memory Ray needs
        pytest.skip(f"a local Ray instance could not start here: {e}")
    yield ray
    ray.shutdown()


def _cli(args, stdin, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    assert main(["perturb", *args]) == 0
    return capsys.readouterr().out


def test_cli_engine_ray_is_byte_identical(ray, monkeypatch, capsys):
    data = ("".join(_line(i) + ("\r\n" if i % 9 == 0 else "\n") for i in range(300)) +
            "\n\u2028 a\x0cb  last line without an ending").encode()
    args = ["-p", "keyboard-typo|inner-shuffle", "-l", "high", "--seed", "4"]
    local = _cli(args, data, monkeypatch, capsys)
    assert _cli([*args, "--engine", "ray", "--workers", "1"], data, monkeypatch, capsys) == local
    assert local != data.decode()


def _folder_rows(folder, fmt):
    files = sorted(folder.glob(f"*.{fmt}"))
    assert files
    if fmt == "parquet":
        return [r for f in files for r in pq.read_table(f).to_pylist()]
    return [json.loads(line) for f in files for line in f.read_text().splitlines()]


def test_text_files_to_parquet_equal_the_cli(ray, tmp_path, monkeypatch, capsys):
    lines = [_line(i) for i in range(N)]
    halves = [tmp_path / "b.txt", tmp_path / "a.txt"]  # read in the order given
    halves[0].write_text("\n".join(lines[:200]) + "\n")
    halves[1].write_text("\n".join(lines[200:]) + "\n")
    expected = _cli(["-p", "keyboard-typo", "--seed", "9"], "\n".join(lines).encode() + b"\n",
                    monkeypatch, capsys).splitlines()
    out = tmp_path / "out"
    assert ray_data.perturb_files(halves, out, "keyboard-typo", seed=9, workers=2,
                                  batch_size=SIZE) == N
    assert [r["text"] for r in _folder_rows(out, "parquet")] == expected


def test_parquet_to_jsonl_keeps_the_other_columns(ray, tmp_path, monkeypatch, capsys):
    rows = [{"premise": _line(i), "id": i, "hypothesis": _line(i + 3)} for i in range(500)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "in.parquet", row_group_size=70)
    out = tmp_path / "out"
    ray_data.perturb_files(tmp_path / "in.parquet", out, "intrude", columns=["premise",
                           "hypothesis"], seed=1, level="high", batch_size=SIZE,
                           output_format="json")
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    expected = [json.loads(x) for x in _cli(
        ["-p", "intrude", "-l", "high", "--seed", "1", "--jsonl", "--fields",
         "premise,hypothesis"], data, monkeypatch, capsys).splitlines()]
    assert _folder_rows(out, "json") == expected


def test_bad_input_is_a_value_error(ray, tmp_path):
    pq.write_table(pa.table({"n": [1, 2]}), tmp_path / "in.parquet")
    with pytest.raises(ValueError, match="not strings"):
        ray_data.perturb_files(tmp_path / "in.parquet", tmp_path / "o", "truncate", columns="n")
    with pytest.raises(ValueError, match=".txt, .jsonl"):
        ray_data.perturb_files(tmp_path / "in.csv", tmp_path / "o", "truncate")
    with pytest.raises(ValueError, match="no-such"):
        ray_data.RayPerturbation("no-such-attacker")
    with pytest.raises(ValueError, match="multiple of 64"):
        ray_data.perturb_files(tmp_path / "in.parquet", tmp_path / "o", "truncate",
                               batch_size=100)
    with pytest.raises(ValueError, match="no columns"):
        ray_data.perturb_files(tmp_path / "in.parquet", tmp_path / "o", "truncate", columns=[])


BAD, GOOD = ["idiot", "stupid", "loser", "trash"], ["lovely", "great", "kind", "sunny"]


def _tweets(n, seed):
    """OLID-style rows (id, tweet, subtask_a): offensive tweets have one offensive word."""
    import random

    rng = random.Random(seed)
    rows = []
    for i in range(n):
        words = [rng.choice(GOOD), rng.choice(GOOD)]
        bad = rng.random() < 0.5
        if bad:
            words[rng.randrange(2)] = rng.choice(BAD)
        rows.append((str(i), f"@USER the {WORDS[i % len(WORDS)]} is {words[0]} and {words[1]} "
                             "URL", "OFF" if bad else "NOT"))
    return rows


@pytest.fixture(scope="module")
def search_files(tmp_path_factory):
    """(data file of 8 tweets, a tc-tfidf victim trained on 200 others)."""
    from zeroe_assets.victims.sklearn import save_victim, train_victim

    work = tmp_path_factory.mktemp("search")
    rows = _tweets(200, 0)
    save_victim(train_victim("tc-tfidf", [r[1] for r in rows],
                             [int(r[2] == "OFF") for r in rows]), work / "tc.joblib")
    data = work / "test.tsv"
    data.write_text("id\ttweet\tsubtask_a\n" + "".join("\t".join(r) + "\n"
                                                      for r in _tweets(8, 1)))
    return data, work / "tc.joblib"


def _search(files, out, *extra, victim="tc-tfidf"):
    data, model = files
    return main(["search", "--task", "tc", "--victim", victim, "--victim-path", str(model),
                 "--input", str(data), "--recipe", "textfooler-zeroe", "--perturbers",
                 "keyboard-typo,truncate,intrude", "--out", str(out), "-q", *extra])


def test_search_engine_ray_writes_the_files_of_one_process(ray, search_files, tmp_path):
    assert _search(search_files, tmp_path / "local") == 0
    ray_run = ("--engine", "ray", "--workers", "2")
    assert _search(search_files, tmp_path / "ray", *ray_run, "--limit", "3") == 0
    assert _search(search_files, tmp_path / "ray", *ray_run) == 0  # resumes after the 3
    # four examples at a time in each actor, their queries gathered into one victim call
    assert _search(search_files, tmp_path / "gathered", *ray_run, "--examples-per-worker",
                   "4") == 0
    for name in ("results.jsonl", "report.md", "report.html"):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
        assert (tmp_path / "gathered" / name).read_bytes() == \
            (tmp_path / "local" / name).read_bytes()
    assert b'"status": "successful"' in (tmp_path / "local" / "results.jsonl").read_bytes()


def test_search_engine_ray_failures_are_one_line(ray, search_files, tmp_path, capsys):
    code = _search(search_files, tmp_path / "run", "--engine", "ray",
                   victim="tests.attack_fixtures:raising_victim")
    err = capsys.readouterr().err
    assert code == 3 and "CUDA out of memory" in err and "Traceback" not in err
    with pytest.raises(ValueError, match="no Ray cluster answers at 127.0.0.1:1"):
        ray_data.reachable("127.0.0.1:1")


def test_search_refuses_a_silent_ray_address_before_it_writes(search_files, tmp_path, capsys):
    assert _search(search_files, tmp_path / "run", "--engine", "ray", "--ray-address",
                   "127.0.0.1:1") == 2
    assert "no Ray cluster answers at 127.0.0.1:1" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
