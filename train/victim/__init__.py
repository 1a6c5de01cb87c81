"""Neural POS victim: trains the character-aware BiLSTM tagger of
``zeroe_assets.victims.pos_bilstm`` (``python -m train.victim``) and exports it as the bundle
the ``pos-bilstm`` victim loads.
"""
