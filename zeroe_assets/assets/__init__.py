"""Artifact format (manifest + component folders): the single writer and reader."""
from .store import (ArtifactError, Component, component_available, default_root, json_bytes,
                    library_versions, load_component, npy_bytes, read_manifest, sha256_file,
                    write_component)

__all__ = ["ArtifactError", "Component", "component_available", "default_root", "json_bytes",
           "library_versions", "load_component", "npy_bytes", "read_manifest", "sha256_file",
           "write_component"]
