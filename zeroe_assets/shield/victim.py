"""`ShieldedVictim`: the shield in front of any victim, so that the benchmark (``zeroe bench
evaluate --shield``) and the search (``zeroe search --shield``) measure a shielded model through
their usual paths: the wrapper is just another victim.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..formats import TOKEN_SEP
from ..tasks import Task, get_task
from ..victims import check_victim_task
from ..victims.wrapper import WrappedVictim
from .core import Shield
from .features import MECHANISMS

CACHE = 100_000  # restored texts kept (an NLI premise recurs in every candidate of its example)
TOKEN_UNSAFE = ("segment",)  # mechanisms that would split one token into two


class Restorations:
    """``shield``'s readings of a victim's queries, kept: an attacker asks for the same premise
    (and most of the same words) in every candidate of an example. A pair's hypothesis is read
    against its restored premise (`Shield.restore`'s ``anchor``)."""

    def __init__(self, shield: Shield):
        self.shield = shield
        self._kept: dict[tuple[str, str | None], str] = {}

    def text(self, text: str, anchor: str | None = None) -> str:
        restored = self._kept.get((text, anchor))
        if restored is None:
            if len(self._kept) >= CACHE:
                self._kept.clear()
            restored = self._kept[text, anchor] = self.shield.restore(text, anchor)
        return restored

    def pair(self, premise: str, hypothesis: str) -> tuple[str, str]:
        premise = self.text(premise)
        return premise, self.text(hypothesis, premise)


class ShieldedVictim(WrappedVictim):
    """``victim`` seeing every text field of its inputs restored by ``shield`` (default: all
    mechanisms), one batch at a time, as ``task`` (default the victim's own ``task``) gives them:
    texts; (premise, hypothesis) pairs, both restored, the hypothesis read against the restored
    premise (`Shield.restore`'s ``anchor``: a token one edit from a premise word is that word);
    token lists.

    Token lists (``pos``) keep their token count: the sentence's tokens are joined by line breaks,
    as `formats` gives token-aligned text to the perturbers, and restored as one text, so each
    token is read in context and no restoration crosses a line break. The mechanisms that split a
    token (``segment``) are left out there: token-aligned data has no joined words to undo (the
    benchmark refuses segmentation for it), so splitting one could only break a real token.

    Otherwise it reads as the victim (a `WrappedVictim`: ``labels``, ``scores`` when the victim
    is a `Scorer`...), so goals and the benchmark read it as they read the victim; ``name`` says
    it is shielded (``name``: what to call the victim, default its own name).
    """

    rewrites = True

    def __init__(self, victim, task: str | Task | None = None, shield: Shield | None = None,
                 name: str | None = None):
        from . import get_shield

        own = getattr(victim, "task", None)
        if task is None and own is None:
            raise ValueError("name the task the victim serves: ShieldedVictim(victim, task=...)")
        super().__init__(victim, name)
        task = get_task(task if task is not None else own)
        check_victim_task(own, task.name, self.name)
        if getattr(victim, "shield", None) is not None:  # a defense with the shield part
            raise ValueError(f"{self.name} has the shield in front already (its own mode, "
                             "defense.json's shield_guess): leave out --shield and "
                             "--shield-guess")
        shield = shield if shield is not None else get_shield()
        which = "" if shield.mechanisms == MECHANISMS else f"[{','.join(shield.mechanisms)}]"
        self.name = f"shielded{which} {self.name}"  # as asked for (tokens: without segment)
        if task.token_aligned and set(TOKEN_UNSAFE) & set(shield.mechanisms):
            kept = [m for m in shield.mechanisms if m not in TOKEN_UNSAFE]
            if not kept:
                raise ValueError(f"a shield of {', '.join(TOKEN_UNSAFE)} alone cannot restore "
                                 "token-aligned input: choose other mechanisms")
            shield = Shield(kept, root=shield.root, ranker=shield.ranker, guess=shield.guess)
        self.shield, self.inputs = shield, task.inputs
        self.task = task.name
        self.restorations = Restorations(shield)

    def seen(self, batch: Sequence) -> list:
        """The batch as the victim gets it: every text restored."""
        if self.inputs == "tokens":
            return [self._tokens(item) for item in batch]
        if self.inputs == "pair":
            return [self.restorations.pair(*_pair(item)) for item in batch]
        return [self.restorations.text(item) for item in batch]

    def _tokens(self, tokens: Sequence[str]) -> list[str]:
        if isinstance(tokens, str):
            raise ValueError(f"a pos input is a list of tokens, got the string {tokens!r}")
        if not tokens:
            return []
        return self.restorations.text(TOKEN_SEP.join(tokens)).split(TOKEN_SEP)


def _pair(item) -> Sequence[str]:
    if isinstance(item, str) or len(item) != 2:
        raise ValueError(f"an nli input is a (premise, hypothesis) pair, got {item!r}")
    return item
