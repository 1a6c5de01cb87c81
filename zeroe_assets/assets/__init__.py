"""Artifact format (manifest + component folders): the single writer and reader.

``store`` (manifest, components, atomic writes), ``index`` (the FAISS vector index), ``tables``
(neighbour and phonetic tables), ``cache`` (loaded components shared in a process), ``hints``
(how to rebuild each component).
"""
from .cache import cached_component
from .hints import rebuild_hint
from .store import (ArtifactError, Component, atomic_write, check_writable, component_available,
                    default_root, json_bytes, library_versions, load_component, npy_bytes,
                    read_manifest, remove_stale_temporaries, sha256_file, sha256_path,
                    temp_prefix, write_component)

__all__ = ["ArtifactError", "Component", "atomic_write", "cached_component", "check_writable",
           "component_available", "default_root", "json_bytes", "library_versions",
           "load_component", "npy_bytes", "read_manifest", "rebuild_hint",
           "remove_stale_temporaries", "sha256_file", "sha256_path", "temp_prefix", "write_component"]
