"""Words the lexicon lacks that are spelled right all the same, found by rule rather than by
list: a shield that reads them as attacks breaks clean text (movie reviews: `marveled` →
*marvelled*, `humorless` → *humourless*, `impetuousness` → *impetuous ness*).

- The American spelling of a word the lexicon has in its British form (its Google-books counts
  favour one): a single *l* before a suffix (marveled, traveling), *-or* for *-our* (humorless),
  *-er* for *-re* (lackluster, theater), *-ize* for *-ise*.
- A word derived from a lexicon word by a productive suffix (impetuousness, lethargically,
  preposterousness), the stem long enough that a typo is unlikely to make one (`earl` + `ly` is a
  slip for *early*), its final *y* written *i* as English spells it (hammy: hammily,
  hamminess). Not *-y* after a stem (stagey, stagy from *stage*): one edit of too many words
  lands on such a form (`culmsy` for *clumsy*, `merley` for *merely*, `Threy` for *They*).
- A negated auxiliary written without its apostrophe (isnt, didnt, havent, aint): how people
  type *isn't*, which the restorers would read as *inst*, *did*, *have*, *anti*.
"""
from __future__ import annotations

import re

from .lexicon import Lexicon

MIN_STEM = 5  # letters of the stem before a suffix, or before the single l
MIN_OR = 6  # letters of an -or word (hor, flor, tors are slips for hour, floor, tours)
# not -like: "would like", "feels like" joined by the segment attack read as one word
SUFFIXES = ("ness", "ally", "ly", "less", "ful", "ish", "esque")
# the auxiliaries whose n't form loses its apostrophe in writing (cant and wont are words)
NEGATED = frozenset("is was are were do does did have has had could would should must need "
                    "might ai".split())
_BRITISH = (
    (re.compile(r"(?<=[aeiou])l(?=(ed|ing|er|ers|ous|ously)$)"), "ll"),
    (re.compile(r"or(?=(s|ed|ing|less|ful|ite|ites|able|ably)?$)"), "our"),
    (re.compile(r"(?<=[bt])er(?=s?$)"), "re"),
    (re.compile(r"iz(?=(e|ed|es|ing|ation|ations)$)"), "is"),
)


def british(word: str) -> list[str]:
    """The British spellings of the American ``word`` (lower case), one rule at a time."""
    out = []
    for pattern, british_form in _BRITISH:
        match = pattern.search(word)
        if match and (british_form != "ll" or match.start() >= MIN_STEM) \
                and (british_form != "our" or len(word) >= MIN_OR):
            out.append(word[:match.start()] + british_form + word[match.end():])
    return out


def derived(word: str, lexicon: Lexicon) -> bool:
    """Whether ``word`` (lower case) is a lexicon word of `MIN_STEM` letters or more plus one of
    `SUFFIXES`, the stem spelled as the suffix asks (`stems`)."""
    return any(word.endswith(s) and len(word) - len(s) >= MIN_STEM
               and any(stem in lexicon for stem in stems(word[:-len(s)], s))
               for s in SUFFIXES)


def stems(base: str, suffix: str) -> tuple[str, ...]:
    """How the stem before ``suffix`` may be spelled in the lexicon: as written, and with its
    final *i* a *y* before a suffix that starts with a consonant (hammi-ly: hammy)."""
    if base.endswith("i") and suffix[0] not in "aeiou":
        return base, base[:-1] + "y"
    return (base,)


def spelled_right(word: str, lexicon: Lexicon) -> bool:
    """Whether ``word`` (lower case, not in the lexicon) is a right spelling the lexicon lacks:
    the American form of a lexicon word, a derived word, or a negation without its apostrophe."""
    return word.isascii() and word.isalpha() \
        and (any(b in lexicon for b in british(word)) or derived(word, lexicon)
             or word.endswith("nt") and word[:-2] in NEGATED)
