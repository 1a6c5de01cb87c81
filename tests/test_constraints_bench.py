"""``zeroe bench constraints`` end to end on OLID tweets against a trained tc-tfidf victim (the
UTS #39 skeleton: the cheapest score): the files, resuming with identical output, and exit 2
for each kind of bad input, with nothing written."""
from __future__ import annotations

import json

import pytest

from zeroe_assets.bench.accs import accs
from zeroe_assets.cli import main
from zeroe_assets.visual.confusables import reads_as

from .attack_fixtures import needs_olid, olid  # noqa: F401  (olid: a fixture)

pytestmark = needs_olid
EXAMPLES, GRID = 3, "0,0.5,1"
OUTPUTS = ("run.json", "results.jsonl", "accs.json", "accs.md", "second_order.jsonl",
           "curves-sight.png")


def bench(capsys, olid, out, *extra, constraint="uts39-skeleton", thresholds=GRID,
          victim="tc-tfidf"):
    data, model = olid
    code = main(["bench", "constraints", "--task", "tc", "--victim", victim, "--victim-path",
                 str(model), "--input", str(data), "--constraint", constraint, "--thresholds",
                 thresholds, "--examples", str(EXAMPLES), "--out", str(out), "-q", *extra])
    return (code, *capsys.readouterr())


@pytest.fixture(scope="module")
def reference(olid, tmp_path_factory):
    out = tmp_path_factory.mktemp("constraints")
    data, model = olid
    assert main(["bench", "constraints", "--task", "tc", "--victim", "tc-tfidf",
                 "--victim-path", str(model), "--input", str(data), "--constraint",
                 "uts39-skeleton", "--thresholds", GRID, "--examples", str(EXAMPLES),
                 "--out", str(out), "-q"]) == 0
    return out


def test_outputs_agree(reference):
    lines = [json.loads(x) for x in (reference / "results.jsonl").read_text().splitlines()]
    assert [(ln["threshold"], ln["index"]) for ln in lines] == \
        [(t, i) for t in (0.0, 0.5, 1.0) for i in range(EXAMPLES)]
    row = json.loads((reference / "accs.json").read_text())["constraints"]["uts39-skeleton"]
    xy = [(p["second_order"], p["first_order"]) for p in row["points"]]
    assert row["accs"] == accs(xy) and row["kind"] == "sight"
    # at ε = 0 everything is accepted; a skeleton that must match lets no letter change pass
    at = {p["threshold"]: p for p in row["points"]}
    assert at[0.0]["second_order"] > 0 and at[0.5]["second_order"] == 0
    found = [json.loads(x) for x in (reference / "second_order.jsonl").read_text().splitlines()]
    assert found and all(f["found"] and f["threshold"] == 0.0 for f in found)
    for f in found:
        assert len(f["changes"]) == 3
        for c in f["changes"]:
            letter = c["original"][c["at"]].lower()
            assert letter not in reads_as(c["character"]) and c["new"] in f["adversarial"]
    assert "| uts39-skeleton | sight |" in (reference / "accs.md").read_text()
    assert (reference / "curves-sight.png").read_bytes()[:4] == b"\x89PNG"


def test_an_interrupted_run_resumes_with_identical_files(reference, olid, tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    full = (reference / "results.jsonl").read_bytes().splitlines(keepends=True)
    (out / "run.json").write_bytes((reference / "run.json").read_bytes())
    (out / "results.jsonl").write_bytes(b"".join(full[:4]) + full[4][:20])  # killed mid-line
    code, _, err = bench(capsys, olid, out)
    assert code == 0, err
    for name in OUTPUTS:
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name
    code, _, err = bench(capsys, olid, out, "--seed", "3")
    assert code == 2 and "other settings (seed: 0 then, 3 now)" in err


def broken_victim(path):
    """A tc victim that answers labels where the attack needs probabilities."""
    class Labels:
        task = "tc"

        def predict(self, batch):
            return ["OFF"] * len(batch)
    return Labels()


@pytest.mark.parametrize("extra, message", [
    (dict(constraint="soundex"), "unknown constraint 'soundex'; choose from"),
    (dict(thresholds=","), "the threshold grid is empty"),
    (dict(thresholds="0,1.5"), "uts39-skeleton scores are in [0.0, 1.0]; the thresholds [1.5]"),
    (dict(thresholds="high"), "--thresholds takes numbers"),
    (dict(victim="tests.test_constraints_bench:broken_victim"), "non-numeric scores for tc"),
])
def test_bad_input_exits_2_and_writes_nothing(extra, message, olid, tmp_path, capsys):
    out = tmp_path / "run"
    code, _, err = bench(capsys, olid, out, **extra)
    assert code == 2 and message in err and "Traceback" not in err
    assert not out.exists()


def test_a_victim_that_raises_exits_3_naming_it_lines_intact(reference, olid, tmp_path, capsys):
    """issue 37: one line naming the victim, exit 3, the lines before it kept."""
    victim = "tests.attack_fixtures:raising_victim"
    code, _, err = bench(capsys, olid, tmp_path, victim=victim)
    assert code == 3 and "Traceback" not in err
    assert err.splitlines()[-1].startswith(f"zeroe bench constraints: error: victim {victim} "
                                           "failed on a batch of ")
    written = (tmp_path / "results.jsonl").read_bytes()
    assert written.endswith(b"\n")
    assert (reference / "results.jsonl").read_bytes().startswith(written)
