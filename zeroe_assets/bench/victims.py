"""Deprecated: victims moved to `zeroe_assets.victims` (loading) and `zeroe_assets.baselines`
(the scikit-learn victims). This module stays so that victims saved with joblib before the move
still unpickle; it leaves in 0.3."""
import warnings

from ..baselines import (EncoderClassifier, FeatureTagger, PairClassifier, TextClassifier,
                         TextScorer, save_victim, train_victim)
from ..victims import check_victim_task, load_victim

warnings.warn("zeroe_assets.bench.victims is deprecated, import from zeroe_assets.victims or "
              "zeroe_assets.baselines", DeprecationWarning, stacklevel=2)

__all__ = ["EncoderClassifier", "FeatureTagger", "PairClassifier", "TextClassifier", "TextScorer",
           "check_victim_task", "load_victim", "save_victim", "train_victim"]
