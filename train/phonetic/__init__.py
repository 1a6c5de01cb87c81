"""Phonetic pipeline (paper §3.3): lexicons, G2P/P2G seq2seq, word pairs and the Siamese embedder."""
