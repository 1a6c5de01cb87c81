"""Bridges to the libraries users already have: Hugging Face ``datasets`` (`hf_datasets`) and
Ray Data (`ray_data`). Each imports its library when called, never at import (``pip install
'zeroe[hf]'`` / ``'zeroe[scale]'``)."""
