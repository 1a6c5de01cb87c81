"""Visual embeddings (paper §3.3): glyphs → VAE-GAN → μ → FAISS index and neighbour table."""
