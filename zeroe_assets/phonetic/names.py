"""Names shared by the torch-free space and the torch models: the asset component, the classes
the embedder's pair classifier tells apart, and the ones the attack keeps."""

COMPONENT = "phonetic"
CLASSES = ("identical", "very_similar", "similar", "different")
SOUND_ALIKE = ("identical", "very_similar")

__all__ = ["CLASSES", "COMPONENT", "SOUND_ALIKE"]
