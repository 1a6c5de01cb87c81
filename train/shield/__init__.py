"""The shield's ranker (``python -m train.shield``): candidate rows built by the runtime shield
from the toolkit's own perturbations of clean training text, a log-linear ranker fit on them, its
threshold chosen on held-out rows, and the export ``zeroe_assets.shield`` loads.
"""
