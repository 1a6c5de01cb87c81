"""Where the training jobs export (issue 37, item 11; ``train.publish``): a smoke run into its
run folder, never over the shipped assets; replacing those only when asked, refused when the
new export scores below them unless forced, and the replaced version kept and restorable."""
from __future__ import annotations

import shutil

import pytest

pytest.importorskip("torch", reason="the train extra is not installed")

from zeroe_assets.assets import load_component, read_manifest, sha256_file  # noqa: E402

from .conftest import ROOT, compose  # noqa: E402
from .visual_fixtures import tiny_font  # noqa: E402,F401  (a fixture)

SHIPPED = ROOT / "artifacts"


def checksums(root) -> dict[str, str]:
    return {str(p.relative_to(root)): sha256_file(p) for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory, tiny_font):  # noqa: F811
    """A copy of the shipped assets as the default root ($ZEROE_ARTIFACTS), their checksums, and
    ``python -m train.vaegan experiment=visual_smoke`` run as the README says, on a tiny font."""
    from train.vaegan import train

    if not (SHIPPED / "manifest.json").is_file():
        pytest.skip("no shipped artifacts in the checkout")
    tmp = tmp_path_factory.mktemp("publish")
    shipped = tmp / "shipped"
    shutil.copytree(SHIPPED, shipped, ignore=shutil.ignore_patterns(".*"))
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ZEROE_ARTIFACTS", str(shipped))
        before = checksums(shipped)
        result = train(compose("vaegan", ["experiment=visual_smoke",
                                          f"data.glyphs.fonts=[{tiny_font}]",
                                          f"data.glyphs.cache_dir={tmp / 'cache'}",
                                          f"out_dir={tmp / 'run'}"]))
    return tmp, shipped, before, result


def export_cfg(smoke, out, *overrides):
    tmp, _, _, result = smoke
    return compose("export", ["export=visual", "pipeline=visual", f"ckpt={result['last']}",
                              f"out_dir={tmp / out}", "export.rerank=null",  # no words to read
                              *overrides])


def test_a_smoke_run_exports_into_its_run_folder_and_leaves_the_shipped_assets_alone(smoke):
    tmp, shipped, before, result = smoke
    assert checksums(shipped) == before
    exported = load_component("visual", tmp / "run" / "artifacts")
    assert exported.meta["glyphs"] == result["export"]["glyphs"] < 100
    assert exported.meta["top_k"] == 3


def test_replacing_the_shipped_assets_is_refused_when_worse_unless_forced(smoke, monkeypatch):
    from train.export import export
    from train.publish import copy_component

    tmp, shipped, before, _ = smoke
    monkeypatch.setenv("ZEROE_ARTIFACTS", str(shipped))
    shipped_meta = read_manifest(shipped)["components"]["visual"]["meta"]
    worse = (f"glyphs 10 < {shipped_meta['glyphs']}; neighbours per glyph 9 < "
             f"{shipped_meta['top_k']}")  # the tiny font's 10 glyphs: 9 neighbours at most
    with pytest.raises(ValueError, match=rf"export refused: the new visual export scores below "
                                         rf"the one in .*{worse}\).*export_force=true"):
        export(export_cfg(smoke, "refused", "export_to=artifacts"))
    assert checksums(shipped) == before and not (tmp / "refused" / "replaced").exists()

    export(export_cfg(smoke, "forced", "export_to=artifacts", "export_force=true"))
    now = checksums(shipped)
    assert now != before and load_component("visual", shipped).meta["top_k"] == 9
    assert {k: v for k, v in now.items() if not k.startswith(("visual/", "manifest"))} == {
        k: v for k, v in before.items() if not k.startswith(("visual/", "manifest"))}
    [kept] = (tmp / "forced" / "replaced").iterdir()  # named after the replaced one's export time
    assert load_component("visual", kept).meta == shipped_meta
    assert checksums(kept / "visual") == {k[len("visual/"):]: v for k, v in before.items()
                                          if k.startswith("visual/")}

    # the same export again scores as well as the one it replaces: no force needed
    export(export_cfg(smoke, "again", "export_to=artifacts"))
    assert (tmp / "again" / "replaced").is_dir()
    copy_component("visual", kept, shipped)  # and the shipped version comes back
    restored = checksums(shipped)
    assert {k: v for k, v in restored.items() if k != "manifest.json"} == {
        k: v for k, v in before.items() if k != "manifest.json"}
    assert load_component("visual", shipped).meta == shipped_meta


def test_export_to_is_checked_before_training(smoke):
    from train.vaegan import train

    cfg = compose("vaegan", ["experiment=visual_smoke", "export_to=somewhere",
                             f"out_dir={smoke[0] / 'bad'}"])
    with pytest.raises(ValueError, match="export_to must be run or artifacts, got 'somewhere'"):
        train(cfg)
    assert not (smoke[0] / "bad").exists()


def test_shortfalls_compare_each_yardstick_in_its_direction():
    from train.publish import shortfalls

    old = {"g2p": {"test": {"wer": 0.25}}, "p2g": {"test": {"wer": 0.5}}}
    assert shortfalls("phonetic/seq2seq", {**old, "g2p": {"test": {"wer": 0.2}}}, old) == []
    assert shortfalls("phonetic/seq2seq", old, old) == []
    assert shortfalls("phonetic/seq2seq", {**old, "g2p": {"test": {"wer": 0.3}}}, old) == [
        "G2P WER 0.3 > 0.25"]
    old = {"val": {"accuracy": 0.9, "perturbed_accuracy": None}}
    assert shortfalls("shield", {"val": {"accuracy": 0.8, "perturbed_accuracy": 0.1}}, old) == [
        "accuracy 0.8 < 0.9"]  # what the old one did not measure is not compared
    assert shortfalls("shield", {"val": {}}, old) == [
        "accuracy not measured (the current one: 0.9)"]
    new = {"embedder": {"heldout": {"macro_f1": 0.9}}, "table": {"coverage": 1.0}, "words": 100}
    old = {"embedder": {"heldout": {"macro_f1": 0.8}}, "table": {"coverage": 0.99}, "words": 124898}
    assert shortfalls("phonetic", new, old) == ["words 100 < 124898"]


def test_a_corrupt_shipped_component_is_replaced_without_comparison(tmp_path):
    from omegaconf import OmegaConf

    from train.publish import Destination
    from zeroe_assets.assets import write_component

    shipped = tmp_path / "shipped"
    write_component("shield", {"ranker.json": b"{}"}, {"val": {"accuracy": 0.9}}, root=shipped)
    cfg = OmegaConf.create({"export_to": "artifacts", "export_force": False,
                            "out_dir": str(tmp_path / "run"),
                            "paths": {"artifacts_dir": str(shipped)}})
    dest = Destination.of(cfg)
    with pytest.raises(ValueError, match=r"accuracy 0\.5 < 0\.9"):
        dest.admit("shield", {"val": {"accuracy": 0.5}})
    (shipped / "shield" / "ranker.json").write_bytes(b"[]")  # same size, other bytes
    assert dest.admit("shield", {"val": {"accuracy": 0.5}}) == shipped
    assert not (tmp_path / "run").exists()  # nothing to keep
