"""Training and export jobs (Lightning + Hydra); run as ``python -m train.<job>``."""
from pathlib import Path

# The jobs' Hydra configs live in the checkout's conf/, which a wheel does not install: training
# runs from a checkout (``pip install -e '.[train]'``); the runtime, zeroe_assets, runs anywhere.
CONF = str(Path(__file__).resolve().parents[1] / "conf")
