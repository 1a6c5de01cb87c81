"""What every perturber is: a name, which words it can change, how it changes one, and the
distinct changed forms of a word it can offer.

The protocol (which words, how many, φ) lives in `zeroe_assets.protocol` and is shared by all;
a perturber only transforms a word (TextAttack's "transformation"); search attacks enumerate
``candidates``.
"""
from __future__ import annotations

import random
from collections.abc import Iterable

from ..validate import check_int

CANDIDATE_PHI = 0.5  # φ of the draws behind ``candidates`` unless a caller gives its own


SCOPES = ("word", "context", "drawn")
REFERENCES = ("words", "sentence")


class Perturber:
    """Base class. Subclasses set ``name``/``description``, ``can_change`` and ``perturb_word``.

    ``rng`` is a per-sample ``random.Random`` that the protocol derives from the user's seed, so
    results are identical in any process. ``phi`` is the character-level probability φ.

    How the protocol visits a perturber's words is declared as data, and checked when a subclass
    is defined (each kind has exactly the hook it needs):

    - ``scope = "word"`` (default): each drawn word changes alone through ``perturb_word`` (under
      ``protocol="reference"``: ``reference_word``, where the original changed a word
      differently, keyboard-typo).
    - ``scope = "context"``: a change reaches the neighbours (segment joins a word with the
      next): ``attack_at`` changes the words in place and says which changed.
    - ``scope = "drawn"``: the perturber runs the visits of the drawn words itself
      (``attack_drawn``: phonetic, whose draws must not depend on its OOV path).
    - ``reference = "sentence"``: under ``protocol="reference"`` the original bypassed the word
      protocol (visual, segment): ``reference_sentence`` does what it did; default ``"words"``.

    ``token_aligned`` (False for perturbers that change the number of tokens), ``prepares``
    (True where ``prepare`` does batch work), ``keeps_ends`` (True where no change touches a
    word's first or last character: a search recipe asked to edit them refuses a set of such
    perturbers, ``search.recipes``), ``whole_words`` (True where the protocol hands a perturber
    whole words, apostrophes and clitics included: a substitution in place moves and counts no
    letters, so the rule that keeps them for the others has no reason here; visual, as in the
    paper and the original code) and ``draws`` (False where ``perturb_word`` and
    ``reference_word`` never use ``rng`` or ``phi``: the protocol then keeps each spelling's
    outcome, and they are called with ``rng=None``) are data too. So is ``row``: None, or a
    function of a word giving the entries ``perturb_word`` draws from, where it returns
    ``row(word)[int(rng.random() * len(row(word)))]``, and ``word`` without drawing when the
    row is empty (natural-typo); the protocol then keeps each spelling's row and draws itself.
    So is ``slots``: None, or a function of a word giving ``(units, slots)``, the word's units
    and ``(i, (options, count))`` for each unit that may change, in order, where
    ``perturb_word`` returns ``word`` without drawing when there are no slots, else flips a
    Bernoulli(φ) coin per slot in order (``rng.random() < phi``; if none came up, the slots at
    ``_sampling.at_least_one(len(slots), phi, rng)``), sets each picked unit ``i`` to
    ``options[int(rng.random() * count)]`` in order and joins the units (keyboard-typo); the
    protocol then keeps each spelling's plan and draws itself, without a call per visit.
    """

    name: str = ""
    description: str = ""
    scope: str = "word"
    reference: str = "words"
    token_aligned: bool = True
    prepares: bool = False
    keeps_ends: bool = False
    whole_words: bool = False
    draws: bool = True
    row = None
    slots = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.scope not in SCOPES:
            raise TypeError(f"{cls.__name__}.scope must be one of {', '.join(SCOPES)}, got "
                            f"{cls.scope!r}")
        if cls.reference not in REFERENCES:
            raise TypeError(f"{cls.__name__}.reference must be one of {', '.join(REFERENCES)}, "
                            f"got {cls.reference!r}")
        for hook, wanted in (("attack_at", cls.scope == "context"),
                             ("attack_drawn", cls.scope == "drawn"),
                             ("reference_sentence", cls.reference == "sentence")):
            own = getattr(cls, hook) is not getattr(Perturber, hook)
            if own != wanted:
                kind = {"attack_at": 'scope = "context"', "attack_drawn": 'scope = "drawn"',
                        "reference_sentence": 'reference = "sentence"'}[hook]
                raise TypeError(f"{cls.__name__}: {hook} is the hook of {kind}; "
                                + (f"declare {kind}" if own else f"define {hook}"))

    def can_change(self, word: str) -> bool:
        """Whether some draw of ``perturb_word`` returns something other than ``word``: exactly
        the words the protocol may count as perturbed (a property test ties the two)."""
        raise NotImplementedError

    def perturb_word(self, word: str, phi: float, rng: random.Random) -> str:
        raise NotImplementedError

    def candidates(self, word: str, k: int, rng: random.Random,
                   phi: float = CANDIDATE_PHI) -> list[str]:
        """Up to ``k`` distinct changed forms of ``word``, in the order they were found (none
        when it cannot change). Random perturbers sample ``perturb_word`` without duplicates,
        with a bounded number of draws; table-backed ones override this to return their rows
        in order."""
        k = check_int("k", k)
        if not self.can_change(word):
            return []
        found: dict[str, None] = {}
        for _ in range(4 * k + 8):
            new = self.perturb_word(word, phi, rng)
            if new != word:
                found[new] = None
                if len(found) == k:
                    break
        return list(found)

    def prepare(self, words: Iterable[str]) -> int:
        """Batch work for ``words`` before they are perturbed one by one (only where
        ``prepares``); results never depend on it. Returns how many words were prepared."""
        return 0

    def reference_word(self, word: str, phi: float, rng: random.Random) -> str:
        """``perturb_word`` as the original code did it, where that differs from the paper's
        reading (``protocol="reference"``, ``scope = "word"``)."""
        return self.perturb_word(word, phi, rng)

    def reference_sentence(self, words: list[str], gaps: list[str], p: float, phi: float,
                           rng: random.Random) -> int:
        """``reference = "sentence"``: the original code's sentence-level use, bypassing the
        word protocol: change ``words``/``gaps`` in place and return how many words changed."""
        raise NotImplementedError

    def attack_drawn(self, words: list[str], gaps: list[str], drawn: list[int], target: int,
                     phi: float, rng: random.Random) -> int:
        """``scope = "drawn"``: change the ``drawn`` words (in the protocol's order) until
        ``target`` changed, and return how many did. Read only ``words[k]`` and the gap after
        it, ``gaps[k + 1]``, for k in ``drawn``: the protocol may pass the split's one list
        (`tokenize.parts`, words at odd k) as both."""
        raise NotImplementedError

    def attack_at(self, words: list[str], gaps: list[str], k: int, phi: float,
                  rng: random.Random, done: bytearray) -> list[int]:
        """``scope = "context"``: attack word ``k`` in place; return the indices of the words
        that changed. ``words[i]`` is the i-th word token and ``gaps[i]`` the text before it
        (``gaps[-1]`` the tail); ``done[i]`` is set for words already perturbed."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
