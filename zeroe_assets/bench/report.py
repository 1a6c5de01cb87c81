"""Markdown tables in the paper's layout, its figures (Fig. 1, 3, 5) and the HTML page (tables,
figures and examples, :mod:`zeroe_assets.report.html`) from evaluation results (the records of
:mod:`.results`)."""
from __future__ import annotations

from pathlib import Path

from ..assets import atomic_write
from ..validate import resolve_level
from ..report import html as H
from ..report.html import Markup
from ..report.plots import pyplot
from ..tasks import get_task
from .results import Results, levels_by_p, ranking_level


def _grid(results: Results, key: str) -> dict[str, dict[str, float]]:
    grid: dict[str, dict[str, float]] = {}
    for row in results.sets:
        if getattr(row, key) is not None:
            grid.setdefault(row.attacker, {})[row.level] = getattr(row, key)
    return grid


def s_star_table(results: Results) -> tuple[list[str], list[list]]:
    """Table 6's layout: s*(p) per attacker and level (least robust last level first), and the
    edit distance at the last level; None where a set is missing."""
    levels = levels_by_p(results.sets)
    stars, dist = _grid(results, "s_star"), _grid(results, "edit_distance")
    header = ["attacker", *levels, f"edit distance ({levels[-1]})"]
    return header, [[a, *(stars[a].get(lv) for lv in levels), dist[a].get(levels[-1])]
                    for a in sorted(stars, key=lambda a: stars[a].get(levels[-1], 1.0))]


def delta_tau_table(results: Results) -> tuple[list[str], list[list]] | None:
    """Δτ(p) per attacker and level; None without a baseline."""
    deltas, levels = _grid(results, "delta_tau"), levels_by_p(results.sets)
    if not deltas:
        return None
    return ["attacker", *levels], [[a, *(deltas[a].get(lv) for lv in levels)]
                                   for a in sorted(deltas)]


def _md(header: list[str], rows: list[list], spec: str = ".3f") -> list[str]:
    """A Markdown table: the first column left-aligned, numbers in ``spec``, None as —."""
    def cell(v):
        return "—" if v is None else v if isinstance(v, str) else format(v, spec)
    return ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1),
            *("| " + " | ".join(map(cell, row)) + " |" for row in rows)]


def _headline(results: Results) -> str:
    return (f"Clean {results.metric} s(0) = {results.clean_score:.4f} on "
            f"{results.examples} examples ({Path(results.clean_file).name}); random "
            f"guess = {results.chance:.3f} (s* = {results.chance / results.clean_score:.3f}).")


def _delta_tau_note(results: Results) -> str:
    return (f"Baseline clean score s(0) = {results.baseline_clean_score:.4f}; this "
            f"victim's clean score changes by {100 * results.clean_delta:+.1f}%.")


def _title(results: Results) -> str:
    return f"Zéroe robustness: {results.task} — {results.victim or 'victim'}"


S_STAR = "s*(p) = s(p)/s(0) (paper eq. 1, Table 6 layout)"
DELTA_TAU = "Δτ(p) = σ(p)/s(0) − s*(p) (paper eq. 2)"


def markdown(results: Results) -> str:
    at = ranking_level(results.sets)
    lines = [f"# {_title(results)}", "", _headline(results), "", f"## {S_STAR}", "",
             *_md(*s_star_table(results)),
             "", f"## Ranking at {at} (Table 5: most damaging first)", "",
             f"| rank | attacker | s*({at}) |", "|---:|---|---:|"]
    lines += [f"| {r.rank} | {r.attacker} | {r.s_star:.3f} |" for r in results.ranking]
    deltas = delta_tau_table(results)
    if deltas:
        lines += ["", f"## {DELTA_TAU}", "", _delta_tau_note(results), "",
                  *_md(*deltas, "+.3f")]
    return "\n".join(lines) + "\n"


def html_section(results: Results, figures: list[tuple[Path, str]], level: int = 1,
                 tables: bool = True) -> Markup:
    """The HTML of one evaluation under a heading of ``level``: the tables of ``markdown``
    (s* and the ranking only with ``tables``), the figures (path, caption) and the examples of
    every set."""
    at = ranking_level(results.sets)
    parts = [H.paragraph(_headline(results))]
    if tables:
        parts.append(H.row(
            Markup(H.heading(S_STAR, level + 1) + H.table(*s_star_table(results))),
            Markup(H.heading(f"Ranking at {at} (Table 5)", level + 1)
                   + H.table(["rank", "attacker", f"s*({at})"],
                             [[r.rank, r.attacker, r.s_star] for r in results.ranking]))))
    deltas = delta_tau_table(results)
    if deltas:
        parts += [H.heading(DELTA_TAU, level + 1), H.paragraph(_delta_tau_note(results)),
                  H.table(*deltas)]
    if figures:
        parts.append(H.row(*(H.figure(path, caption) for path, caption in figures)))
    shown = [{"attacker": row.attacker, "level": row.level, "#": e.index, **e.to_json()}
             for row in sorted(results.sets, key=lambda r: (r.attacker, r.p))
             for e in row.examples or ()]
    if shown:
        parts.append(H.details(f"Examples ({len(shown)}: per set, the first whose prediction "
                               "the attack changed)", H.examples(
                                   shown, get_task(results.task).inputs,
                                   lead=("attacker", "level", "#"))))
    return Markup("\n".join(parts))


def plot_curves(results: Results, path: Path) -> Path:
    """Fig. 1: s*(p) per attacker, with the random-guess baseline."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    stars, levels = _grid(results, "s_star"), levels_by_p(results.sets)
    for attacker in sorted(stars):
        have = [lv for lv in levels if lv in stars[attacker]]
        ps = [0.0] + [resolve_level(lv) for lv in have]
        ys = [1.0] + [stars[attacker][lv] for lv in have]
        ax.plot(ps, ys, marker="o", label=attacker)
    ax.axhline(results.chance / results.clean_score, color="k", ls="--", lw=1,
               label="random guess")
    ax.set_xlabel("perturbation level p")
    ax.set_ylabel("s*(p) = s(p) / s(0)")
    ax.set_title(f"{results.task}: {results.victim or 'victim'}")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_edit_distance(results: Results, path: Path) -> Path:
    """Fig. 5: amount of perturbation (normalised edit distance) against s*."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    markers = {"low": "o", "mid": "s", "high": "^"}
    attackers, at = sorted({r.attacker for r in results.sets}), ranking_level(results.sets)
    for row in results.sets:
        ax.scatter(row.edit_distance, row.s_star, marker=markers.get(row.level, "D"),
                   color=f"C{attackers.index(row.attacker) % 10}")
        if row.level == at:
            ax.annotate(row.attacker, (row.edit_distance, row.s_star), fontsize=7)
    ax.set_xlabel("mean normalised character edit distance")
    ax.set_ylabel("s*(p)")
    ax.set_title("perturbation vs damage (○ low, □ mid, △ high, ◇ numeric p)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_delta_tau_heatmap(matrix: dict[str, dict[str, float]], level: str, path: Path) -> Path:
    """Fig. 3: Δτ for victims trained on attacker α (rows), tested on attacker β (columns)."""
    plt = pyplot()
    alphas = sorted(matrix)
    betas = sorted({b for row in matrix.values() for b in row})
    values = [[matrix[a].get(b, float("nan")) for b in betas] for a in alphas]
    fig, ax = plt.subplots(figsize=(1 + 0.7 * len(betas), 1 + 0.6 * len(alphas)))
    bound = max((abs(v) for row in values for v in row if v == v), default=1.0) or 1.0
    im = ax.imshow(values, cmap="RdBu", vmin=-bound, vmax=bound)
    ax.set_xticks(range(len(betas)), betas, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(alphas)), alphas, fontsize=8)
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            if v == v:  # white on the darkest cells, black elsewhere
                ax.text(j, i, f"{v:+.2f}", ha="center", va="center", fontsize=6,
                        color="white" if abs(v) > 0.6 * bound else "black")
    ax.set_xlabel("tested on β")
    ax.set_ylabel("trained on α (1-1)")
    ax.set_title(f"Δτ at {level}")
    fig.colorbar(im, ax=ax, shrink=0.8)
    fig.savefig(path, dpi=120, bbox_inches="tight")  # axis labels outside a small figure's box
    plt.close(fig)
    return path


FIGURES = {"s_star.png": "s*(p) per attacker, with the random guess (paper Fig. 1)",
           "edit_distance.png": "amount of perturbation against damage (paper Fig. 5)"}


def write_report(results: Results, out_dir: Path) -> list[Path]:
    md = out_dir / "report.md"
    md.write_text(markdown(results), encoding="utf-8")
    curves = plot_curves(results, out_dir / "s_star.png")
    distance = plot_edit_distance(results, out_dir / "edit_distance.png")
    page = out_dir / "report.html"
    atomic_write(page, H.page(_title(results), html_section(
        results, [(p, FIGURES[p.name]) for p in (curves, distance)])).encode())
    return [md, curves, distance, page]
