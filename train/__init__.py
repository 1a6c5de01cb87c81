"""Training and export jobs (Lightning + Hydra); run as ``python -m train.<job>``."""
