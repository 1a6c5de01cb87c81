"""Named search attacks, each citing the paper it follows.

- ``deepwordbug``: Gao et al. 2018, "Black-box Generation of Adversarial Text Sequences to Evade
  Deep Learning Classifiers", as TextAttack's DeepWordBugGao2018: masking-based word importance
  ([UNK]), greedy, its four character operations (one random place each per word), no word
  modified twice, stopwords left alone (compared case-sensitively, as TextAttack does: "The"
  may change), Levenshtein distance ≤ 30 over the text.
- ``pruthi``: Pruthi et al. 2019, "Combating Adversarial Misspellings with Robust Word
  Recognition", as TextAttack's Pruthi2019: inner-letter swap, drop, add and keyboard typos at
  every place of words of ≥ 4 letters, one word perturbed, stopwords left alone
  (case-sensitively), TextAttack's greedy search (a beam of width 1 over all words).
- ``textfooler-zeroe``: Jin et al. 2020 (TextFooler), Algorithm 1 — word importance by deletion,
  then greedy substitution — with the Zéroe perturbers as the transformation (default: all ten
  that are available here; segment is left out for pos, and pos ranks by masking), under the
  defender benchmark's constraints (Li et al. 2021): ρ_max = 0.3, K = 50 candidates per word,
  Q_max = K·L; stopwords and @USER/URL left alone.
- ``zeroe-beam``: the same parts with TextAttack's beam search (width 4).
- ``zeroe-random``: the no-search baseline: the random Zéroe protocol (Eger & Benz 2020) at
  p = ρ_max, in batches until success or the same budget.
- ``charmer``: Abad Rocamora et al. 2024, "Revisiting Character-level Adversarial Attacks for
  Language Models": any character of the alphabet (the text's characters and a–z) inserted,
  replaced or deleted anywhere in a word, the 20 best slots by a space probe per step,
  Levenshtein distance ≤ k = 10; no other constraint, no query budget (their scripts').
  ``Charmer(20, 10, width=4, scan=True)`` in its place scans every slot and keeps a beam
  (fewer characters, 7 times the queries: docs/search.md). Given a ``surrogate`` (the
  attacker's own ``tc-tfidf`` or ``generic-tfidf`` model), each step may also write one of the
  500 words it weighs most toward each label over a word one or two characters away
  (``Charmer(lexicon=...)``).
- ``bad-characters``: Boucher et al. 2022, "Bad Characters: Imperceptible NLP Attacks": their
  four imperceptible perturbations (invisible characters, homoglyphs that draw the same pixels,
  bidi reorderings, deletions by BACKSPACE), one injection per word, at most 10 (their budget),
  found by our greedy search (TextFooler's Algorithm 1, ranking by deletion) instead of their
  differential evolution; every word may change (stopwords too), no query budget; a candidate
  is kept only where the changed word, with the gaps around it, draws the same pixels
  (kerning can tell a homoglyph: F + Cyrillic і is set closer than F + i in DejaVu Sans).
- ``zeroe-fast``: query efficiency for binary victims (``tc``, or ``generic`` with two labels):
  the ``Guided`` search, a surrogate the attacker trained itself (a ``tc-tfidf`` or
  ``generic-tfidf`` model of the task's labels, ``surrogate=``) ranks every
  word's candidates without queries and plans many words at once, the victim's answers rescale
  it, and a greedy search on the victim takes over where it was wrong. The six Zéroe
  perturbers that won most often under the surrogate on OLID training tweets, K = 20, each
  word's drawn from a stream of the seed and the word, once a run (``SearchAttack``'s
  ``word_draws``); every word but @USER/URL may change (stopwords too), no ρ_max; Q_max = 50·L.

Every recipe takes the same four options that lift what a defense may assume of its attacker
(``transformations.Lifts``): ``edit_ends`` (first and last letters change too),
``min_word_length`` (the shortest word that may change, replacing the recipe's), ``edit_capitals``
and ``any_unicode`` (what inserted and substituted letters are drawn from). A recipe that already
does what an option asks takes it as it is; one whose transformations cannot do it (no member
edits a word's ends, none draws letters) refuses it with a ``ValueError`` saying why.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..constraints import EditDistance, MaxPerturbed, MinWordLength, NoRepeat, Protected, \
    Stopwords
from ..spec import perturbers_here
from ..tasks import get_task
from ..validate import check_int
from .attack import SearchAttack
from .charmer import Charmer
from .display import RendersIdentically
from .goals import goal_for
from .guided import Guided, NgramSurrogate
from .methods import Beam, Greedy, RandomProtocol
from .transformations import IMPERCEPTIBLE, AnyCharacter, Lifts, get_transformations

DEEPWORDBUG_OPS = ("dwb-swap", "dwb-substitute", "dwb-delete", "dwb-insert")
PRUTHI_OPS = ("pruthi-swap", "pruthi-drop", "pruthi-add", "pruthi-keyboard")
RHO_MAX, K = 0.3, 50  # the defender benchmark's ρ_max and candidates per word
CHARMER_K, CHARMER_N = 10, 20  # Charmer's Levenshtein budget and slots per step (its scripts)
CHARMER_LEXICON = 500  # words per label charmer may write, from a surrogate
BAD_BUDGET = 10  # Boucher et al.'s largest perturbation budget
# zeroe-fast's perturbers: the six whose candidates most often had the surrogate's best gain
# for their word on 300 OLID training tweets the surrogate was not trained on (segment left
# out: ten times slower per candidate); and its candidates per word
FAST = ("keyboard-typo", "full-shuffle", "intrude", "natural-typo", "inner-shuffle", "phonetic")
FAST_K = 20


def _limit(max_perturbed, default) -> list:
    """``max_perturbed`` as a MaxPerturbed: a float below 1 is a share (ρ_max), a whole number
    a count of words."""
    value = default if max_perturbed is None else max_perturbed
    if value is None:
        return []
    if isinstance(value, float) and value < 1:
        return [MaxPerturbed(share=value)]
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return [MaxPerturbed(count=value)]


def _zeroe_names(task) -> list[str]:
    names = perturbers_here("a Zéroe recipe")  # those left out are named in a warning
    return [n for n in names if n != "segment"] if task.token_aligned else names


def _deepwordbug(task, transformations, options):
    names = transformations or DEEPWORDBUG_OPS
    return dict(transformation=get_transformations(names, token_aligned=task.token_aligned),
                constraints=[NoRepeat(), Stopwords(case_sensitive=True), EditDistance(absolute=30),
                             *_limit(options["max_perturbed"], None)],
                method=Greedy("mask"), candidates=len(names))


def _pruthi(task, transformations, options):
    return dict(transformation=get_transformations(transformations or PRUTHI_OPS,
                                                   token_aligned=task.token_aligned),
                constraints=[MinWordLength(4), Stopwords(case_sensitive=True), NoRepeat(),
                             *_limit(options["max_perturbed"], 1)],
                method=Beam(1), candidates=1000)


def _zeroe(method):
    def build(task, transformations, options):
        names = transformations or _zeroe_names(task)
        chosen = method(task)
        return dict(transformation=get_transformations(names, token_aligned=task.token_aligned),
                    constraints=[NoRepeat(), Stopwords(), Protected(),
                                 *_limit(options["max_perturbed"], RHO_MAX)],
                    method=chosen, candidates=K, queries_per_word=K)
    return build


def _textfooler(task):
    # Algorithm 1 as written: all K candidates of a word in one call, the best kept (querying
    # them ten at a time and moving on at the first gain halves the queries on OLID/tc-tfidf
    # and costs 14 points of success: Greedy(chunk=10))
    return Greedy("mask" if task.inputs == "tokens" else "delete")


def _charmer(task, transformations, options):
    transformation = get_transformations(transformations, token_aligned=task.token_aligned) \
        if transformations else AnyCharacter()
    lexicon = () if options["surrogate"] is None else \
        surrogate_of(options["surrogate"]).lexicon(CHARMER_LEXICON)
    return dict(transformation=transformation,
                constraints=[EditDistance(absolute=CHARMER_K),
                             *_limit(options["max_perturbed"], None)],
                method=Charmer(CHARMER_N, CHARMER_K, lexicon=lexicon),
                candidates=K)


def _bad_characters(task, transformations, options):
    return dict(transformation=get_transformations(transformations or IMPERCEPTIBLE,
                                                   token_aligned=task.token_aligned),
                constraints=[NoRepeat(), *_limit(options["max_perturbed"], BAD_BUDGET),
                             RendersIdentically()],
                method=_textfooler(task), candidates=K)


def surrogate_of(value) -> NgramSurrogate:
    """A surrogate, a trained ``tc-tfidf`` or ``generic-tfidf`` model, or the path of its
    file."""
    if isinstance(value, NgramSurrogate):
        return value
    if hasattr(value, "features") and hasattr(value, "model"):
        return NgramSurrogate.from_model(value)
    return NgramSurrogate.load(value)


def _fast(task, transformations, options):
    if options["surrogate"] is None:
        raise ValueError("zeroe-fast needs a surrogate: a tc-tfidf (or generic-tfidf) model "
                         "trained on data the attacker holds (zeroe bench train-victim), e.g. "
                         "surrogate=PATH")
    return dict(transformation=get_transformations(transformations or FAST,
                                                   token_aligned=task.token_aligned),
                constraints=[Protected(), *_limit(options["max_perturbed"], None)],
                method=Guided(surrogate_of(options["surrogate"])), candidates=FAST_K,
                queries_per_word=K, word_draws=True)


RECIPES = {
    "deepwordbug": _deepwordbug,
    "pruthi": _pruthi,
    "textfooler-zeroe": _zeroe(_textfooler),
    "zeroe-beam": _zeroe(lambda task: Beam(4)),
    "zeroe-random": _zeroe(lambda task: RandomProtocol(RHO_MAX)),
    "charmer": _charmer,
    "bad-characters": _bad_characters,
    "zeroe-fast": _fast,
}


def recipe_names() -> tuple[str, ...]:
    return tuple(RECIPES)


def _lift(key: str, parts: dict, lifts: Lifts) -> None:
    """The recipe's parts without the restrictions ``lifts`` names, or a ``ValueError`` where
    its transformations cannot do what an option asks."""
    if lifts.min_word_length is not None:
        check_int("min_word_length", lifts.min_word_length)
    transformation = parts["transformation"].lifted(lifts)
    where = f"{key} with {transformation.name}"
    if lifts.edit_ends and transformation.keeps_ends:
        raise ValueError(f"edit_ends cannot apply to {where}: none of them changes a word's "
                         "first or last character")
    for option in ("edit_capitals", "any_unicode"):
        if getattr(lifts, option) and not transformation.draws_letters:
            raise ValueError(f"{option} cannot apply to {where}: none of them draws letters "
                             "(dwb-insert, dwb-substitute, pruthi-add and any-char do)")
    parts["transformation"] = transformation
    if lifts.min_word_length is not None:
        parts["constraints"] = [c for c in parts["constraints"]
                                if not isinstance(c, MinWordLength)]
        if lifts.min_word_length > 1:
            parts["constraints"].insert(0, MinWordLength(lifts.min_word_length))


def get_recipe(name: str, task, transformations: Sequence[str] | str | None = None,
               max_queries: int | None = None, max_perturbed: int | float | None = None,
               target=None, seed: int = 0, candidates: int | None = None,
               segments: Sequence[int] | None = None, edit_ends: bool = False,
               min_word_length: int | None = None, edit_capitals: bool = False,
               any_unicode: bool = False, surrogate=None, aware: bool = False) -> SearchAttack:
    """The recipe ``name`` for ``task``, with its parts overridable: ``transformations``
    (names, see ``transformation_names``), ``max_queries`` (instead of the recipe's budget),
    ``max_perturbed`` (a share ρ_max as a float < 1, or a count of words as an int),
    ``target`` (a targeted goal), ``candidates`` per word, NLI ``segments``; the
    restrictions a defense may rely on, lifted (``transformations.Lifts``): ``edit_ends``,
    ``min_word_length``, ``edit_capitals``, ``any_unicode``; ``aware``: the attack calls the
    defense in front of the victim freely, paying queries only for what the model has not seen
    (`goals.Session`); and for ``zeroe-fast`` its ``surrogate`` (a ``tc-tfidf`` model or its
    file), for ``charmer`` one whose strongest words it may write."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in RECIPES:
        raise ValueError(f"unknown recipe {name!r}; choose from {', '.join(RECIPES)}")
    task = get_task(task)
    if isinstance(transformations, str):
        transformations = [t for t in transformations.split(",") if t.strip()]
    if surrogate is not None and key not in ("zeroe-fast", "charmer"):
        raise ValueError(f"only zeroe-fast and charmer take a surrogate, not {key}")
    parts = RECIPES[key](task, list(transformations or ()),
                         {"max_perturbed": max_perturbed, "surrogate": surrogate})
    _lift(key, parts, Lifts(edit_ends, min_word_length, edit_capitals, any_unicode))
    if candidates is not None:
        parts["candidates"] = candidates
    if max_queries is not None:
        parts.pop("queries_per_word", None)
    return SearchAttack(parts["transformation"], parts["constraints"], goal_for(task, target),
                        parts["method"], candidates=parts["candidates"],
                        max_queries=max_queries, queries_per_word=parts.get("queries_per_word"),
                        seed=seed, segments=segments, aware=aware,
                        word_draws=parts.get("word_draws", False))
