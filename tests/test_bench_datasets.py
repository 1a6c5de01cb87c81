"""`zeroe bench generate --input hf:PATH`: Hugging Face datasets (save_to_disk folders, Parquet)
attacked as their TSV twin is, written back with their features, and evaluated."""
import pytest

datasets = pytest.importorskip("datasets", reason="needs the datasets library: "
                                                  "pip install 'zeroe[hf]'")
import pyarrow.parquet as pq  # noqa: E402

from zeroe_assets.bench import generate as gen  # noqa: E402
from zeroe_assets.bench.evaluate import evaluate  # noqa: E402
from zeroe_assets.cli import main  # noqa: E402
from zeroe_assets.tasks import get_task  # noqa: E402
from zeroe_assets.victims.sklearn import train_victim  # noqa: E402

LABELS = ["entailment", "neutral", "contradiction"]
WORDS = "a man dog woman plays runs sleeps music snow guitar stage quickly outside".split()


def _rows(n=60):
    return [{"gold_label": LABELS[i % 3] if i % 10 else "-",
             "sentence1": " ".join(WORDS[(i + k) % len(WORDS)] for k in range(5 + i % 4)),
             "sentence2": " ".join(WORDS[(2 * i + k) % len(WORDS)] for k in range(3 + i % 3)),
             "pair_id": i} for i in range(n)]


@pytest.fixture
def inputs(tmp_path):
    rows = _rows()
    tsv = tmp_path / "test.tsv"
    tsv.write_text("gold_label\tsentence1\tsentence2\tpair_id\n" + "".join(
        f"{r['gold_label']}\t{r['sentence1']}\t{r['sentence2']}\t{r['pair_id']}\n" for r in rows))
    features = datasets.Features({"gold_label": datasets.ClassLabel(names=LABELS),
                                  "sentence1": datasets.Value("string"),
                                  "sentence2": datasets.Value("string"),
                                  "pair_id": datasets.Value("int32")})
    labelled = [{**r, "gold_label": LABELS.index(r["gold_label"]) if r["gold_label"] in LABELS
                 else -1} for r in rows]
    datasets.DatasetDict({"test": datasets.Dataset.from_list(labelled, features=features)}) \
        .save_to_disk(str(tmp_path / "hf"))
    (tmp_path / "pq").mkdir()
    datasets.Dataset.from_list(rows).to_parquet(str(tmp_path / "pq" / "test.parquet"))
    return tmp_path, rows, features


def _generate(tmp_path, source, out):
    assert main(["bench", "generate", "--task", "nli", "--input", source, "--perturbers",
                 "truncate,intrude", "--levels", "high", "--out", str(tmp_path / out)]) == 0


def test_datasets_are_attacked_as_their_tsv_twin(inputs):
    tmp_path, rows, features = inputs
    _generate(tmp_path, f"test={tmp_path / 'test.tsv'}", "tsv")
    _generate(tmp_path, f"hf:{tmp_path / 'hf'}", "hf")
    _generate(tmp_path, f"hf:{tmp_path / 'pq' / 'test.parquet'}", "pq")
    for attacker in ("truncate", "intrude"):
        tsv = tmp_path / "tsv" / f"test_{attacker}_high.tsv"
        lines = [line.split("\t") for line in tsv.read_text().splitlines()[1:]]
        saved = datasets.load_from_disk(str(tmp_path / "hf" / f"test_{attacker}_high"))
        assert saved.features == features and saved["pair_id"] == [r["pair_id"] for r in rows]
        assert [[s["sentence1"], s["sentence2"]] for s in saved] == [x[1:3] for x in lines]
        table = pq.read_table(tmp_path / "pq" / f"test_{attacker}_high.parquet")
        assert table.schema == pq.read_schema(tmp_path / "pq" / "test.parquet")
        assert [[r["sentence1"], r["sentence2"], r["gold_label"]] for r in table.to_pylist()] == \
            [x[1:3] + x[:1] for x in lines]
        assert sum(s["sentence1"] != r["sentence1"] for s, r in zip(saved, rows)) > 40


def test_dataset_sets_resume_and_evaluate(inputs):
    tmp_path, rows, _ = inputs
    source = gen.parse_inputs([f"hf:{tmp_path / 'hf'}"])
    assert source == {"test": tmp_path / "hf" / "test"}
    jobs = gen.plan("nli", source, ["truncate"], ["high"], tmp_path / "out", 0)
    assert [o.skipped for o in gen.run(jobs, progress=None)] == [False]
    assert [o.skipped for o in gen.run(jobs, progress=None)] == [True]  # complete: kept
    task = get_task("nli")
    ex = task.examples(tmp_path / "test.tsv", task.format_for(tmp_path / "test.tsv"))
    victim = train_victim("nli-tfidf", ex.inputs, ex.gold)
    results = evaluate("nli", victim, tmp_path / "out", victim_name="nli-tfidf", progress=None)
    assert results.examples == len(ex.gold) == sum(r["gold_label"] != "-" for r in rows)
    assert [(s.attacker, s.level) for s in results.sets] == [("truncate", "high")]
    assert results.sets[0].edit_distance > 0


def test_bad_dataset_inputs(inputs, tmp_path):
    with pytest.raises(ValueError, match="save_to_disk"):
        gen.parse_inputs([f"hf:{tmp_path / 'test.tsv'}"])
    with pytest.raises(ValueError, match="DatasetDict"):
        gen.parse_inputs([f"dev=hf:{tmp_path / 'hf'}"])
