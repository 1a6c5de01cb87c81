"""The runtime behind the phonetic attack: ``space`` (the exported table and index; numpy and
FAISS), and the torch models it respells unknown words with, imported only where used:
``seq2seq`` (G2P/P2G nets and decoding), ``embedder`` (the Siamese sound-alike judge) and
``respell`` (back-transliteration and its filter)."""
from .space import COMPONENT, PhoneticSpace, load_phonetic

__all__ = ["COMPONENT", "PhoneticSpace", "load_phonetic"]
