"""The perturbers, one small module per mechanism (paper §3.2)."""
