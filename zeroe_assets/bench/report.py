"""Markdown tables in the paper's layout and its figures (Fig. 1, 3, 5) from evaluation results
(the records of :mod:`.results`)."""
from __future__ import annotations

from pathlib import Path

from ..protocol import resolve_level
from .results import Results, levels_by_p, ranking_level


def _grid(results: Results, key: str) -> dict[str, dict[str, float]]:
    grid: dict[str, dict[str, float]] = {}
    for row in results.sets:
        if getattr(row, key) is not None:
            grid.setdefault(row.attacker, {})[row.level] = getattr(row, key)
    return grid


def markdown(results: Results) -> str:
    levels, at = levels_by_p(results.sets), ranking_level(results.sets)
    lines = [f"# Zéroe robustness: {results.task} — {results.victim or 'victim'}", "",
             f"Clean {results.metric} s(0) = {results.clean_score:.4f} on "
             f"{results.examples} examples ({Path(results.clean_file).name}); random "
             f"guess = {results.chance:.3f} (s* = {results.chance / results.clean_score:.3f}).",
             "", "## s*(p) = s(p)/s(0) (paper eq. 1, Table 6 layout)", "",
             "| attacker | " + " | ".join(levels) + " | edit distance (" + levels[-1] + ") |",
             "|---|" + "---:|" * (len(levels) + 1)]
    stars, dist = _grid(results, "s_star"), _grid(results, "edit_distance")
    for attacker in sorted(stars, key=lambda a: stars[a].get(levels[-1], 1.0)):
        cells = [f"{stars[attacker][lv]:.3f}" if lv in stars[attacker] else "—" for lv in levels]
        d = dist[attacker].get(levels[-1])
        cells.append(f"{d:.3f}" if d is not None else "—")
        lines.append(f"| {attacker} | " + " | ".join(cells) + " |")
    lines += ["", f"## Ranking at {at} (Table 5: most damaging first)", "",
              f"| rank | attacker | s*({at}) |", "|---:|---|---:|"]
    lines += [f"| {r.rank} | {r.attacker} | {r.s_star:.3f} |" for r in results.ranking]
    deltas = _grid(results, "delta_tau")
    if deltas:
        lines += ["", "## Δτ(p) = σ(p)/s(0) − s*(p) (paper eq. 2)", "",
                  f"Baseline clean score s(0) = {results.baseline_clean_score:.4f}; this "
                  f"victim's clean score changes by {100 * results.clean_delta:+.1f}%.", "",
                  "| attacker | " + " | ".join(levels) + " |", "|---|" + "---:|" * len(levels)]
        for attacker in sorted(deltas):
            lines.append(f"| {attacker} | " + " | ".join(
                f"{deltas[attacker][lv]:+.3f}" if lv in deltas[attacker] else "—"
                for lv in levels) + " |")
    return "\n".join(lines) + "\n"


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_curves(results: Results, path: Path) -> Path:
    """Fig. 1: s*(p) per attacker, with the random-guess baseline."""
    plt = _plt()
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
    plt = _plt()
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
    plt = _plt()
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


def write_report(results: Results, out_dir: Path) -> list[Path]:
    md = out_dir / "report.md"
    md.write_text(markdown(results), encoding="utf-8")
    return [md, plot_curves(results, out_dir / "s_star.png"),
            plot_edit_distance(results, out_dir / "edit_distance.png")]
