"""Bridges to the libraries users already have, one module each, imported on use only (never by
``import zeroe_assets``): ``textattack`` (Zéroe's mechanisms as TextAttack transformations)."""
