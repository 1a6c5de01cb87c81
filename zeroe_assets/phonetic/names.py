"""Names shared by the torch-free space and the torch models: the asset components, the classes
the embedder's pair classifier tells apart, and the ones the attack keeps."""

COMPONENT = "phonetic"
SEQ2SEQ = "phonetic/seq2seq"  # the G2P/P2G models that respell words outside the table
CLASSES = ("identical", "very_similar", "similar", "different")
SOUND_ALIKE = ("identical", "very_similar")

__all__ = ["CLASSES", "COMPONENT", "SEQ2SEQ", "SOUND_ALIKE"]
