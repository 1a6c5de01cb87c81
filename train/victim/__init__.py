"""Neural POS victim: a character-aware BiLSTM tagger (``python -m train.victim``).

Importing this package (or :mod:`train.victim.tagger`) does not import torch, so the benchmark
can resolve ``train.victim.tagger:load`` cheaply and only pay for torch when it loads a model.
"""
