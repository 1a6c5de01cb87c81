"""The runtime behind the phonetic attack: ``space`` (the exported table; numpy), ``sound`` (the
sound index: words by pronunciation; numpy and FAISS), and the torch models it respells and
pronounces unknown words with, imported only where used: ``seq2seq`` (G2P/P2G nets and
decoding), ``embedder`` (the Siamese sound-alike judge) and ``respell`` (back-transliteration and
its filter)."""
from .sound import SoundSpace, load_sound
from .space import COMPONENT, PhoneticSpace, load_phonetic

__all__ = ["COMPONENT", "PhoneticSpace", "SoundSpace", "load_phonetic", "load_sound"]
