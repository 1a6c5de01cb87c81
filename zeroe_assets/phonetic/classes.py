"""The classes the embedder's pair classifier tells apart, and the ones the attack keeps."""

CLASSES = ("identical", "very_similar", "similar", "different")
SOUND_ALIKE = ("identical", "very_similar")

__all__ = ["CLASSES", "SOUND_ALIKE"]
