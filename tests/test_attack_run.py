"""The runner behind ``zeroe attack`` (``zeroe_assets.search.run``) from Python: the victim's
timing, reading back and checking a run's folder, and NLI pairs through a whole run."""
from __future__ import annotations

import pytest

from zeroe_assets.runs import RESULTS
from zeroe_assets.search.run import RunSettings, load_results, run, segments
from zeroe_assets.victims.wrapper import TimedVictim

from .attack_fixtures import needs_olid, olid  # noqa: F401  (olid: a fixture)
from .conftest import DATA, needs_data

SNLI = DATA / "bench" / "snli" / "snli_dev.tsv"


class WithScores:
    """A trained tc victim that also gives class probabilities, as ``scores`` victims do."""

    def __init__(self, victim):
        self.victim, self.labels, self.task = victim, (0, 1), victim.task

    def predict(self, batch):
        return self.victim.predict(batch)

    def scores(self, batch):
        return [[1 - p, p] for p in self.victim.predict(batch)]


@needs_olid
def test_timed_victim_times_and_forwards(olid):
    import joblib

    data, model = olid
    victim = joblib.load(model)
    timed = TimedVictim(victim)
    texts = data.read_text(encoding="utf-8").splitlines()[1:6]
    assert timed.predict(texts) == victim.predict(texts) and timed.seconds > 0
    assert timed.task == "tc" and not hasattr(timed, "scores")  # only what the victim has
    scored = TimedVictim(WithScores(victim))
    assert scored.scores(texts) == WithScores(victim).scores(texts)
    assert scored.seconds > 0 and scored.labels == (0, 1)


CHEAP = {"transformations": ["intrude", "keyboard-typo", "disemvowel", "truncate"]}


def _settings(data, model, **kw) -> RunSettings:
    return RunSettings(task="tc", victim="tc-tfidf", data=str(data), recipe="textfooler-zeroe",
                       victim_path=str(model), options=CHEAP, **kw)


@needs_olid
def test_a_damaged_results_file_is_refused(olid, tmp_path):
    settings = _settings(*olid, limit=4)
    run(settings, tmp_path, progress=False)
    lines = (tmp_path / RESULTS).read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / RESULTS).write_text(lines[0] + "{oops\n" + "".join(lines[2:]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"results.jsonl:2: not a result"):
        run(settings, tmp_path, progress=False)
    (tmp_path / RESULTS).write_text(lines[1] + lines[0], encoding="utf-8")
    with pytest.raises(ValueError, match="result of example 1, expected 0"):
        run(settings, tmp_path, progress=False)
    (tmp_path / "run.json").unlink()
    with pytest.raises(ValueError, match="not a run of `zeroe search`"):
        run(settings, tmp_path, progress=False)
    summary = run(settings, tmp_path, restart=True, progress=False)
    assert summary["examples"] == 4 and len(load_results(tmp_path / RESULTS)) == 4


def test_nli_fields_choose_the_attacked_part():
    from zeroe_assets.tasks import get_task

    nli = get_task("nli")
    assert segments(nli, None) is None  # the recipe's default: the hypothesis
    assert segments(nli, ["sentence1"]) == [0] and segments(nli, ["hypothesis"]) == [1]
    assert segments(nli, ["sentence1", "sentence2"]) == [0, 1] == segments(nli, ["a", "b"])
    assert segments(get_task("tc"), ["tweet"]) is None


@needs_data("bench/snli/snli_dev.tsv")
def test_nli_pairs_through_a_run(tmp_path):
    from zeroe_assets.victims.sklearn import save_victim, train_victim
    from zeroe_assets.tasks import get_task

    task = get_task("nli")
    ex = task.examples(SNLI, task.format_for(SNLI))
    save_victim(train_victim("nli-tfidf", ex.inputs[:300], ex.gold[:300], task="nli"),
                tmp_path / "nli.joblib")
    lines = SNLI.read_text(encoding="utf-8").splitlines(keepends=True)
    data = tmp_path / "test.tsv"
    data.write_text(lines[0] + "".join(lines[401:411]), encoding="utf-8")  # unseen pairs
    settings = RunSettings(task="nli", victim="nli-tfidf", data=str(data),
                           recipe="textfooler-zeroe", victim_path=str(tmp_path / "nli.joblib"),
                           options=CHEAP)
    summary = run(settings, tmp_path / "run", progress=False)
    results = load_results(tmp_path / "run" / RESULTS)
    assert summary["examples"] == len(results) == 10
    assert all(r.adversarial[0] == r.original[0] for r in results)  # the premise stays
    won = [r for r in results if r.status == "successful"]
    report = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    assert won and all(f"- adversarial: {r.adversarial[0]} || {r.adversarial[1]}" in report
                       for r in won[:5])
    targeted = RunSettings(**{**settings.to_json(), "options": {**CHEAP, "target": "maybe"}})
    with pytest.raises(ValueError, match="target label 'maybe' is not a label of .*"
                                         "contradiction, entailment, neutral"):
        run(targeted, tmp_path / "targeted", progress=False)
