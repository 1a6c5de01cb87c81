"""The HTML report (``zeroe_assets.report.html``): adversarial Unicode escaped and marked per
cluster, the page self-contained, and the pages of ``bench evaluate`` and ``attack`` rendered
by a real headless Chromium (tables sort, plots decode, nothing fetched, no console error)."""
from __future__ import annotations

import html as stdlib_html
import io
import json
import random
import re

import pytest

from zeroe_assets.bench import generate as gen
from zeroe_assets.bench.evaluate import evaluate, write
from zeroe_assets.bench.results import Results
from zeroe_assets.report import html as H
from zeroe_assets.report.example import Example
from zeroe_assets.search.run import PAGE, RunSettings, run
from zeroe_assets.tasks import get_task
from zeroe_assets.victims.sklearn import train_victim

from .browser import HEIGHT, WIDTH, Browser, find_chromium

# what adversarial text can hold: markup, a bidi override, RTL letters, an astral emoji and a
# mathematical letter, a combining accent, a zero-width space, a lone surrogate
NASTY = ("<script>alert('x')</script> & \u202egnirts\u202c שלום 😀 𝐀 cafe\u0301 zero\u200bwidth "
         "\ud800 end")
GOOD = "good great lovely fine happy nice superb".split()
BAD = "bad awful terrible poor sad nasty dreadful".split()


def visible(markup: str) -> str:
    """The text a reader sees: tags dropped, entities decoded."""
    return stdlib_html.unescape(re.sub(r"<[^>]+>", "", markup))


def test_escape_neutralises_markup_and_shows_hidden_characters():
    out = H.escape(NASTY)
    assert "<script" not in out and "&lt;script&gt;" in out
    assert "\u202e" not in out and "U+202E" in out and "U+200B" in out and "U+D800" in out
    assert "שלום 😀 𝐀 cafe\u0301" in out  # visible characters are kept as they are
    out.encode("utf-8")  # the lone surrogate is gone: the page encodes
    assert H.escape(H.Markup("<b>x</b>")) == "<b>x</b>"


def test_diff_marks_whole_clusters_and_keeps_both_texts():
    old, new = H.diff("cafe\u0301 and 😀x", "cafe\u0300 and 😁x")
    assert "<mark>e\u0300</mark>" in new and '<mark class="old">e\u0301</mark>' in old
    assert "<mark>😁</mark>" in new
    assert visible(old) == "cafe\u0301 and 😀x" and visible(new) == "cafe\u0300 and 😁x"
    same, _ = H.diff("unchanged", "unchanged")
    assert "<mark" not in same
    assert H.clusters("a\u0301\u0327b") == ["a\u0301\u0327", "b"]


def test_tables_sort_numbers_by_value_and_escape_text():
    table = H.table(["name", "value"], [["<b>", 0.5], ["z", None], ["y", 12]])
    assert 'data-v="0.5"' in table and 'data-v="12"' in table and 'data-v="-Infinity"' in table
    assert "&lt;b&gt;" in table and 'class="sortable"' in table


def test_examples_show_pairs_tokens_and_predictions():
    pair = H.examples([{"original": ["A man sits.", "He rests."], "attacked": ["A man sits.",
                        "He r3sts."], "gold": "entailment", "before": "entailment",
                        "after": "neutral"}], "pair")
    assert pair.count('class="sep"') == 2 and "<mark>3</mark>" in pair
    assert '<span class="ok">entailment</span>' in pair and '<span class="bad">neutral' in pair
    tags = H.examples([{"original": ["The", "dog"], "attacked": ["Th", "dog"],
                        "gold": ["DET", "NOUN"], "before": ["DET", "NOUN"],
                        "after": ["NOUN", "NOUN"]}], "tokens")
    assert "2/2 tags right" in tags and "1/2 tags right" in tags and "DET NOUN" in tags


def test_page_is_self_contained():
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (1200, 600), "white").save(buffer, "PNG")
    page = H.page(NASTY, H.figure(buffer.getvalue(), NASTY), H.table(["a"], [[NASTY]]))
    page.encode("utf-8")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"(?:src|href)=\"(?!data:)", page) and "://" not in page
    assert '<title>&lt;script&gt;' in page and 'alt="&lt;script&gt;alert(&#x27;x&#x27;)' in page
    width = Image.open(io.BytesIO(H.png(buffer.getvalue()))).width
    assert width == H.PLOT_WIDTH  # plots downscaled


def _data(path, n=160, seed=0):
    """A generic text-classification TSV: sentences of good or bad words, a few adversarial."""
    rng = random.Random(seed)
    lines = ["text\tlabel"]
    for i in range(n):
        label = i % 2
        words = rng.sample(GOOD if label else BAD, 4) + rng.sample(["the", "film", "was", "day"], 2)
        rng.shuffle(words)
        extra = NASTY.replace("\ud800", "") if i % 40 == 0 else ""
        lines.append(f"{' '.join(words)} {extra}\t{'pos' if label else 'neg'}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """A real evaluation and a real search attack of a trained scikit-learn victim: the folders
    with their report.html."""
    from zeroe_assets.victims.sklearn import save_victim

    work = tmp_path_factory.mktemp("reports")
    train, test = _data(work / "train.tsv", 240, 1), _data(work / "test.tsv", 60, 2)
    task = get_task("generic")
    ex = task.examples(train, task.format_for(train))
    victim = train_victim("generic-tfidf", ex.inputs, ex.gold, task="generic")
    save_victim(victim, work / "victim.joblib")
    jobs = gen.plan("generic", {"test": test}, ["intrude", "visual"], ["low", "high"],
                    work / "sets", 0)
    gen.run(jobs, progress=None)
    results = evaluate("generic", victim, work / "sets", progress=None, victim_name="tfidf")
    write(results, work / "evaluate")
    settings = RunSettings(task="generic", victim="generic-tfidf",
                           victim_path=str(work / "victim.joblib"), data=str(test),
                           recipe="deepwordbug", limit=8, options={"max_queries": 40})
    run(settings, work / "attack", progress=False)
    return work


def test_evaluate_writes_examples_and_a_page(reports):
    results = Results.load(reports / "evaluate" / "results.json")
    assert Results.from_json(json.loads(json.dumps(results.to_json()))) == results
    shown = [e for row in results.sets for e in row.examples]
    assert shown and all(isinstance(e, Example) and e.original != e.attacked for e in shown)
    assert all(e.restored is None for e in shown)
    page = (reports / "evaluate" / "report.html").read_text(encoding="utf-8")
    assert page.count("<img") == 2 and "<mark>" in page and "s*(p)" in page


def test_restored_texts_come_from_the_shield():
    from zeroe_assets.shield import ShieldedVictim, get_shield

    victim = ShieldedVictim(train_victim("generic-tfidf", ["good day", "bad day"],
                                         ["pos", "neg"]), "generic", get_shield(["visual"]))
    example = Example.of(victim, 0, "good day", "gооd day", "pos", "pos", "neg")
    assert example.restored == "good day"
    rows = [{**example.to_json()}]
    assert "restored by the shield" in H.examples(rows)


@pytest.mark.skipif(find_chromium() is None,
                    reason="no chromium, chromium-browser or google-chrome on the PATH (nor "
                           "ZEROE_CHROMIUM): `make test` installs Debian's chromium as root")
def test_reports_render_in_chromium(reports):
    from PIL import Image

    browser = Browser(find_chromium())
    try:
        for page in (reports / "evaluate" / "report.html", reports / "attack" / PAGE):
            browser.open(page.as_uri())
            state = browser.evaluate("""({
                tables: document.querySelectorAll("table").length,
                sortable: document.querySelectorAll("table.sortable").length,
                marks: document.querySelectorAll("mark").length,
                images: Array.from(document.images).map(i => [i.complete, i.naturalWidth]),
                width: document.documentElement.scrollWidth})""")
            assert state["tables"] >= 2 and state["sortable"] >= 1 and state["marks"] >= 1
            assert all(done and width > 0 for done, width in state["images"]), state["images"]
            assert state["width"] <= WIDTH  # no horizontal scrolling at 1280×800
            column = browser.evaluate("""(() => {
                const table = document.querySelector("table.sortable");
                const th = Array.from(table.tHead.rows[0].cells);
                const i = th.findIndex((h, k) => table.tBodies[0].rows[0].cells[k]
                                                   .hasAttribute("data-v"));
                th[i].click();
                return Array.from(table.tBodies[0].rows,
                                  r => parseFloat(r.cells[i].getAttribute("data-v")));
            })()""")
            assert column == sorted(column)
            shot = Image.open(io.BytesIO(browser.screenshot())).convert("RGB")
            assert shot.size == (WIDTH, HEIGHT)
            assert len(shot.getcolors(1 << 20)) > 20  # text, tables: not a blank page
            assert browser.errors() == []
            fetched = [u for u in browser.requests() if not u.startswith(("file:", "data:"))]
            assert fetched == []
    finally:
        browser.close()
