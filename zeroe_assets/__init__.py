"""zeroe runtime: the Zéroe attacks (Eger & Benz 2020) over prebuilt assets.

Imports only numpy and the standard library (faiss lazily), never torch.

    >>> import zeroe_assets as z
    >>> z.perturb("The quick brown fox", "inner-shuffle", level="high", seed=1)
    >>> z.restore("Teh qiuck b r o w n fox")  # undo low-level attacks (zeroe_assets.shield)
"""
from __future__ import annotations

from .mischief import Mischief
from .protocol import PROTOCOLS, Chain, Mix, Perturbation, ZeroePerturbation
from .rng import Seed
from .spec import available_names, get_perturbation, list_perturbers
from .validate import LEVELS


# names of the asset store, imported on first use: a rule-based `zeroe perturb` never loads an
# asset, and the store's imports (dataclasses, json, hashlib, shutil, tempfile, platform) were
# a third of its start-up
_FROM_ASSETS = {"ArtifactError": "ArtifactError", "load_assets": "load_component"}


def __getattr__(name: str):
    """``ArtifactError`` and ``load_assets`` (`zeroe_assets.assets`), imported on first use; and
    ``__version__``, the installed distribution's, looked up on first use: the lookup scans
    every installed distribution (50-90 ms), which every ``zeroe`` command paid at start-up."""
    if name in _FROM_ASSETS:
        from . import assets

        found = globals()[name] = getattr(assets, _FROM_ASSETS[name])
        return found
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("zeroe")
    except PackageNotFoundError:  # a checkout on sys.path that was never installed
        found = "0+unknown"
    globals()["__version__"] = found
    return found


def perturb(text, spec, level: float | str = "mid", seed: Seed = None,
            phi: float | str | None = None, protocol: str = "paper", **options):
    """Perturb a string or a list of strings with ``spec`` (a perturber's name, a spec such as
    ``intrude:low+visual``, or a built ``Perturbation``) under the random Zéroe protocol."""
    if not isinstance(spec, Perturbation):
        spec = get_perturbation(spec, level=level, phi=phi, protocol=protocol, **options)
    return spec(text, seed=seed)


def get_shield(mechanisms=None, threshold: float | None = None, learned: bool = True, root=None):
    """The shield with these settings, built once per process (`zeroe_assets.shield.get_shield`,
    imported on first use so that ``import zeroe_assets`` stays cheap)."""
    from .shield import get_shield as build

    return build(mechanisms, threshold, learned, root)


def restore(text, mechanisms=None, threshold: float | None = None, learned: bool = True):
    """Undo low-level attacks on a string or a list of strings: ``mechanisms`` (default all of
    `zeroe_assets.shield.MECHANISMS`), the ranker probability a change needs (``threshold``,
    default the ranker's), ``learned``: the exported ranker if there is one."""
    return get_shield(mechanisms, threshold, learned)(text)


__all__ = ["LEVELS", "PROTOCOLS", "ArtifactError", "Chain", "Mischief", "Mix", "Perturbation",
           "ZeroePerturbation", "available_names", "get_perturbation", "get_shield",
           "list_perturbers", "load_assets", "perturb", "restore"]
