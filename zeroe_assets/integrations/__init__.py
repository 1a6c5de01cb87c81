"""Bridges to the libraries users already have, one module each, imported on use only (never by
``import zeroe_assets``): Hugging Face ``datasets`` (`hf_datasets`), Ray Data (`ray_data`) and
TextAttack (`textattack`: Zéroe's mechanisms as TextAttack transformations); ``pip install
'zeroe[hf]'`` / ``'zeroe[scale]'`` / ``'zeroe[textattack]'``."""
