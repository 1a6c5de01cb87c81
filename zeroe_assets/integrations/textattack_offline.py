"""Make ``import textattack`` (0.3.11) work without a network, before it is imported.

Two of TextAttack's import-time needs reach the network: without the marker
``$TA_CACHE_DIR/post_install_check_3`` it runs ``nltk.download(...)``, and its augmentation
recipes build a ``StopwordModification``, which reads NLTK's ``stopwords`` corpus. ``prepare``
writes the marker and NLTK's English stop word list into a cache folder and points TextAttack
and NLTK at it. No textattack import here: this must run first.
"""
from __future__ import annotations

import os
from pathlib import Path

# NLTK's English stop word list (nltk_data corpora/stopwords/english, 179 words), which
# TextAttack's StopwordModification reads; written here because nothing may be downloaded.
NLTK_ENGLISH_STOPWORDS = """\
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
yourselves he him his himself she she's her hers herself it it's its itself they them their
theirs themselves what which who whom this that that'll these those am is are was were be been
being have has had having do does did doing a an the and but if or because as until while of at
by for with about against between into through during before after above below to from up down
in out on off over under again further then once here there when where why how all any both each
few more most other some such no nor not only own same so than too very s t can will just don
don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn
doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn
needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't""".split()


def prepare(cache: str | Path) -> Path:
    """Set ``TA_CACHE_DIR`` to ``cache`` (created) with TextAttack's post-install marker and
    NLTK's English stop words in ``cache/nltk_data``, on ``NLTK_DATA`` and ``nltk.data.path``.
    TextAttack, once imported, also points ``HF_HOME`` and ``XDG_CACHE_HOME`` at ``cache``."""
    cache = Path(cache)
    corpus = cache / "nltk_data" / "corpora" / "stopwords"
    corpus.mkdir(parents=True, exist_ok=True)
    (cache / "post_install_check_3").touch()
    (corpus / "english").write_text("\n".join(NLTK_ENGLISH_STOPWORDS) + "\n", encoding="utf-8")
    os.environ["TA_CACHE_DIR"] = str(cache)
    os.environ["NLTK_DATA"] = str(cache / "nltk_data")
    import nltk

    if os.environ["NLTK_DATA"] not in nltk.data.path:
        nltk.data.path.insert(0, os.environ["NLTK_DATA"])
    return cache
