"""zeroe runtime: Zéroe attacks over prebuilt assets (numpy + faiss only at import)."""
