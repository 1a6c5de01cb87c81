"""The import direction of the runtime, stated once and checked on the source.

Layers, lowest first; a module may import its own layer and the ones below, never above:
tokenize, rng, validate, data (packaged), progress → assets → the learned spaces (phonetic,
visual) → perturbers → protocol, reference, mischief, parallel, spec, registry → formats, tasks,
victims (the protocols, the wrapper base and every built-in victim), run folders (runs), reports
(report) and constraints → search, shield → bench, defend (hardened victims) → cli, integrations.
Two parts of one layer never import each other both ways.
``train`` imports ``zeroe_assets``, never the reverse; torch is imported only by the modules that
run torch models, and only lazily by everyone else; FAISS only by ``assets/index.py``, TextAttack
only by ``integrations/textattack.py``.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "zeroe_assets"

LAYERS = [
    {"_charclasses", "tokenize", "rng", "validate", "data", "progress"},
    {"assets"},
    {"phonetic", "visual"},
    {"perturbers"},
    {"protocol", "reference", "parallel", "mischief", "spec", "registry"},
    {"formats", "tasks", "victims", "runs", "report", "constraints"},
    {"search", "shield"},
    {"bench", "defend"},
    {"cli", "integrations"},
]
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def _modules() -> dict[str, Path]:
    """Dotted name → file, for every module of the runtime."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> list[tuple[str, bool]]:
    """(imported module, at module level?) for every import in ``path``, lazy ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top = set(map(id, tree.body))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:  # `from . import registry` imports a module
                sub = f"{base}.{alias.name}"
                found.append((sub if sub in MODULES else base, id(node) in top))
    return found


def _part(module: str) -> str:
    """The layer a runtime module belongs to: its first name below ``zeroe_assets``."""
    return module.split(".")[1]


def test_every_runtime_module_has_a_layer():
    parts = {_part(m) for m in MODULES if m != "zeroe_assets"}
    assert not parts - set(RANK), f"give these a layer in LAYERS: {sorted(parts - set(RANK))}"


def test_imports_go_down_the_layers_only():
    wrong = []
    for name, path in MODULES.items():
        if name == "zeroe_assets":
            continue  # the package facade re-exports the public API of every layer
        for target, _ in _imports(name, path):
            if target.startswith("zeroe_assets.") and _part(target) in RANK and \
                    RANK[_part(target)] > RANK[_part(name)]:
                wrong.append(f"{name} imports {target}")
    assert not wrong, "imports against the layer order:\n" + "\n".join(wrong)


def test_no_two_parts_of_a_layer_import_each_other():
    """Within a layer imports may go either way, but never both between two parts (``search``
    using ``bench`` while ``bench`` uses ``search``): what both need belongs on a floor below."""
    uses = {(_part(name), _part(target)) for name, path in MODULES.items() if name != "zeroe_assets"
            for target, _ in _imports(name, path)
            if target.startswith("zeroe_assets.") and _part(target) in RANK}
    ties = sorted(f"{a} <-> {b}" for a, b in uses if a < b and (b, a) in uses)
    assert not ties, "parts that import each other (give what both use a lower layer): " + \
        ", ".join(ties)


def test_no_import_cycles():
    graph = {name: {t for t, _ in _imports(name, path) if t in MODULES and t != name}
             for name, path in MODULES.items()}
    for sub in MODULES:  # importing a.b.c runs a/__init__ and a/b/__init__ first: not an edge here
        graph[sub] -= {p for p in MODULES if sub.startswith(p + ".")}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


def test_the_runtime_never_imports_train():
    offenders = [f"{name} imports {t}" for name, path in MODULES.items()
                 for t, _ in _imports(name, path) if t == "train" or t.startswith("train.")]
    for name, path in MODULES.items():  # nor names it for importlib ("train.victim.tagger:load")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    node.value.startswith(("train.", "train:")) and " " not in node.value:
                offenders.append(f"{name} names {node.value!r}")
    assert not offenders, offenders


def test_only_the_vector_index_imports_faiss():
    users = sorted(name for name, path in MODULES.items()
                   if any(t == "faiss" or t.startswith("faiss.") for t, _ in _imports(name, path)))
    assert users == ["zeroe_assets.assets.index"], users


def test_only_the_textattack_integration_imports_textattack():
    users = sorted(name for name, path in MODULES.items()
                   if any(t.split(".")[0] == "textattack" for t, _ in _imports(name, path)))
    assert users == ["zeroe_assets.integrations.textattack"], users


def _torch_models() -> list[str]:
    """Modules that run torch models: they import torch at module level (or TextAttack, which
    imports torch), and only they may."""
    return sorted(name for name, path in MODULES.items()
                  if any(t.split(".")[0] in ("torch", "textattack")
                         for t, top in _imports(name, path) if top))


def _pulled_in(modules, heavy) -> list[str]:
    """Which of the ``heavy`` libraries a fresh interpreter has loaded after importing
    ``modules``."""
    code = ("import importlib, sys\n"
            f"for m in {list(modules)!r}: importlib.import_module(m)\n"
            f"print(sorted(m for m in {tuple(heavy)!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_import_zeroe_assets_pulls_in_no_torch():
    models = _torch_models()
    torch_free = [m for m in MODULES if m not in models and not m.endswith(".__main__")]
    found = _pulled_in(torch_free, ("torch", "lightning", "pytorch_lightning", "hydra"))
    assert found == "[]", f"importing the runtime pulled in {found}"


@pytest.mark.parametrize("modules, heavy", [
    (("zeroe_assets", "zeroe_assets.cli", "zeroe_assets.integrations.hf_datasets",
      "zeroe_assets.integrations.ray_data"), ("datasets", "ray", "pyarrow")),
    (("zeroe_assets", "zeroe_assets.integrations", "zeroe_assets.integrations.textattack_offline"),
     ("textattack", "flair")),
])
def test_the_integrations_import_their_library_only_when_called(modules, heavy):
    found = _pulled_in(modules, heavy)
    assert found == "[]", f"importing the runtime pulled in {found}"



def test_starting_the_cli_does_not_look_up_the_version():
    """The metadata lookup scans every installed distribution (50-90 ms of each command's
    start-up): only ``--version`` and the records that name the version pay for it."""
    code = ("import zeroe_assets, zeroe_assets.cli as cli\n"
            "cli.build_parser().parse_args(['perturb', '-p', 'truncate'])\n"
            "print('__version__' in vars(zeroe_assets))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_a_rule_based_zeroe_perturb_imports_no_numpy_and_no_victims(tmp_path):
    """`zeroe perturb -p truncate` registers only its own command (the others' options pulled in
    the defences, numpy, the victims and the run folders) and loads no asset (the store's
    imports): most of a short run's start-up."""
    path = tmp_path / "in.txt"
    path.write_text("one line of text\n")
    code = ("import sys\nfrom zeroe_assets.cli import main\n"
            f"assert main(['perturb', '-p', 'truncate', '-l', '1', {str(path)!r}]) == 0\n"
            "print(sorted(m for m in ('numpy', 'zeroe_assets.victims', 'zeroe_assets.runs', "
            "'zeroe_assets.defend', 'zeroe_assets.assets') if m in sys.modules), "
            "file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "on lin of tex\n" and out.stderr.strip() == "[]"
