"""Benchmark evaluation (paper §4): perturbed datasets, victims, scores, reports."""
