"""Charmer (Abad Rocamora et al. 2024) against the real victims of test_search: the goal met in
at most k character edits (Levenshtein), its slots, one victim call per probe step and per
candidate step, the budget exact, determinism, another transformation as its alphabet, and
both new recipes through `zeroe search` with identical results for any -j."""
from __future__ import annotations

import json

import pytest
from rapidfuzz.distance import Levenshtein

from zeroe_assets.cli import main
from zeroe_assets.constraints import EditDistance, Protected
from zeroe_assets.search import (AnyCharacter, AttackedText, Charmer, Classification,
                                 SearchAttack, get_recipe, get_transformation)
from zeroe_assets.search.results import EXHAUSTED, SKIPPED, SUCCESSFUL

from .attack_fixtures import needs_olid, olid  # noqa: F401  (olid: a fixture)
from .test_search import BAD, Counting, _label, examples, tc  # noqa: F401  (fixtures)


def _charmer(k=3, positions=5, constraints=(), width=1, scan=False, lexicon=(), merges=False,
             **options):
    return SearchAttack(AnyCharacter(), [EditDistance(absolute=k), *constraints],
                        Classification("tc"),
                        Charmer(positions, k, width=width, scan=scan, lexicon=lexicon,
                                merges=merges),
                        **options)


def test_slots_insert_replace_and_delete():
    put = AnyCharacter.put
    assert [put("cat", s, "x") for s in range(7)] == \
        ["xcat", "xat", "cxat", "cxt", "caxt", "cax", "catx"]
    assert put("cat", 3, "") == "ct" and put("cat", 2, "") == "cat"
    text = AttackedText.from_input("text", "the cat sat")
    assert [t.key for t in AnyCharacter.at_slot(text, 1, 1, ["", "b", "c"])] == \
        ["the at sat", "the bat sat"]  # the same character again is no change
    assert AnyCharacter.slots(text, 1) == 9  # "cat" and the gap " " after it
    assert [t.key for t in AnyCharacter.at_slot(text, 1, 7, ["", "x"])] == \
        ["the catsat", "the catxsat"]  # the gap's space deleted, or replaced
    assert [t.key for t in AnyCharacter.at_slot(text, 1, 8, ["", "x"])] == ["the cat xsat"]
    assert AnyCharacter.at_slot(text, 1, 8, ["x"])[0].modified == {1}  # counts as the word's
    alphabet = AnyCharacter().characters(text)
    assert alphabet[0] == "" and set("abcxyz ") <= set(alphabet)  # the text's and a–z
    assert AnyCharacter("xy").characters(text) == ["", "x", "y"]


def test_goal_met_within_k_character_edits(tc, examples):
    for k in (1, 3):
        results = [_charmer(k).run(e, tc, i) for i, e in enumerate(examples[:12])]
        won = [r for r in results if r.status == SUCCESSFUL]
        assert len(won) >= (3 if k == 1 else 8), results
        for r in won:
            assert _label(tc, r.adversarial) != _label(tc, r.original)
            assert 1 <= Levenshtein.distance(r.original, r.adversarial) <= k
        for r in results:
            assert Levenshtein.distance(r.original, r.adversarial) <= k


def test_a_step_is_one_probe_call_and_one_candidate_call(tc, examples):
    victim = Counting(tc)
    text, gold = examples[0]
    attack = _charmer(k=1, positions=4)
    attack.run((text, gold), victim)
    original, probes, candidates = victim.batches
    assert original == [text]
    attacked = AttackedText.from_input("text", text)
    slots = sum(AnyCharacter.slots(attacked, p) for p in range(len(attacked)))
    assert len(probes) == len(set(probes)) <= slots
    assert all(len(p) in (len(text), len(text) + 1) and " " in p for p in probes)
    alphabet = len(AnyCharacter().characters(AttackedText.from_input("text", text)))
    assert 0 < len(candidates) <= 4 * alphabet  # the whole alphabet at the 4 best slots only


def test_few_slots_are_tried_without_probing(tc):
    victim = Counting(tc)
    _charmer(k=1, positions=50).run(("pathetic", 1), victim)
    assert len(victim.batches) == 2  # 17 slots ≤ 50: no probe call


@pytest.mark.parametrize("budget", [1, 2, 40, 333])
@pytest.mark.parametrize("width, scan, lexicon, merges",
                         [(1, False, (), False), (3, False, (), False), (3, True, (), False),
                          (1, False, BAD, False), (3, True, BAD, False), (1, False, (), True),
                          (3, False, BAD, True)])
def test_never_over_budget(tc, examples, budget, width, scan, lexicon, merges):
    for i, example in enumerate(examples[:6]):
        victim = Counting(tc)
        r = _charmer(k=4, width=width, scan=scan, lexicon=lexicon, merges=merges,
                     max_queries=budget).run(example, victim, i)
        assert r.queries == len(victim.sent) == len(set(victim.sent)) <= budget
        if budget == 1 and r.status != SKIPPED:
            assert r.status == EXHAUSTED


def test_scan_tries_every_slot_first_then_the_best_of_it(tc, examples):
    text, gold = examples[0]
    victim = Counting(tc)
    _charmer(k=2, positions=4, scan=True).run((text, gold), victim)
    attacked = AttackedText.from_input("text", text)
    alphabet = len(AnyCharacter().characters(attacked))
    slots = [AnyCharacter.slots(attacked, p) for p in range(len(attacked))]
    original, first, *rest = victim.batches
    assert original == [text] and len(first) > 4 * alphabet  # every slot, no probe call
    assert all(Levenshtein.distance(text, t) == 1 for t in first) and len(first) <= \
        sum(slots) * alphabet
    assert len(rest) <= 1  # k = 2: one more step, one call of candidates: the changed word's
    assert all(len(b) <= (max(slots) + 2 + 4) * alphabet for b in rest)  # slots and 4 more


def test_a_beam_step_is_still_one_probe_call_and_one_candidate_call(tc, examples):
    with pytest.raises(ValueError, match="width must be an integer at least 1"):
        Charmer(width=0)
    assert repr(Charmer()) == "Charmer(positions=20, max_edits=10, pruned=False, width=1, " \
        "scan=False)"
    won = 0
    for i, (text, gold) in enumerate(examples[:8]):
        victim = Counting(tc)
        r = _charmer(k=3, positions=4, width=3).run((text, gold), victim, i)
        alphabet = len(AnyCharacter().characters(AttackedText.from_input("text", text)))
        original, *steps = victim.batches
        assert original == [text] and len(steps) % 2 == 0
        for probes, candidates in zip(steps[::2], steps[1::2]):
            assert all(len(p) in range(len(text) - 2, len(text) + 4) for p in probes)
            assert len(candidates) <= 3 * 4 * alphabet  # the 4 best slots of 3 texts
        assert Levenshtein.distance(r.original, r.adversarial) <= 3
        if r.status == SUCCESSFUL:
            won += 1
            assert _label(tc, r.adversarial) != _label(tc, r.original)
    assert won >= 4


@pytest.mark.parametrize("width", [1, 2])
def test_a_lexicon_word_is_written_in_the_step_its_characters_reach(tc, width):
    text = "@USER the coach is lovely and the show was kind today URL"  # not offensive
    lexicon = ("LOVERS", "kid", "zzzzzzzz")  # 2 characters from lovely, 1 from kind; too far
    charmer = Charmer(4, 3, width=width, lexicon=lexicon)
    assert repr(charmer).endswith("lexicon=3 words, reach=2)")
    victim = Counting(tc)
    r = SearchAttack(AnyCharacter(), [EditDistance(absolute=3)], Classification("tc"),
                     charmer).run((text, 0), victim)
    original, *steps = victim.batches
    kid, lovers = text.replace("kind", "kid"), text.replace("lovely", "lovers")
    assert kid in steps[1] and lovers not in steps[1]  # step 1: one character only
    assert len(steps) >= 4 and lovers in steps[3]  # step 2: two characters from the original
    for step, (probes, candidates) in enumerate(zip(steps[::2], steps[1::2]), 1):
        assert all(Levenshtein.distance(text, t) <= step for t in probes + candidates)
    assert r.status == SUCCESSFUL and Levenshtein.distance(text, r.adversarial) <= 3


def test_merges_probe_a_gap_space_by_deleting_it(tc):
    """With ``merges`` the probe of the slot that replaces the space after a word merges the
    two words (a space there changes nothing); the other slots' probes stay; a step is still
    one probe call and one candidate call."""
    text = "@USER the coach is pathetic today URL"
    assert repr(Charmer(merges=True)).endswith("scan=False, merges=True)")
    batches = {}
    for merges in (False, True):
        victim = Counting(tc)
        _charmer(k=1, positions=3, merges=merges).run((text, 1), victim)
        original, probes, candidates = victim.batches
        batches[merges] = probes
        assert original == [text] and len(candidates) <= 3 * 50
    merged = {"@USER thecoach is pathetic today URL", "@USER the coachis pathetic today URL",
              "@USER the coach ispathetic today URL", "@USER the coach is pathetictoday URL"}
    assert merged <= set(batches[True]) and not merged & set(batches[False])
    assert set(batches[False]) - {text} <= set(batches[True])  # the other probes stay


def test_constraints_choose_the_words(tc):
    text = "@USER the coach is pathetic today URL"
    r = _charmer(k=3, constraints=[Protected()]).run((text, 1), tc)
    assert r.adversarial.startswith("@USER ") and r.adversarial.endswith(" URL")


def test_deterministic_and_recipe(tc, examples):
    attack = get_recipe("charmer", "tc", max_queries=20000)
    assert isinstance(attack.method, Charmer) and attack.method.max_edits == 10
    assert not attack.method.scan and attack.method.width == 1  # Charmer's own search
    first = [attack.run(e, tc, i) for i, e in enumerate(examples[:5])]
    again = [attack.run(e, tc, i) for i, e in reversed(list(enumerate(examples[:5])))]
    assert first == again[::-1]
    assert sum(r.status == SUCCESSFUL for r in first) >= 3


def test_another_transformation_as_its_alphabet(tc, examples):
    attack = get_recipe("charmer", "tc", transformations="keyboard-typo,truncate",
                        max_queries=3000)
    assert attack.transformation.name == "keyboard-typo|truncate"
    results = [attack.run(e, tc, i) for i, e in enumerate(examples[:8])]
    assert any(r.status == SUCCESSFUL for r in results)
    for r in results:
        assert Levenshtein.distance(r.original, r.adversarial) <= 10
    assert get_transformation("any-char").name == "any-char"


@needs_olid
@pytest.mark.parametrize("recipe", ["charmer", "bad-characters"])
def test_cli_results_identical_for_any_j(recipe, olid, tmp_path):  # noqa: F811
    data, model = olid
    outs = []
    for j in ("1", "2"):
        out = tmp_path / f"j{j}"
        assert main(["search", "--task", "tc", "--victim", "tc-tfidf", "--victim-path",
                     str(model), "--input", str(data), "--recipe", recipe, "--max-queries",
                     "300", "--limit", "6", "--out", str(out), "-q", "-j", j]) == 0
        outs.append((out / "results.jsonl").read_bytes())
    assert outs[0] == outs[1]
    results = [json.loads(line) for line in outs[0].decode().splitlines()]
    assert len(results) == 6 and all(r["queries"] <= 300 for r in results)
    if recipe == "bad-characters":  # the report spells out what cannot be seen
        assert "code points: " in (tmp_path / "j1" / "report.md").read_text(encoding="utf-8")


def test_tokens_and_pairs():
    """A pos token list stays aligned (edits stay inside their token); an NLI pair's premise
    stays unless asked."""
    from zeroe_assets.victims.sklearn import train_victim

    from .test_search import _pairs, _tagged

    tagger = train_victim("pos-features", *_tagged(150))
    sentence, tags = _tagged(1, seed=3)[0][0], _tagged(1, seed=3)[1][0]
    r = get_recipe("charmer", "pos", max_queries=200).run((sentence, tags), tagger)
    assert r.queries <= 200 and len(r.adversarial) == len(sentence)
    nli = train_victim("nli-tfidf", *_pairs(300))
    pairs, labels = _pairs(6, seed=2)
    attack = get_recipe("charmer", "nli", max_queries=300)
    for i, (pair, label) in enumerate(zip(pairs[:3], labels)):
        r = attack.run((pair, label), nli, i)
        assert r.queries <= 300 and r.adversarial[0] == pair[0]
        assert r.adversarial[1] != pair[1]  # the hypothesis was edited


def test_pruning_undoes_unneeded_words_with_their_gaps(tc, examples):  # noqa: F811
    text = AttackedText.from_input("text", "@USER the coach is pathetic today URL")
    edited = AnyCharacter.at_slot(text, 2, 12, ["x"])[0]  # the gap after "coach": " x"
    edited = AnyCharacter.at_slot(edited, 3, 1, ["x"])[0]  # "is" → "xs"
    assert edited.key == "@USER the coach xxs pathetic today URL" and edited.modified == {2, 3}
    back = edited.restored(text, 2)
    assert back.word(2) == "coach" and back.gap_after(2) == " " and back.modified == {3}
    assert back.restored(text, 3).key == text.key
    plain, pruned = (SearchAttack(AnyCharacter(), [EditDistance(absolute=6)],
                                  Classification("tc"), Charmer(5, 6, pruned=p),
                                  max_queries=20000) for p in (False, True))
    fewer = 0
    for i, example in enumerate(examples[:8]):
        a, b = plain.run(example, tc, i), pruned.run(example, tc, i)
        assert a.status == b.status
        if b.status == SUCCESSFUL:
            assert _label(tc, b.adversarial) != _label(tc, b.original)
            assert b.perturbed <= a.perturbed and b.queries >= a.queries
            fewer += b.perturbed < a.perturbed
    assert fewer >= 1  # here example 4: two words changed, one needed
