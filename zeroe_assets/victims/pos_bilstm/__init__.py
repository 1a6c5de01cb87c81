"""The runtime of the built-in ``pos-bilstm`` victim: the character-aware BiLSTM tagger network,
its vocabulary and batched prediction. ``train.victim`` trains this same network.

The modules need torch; this package does not import them, ``zeroe_assets.victims`` does when it
loads a bundle.
"""
