"""Training and export jobs (Lightning + Hydra); run as ``python -m train.<job>``."""
import functools
import os
import sys
from pathlib import Path

# The jobs' Hydra configs live in the checkout's conf/, which a wheel does not install: training
# runs from a checkout (``pip install -e '.[train]'``); the runtime, zeroe_assets, runs anywhere.
CONF = str(Path(__file__).resolve().parents[1] / "conf")


def one_line_errors(main):
    """A job's Hydra main whose bad config value or missing input file (a ValueError or OSError,
    raised by the job or inside an object its config builds) is one line on stderr and exit 2,
    as ``zeroe`` reports them, not Hydra's report with a traceback; ``HYDRA_FULL_ERROR=1`` keeps
    Hydra's for debugging. Other errors are Hydra's as before."""

    @functools.wraps(main)
    def run(cfg):
        from hydra.errors import InstantiationException

        try:
            return main(cfg)
        except Exception as e:
            cause = e.__cause__ if isinstance(e, InstantiationException) else e
            if os.environ.get("HYDRA_FULL_ERROR") == "1" or not isinstance(
                    cause, (ValueError, OSError)):
                raise
            spec = getattr(sys.modules["__main__"], "__spec__", None)
            job = spec.name.removesuffix(".__main__") if spec else "train"
            print(f"python -m {job}: error: {cause}", file=sys.stderr)
            sys.exit(2)

    return run
