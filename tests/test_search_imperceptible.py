"""Bad Characters (Boucher et al. 2022): the display model and the pixel check, the four
imperceptible transformations (every candidate displays as the original), and the recipe
against the real victim of test_search (goal met, every adversarial text identical on screen,
budget exact)."""
from __future__ import annotations

import random

import pytest

from zeroe_assets.search import AttackedText, Edit, get_recipe, get_transformation
from zeroe_assets.search.display import (BACKSPACE, PDF, RLO, RendersIdentically, _font,
                                         _laid_out_alike, codepoints, displayed,
                                         renders_identically, same_glyph)
from zeroe_assets.search.imperceptible import homoglyphs, swapped
from zeroe_assets.search.results import SUCCESSFUL

from .test_search import Counting, _label, examples, tc  # noqa: F401  (fixtures)

KINDS = ("bad-invisible", "bad-homoglyph", "bad-reorder", "bad-deletion")


def test_display_model():
    assert displayed("ab" + BACKSPACE + "c") == "ac"
    assert displayed("x" + swapped("a", "b") + "y") == "xaby"  # stored "b", "a"
    assert displayed(RLO + "abc" + PDF) == "cba"  # an override reverses
    assert displayed("a\u200bb\u200dc") == "abc"  # zero-width characters draw nothing
    assert displayed("shalom \u05e9\u05dc\u05d5\u05dd") is None  # right-to-left: not modelled


def test_pixel_check_tells_visible_changes():
    assert renders_identically("you idiot", "you idiot")
    assert renders_identically("a cat", "a c\u0430t")  # Cyrillic а draws as Latin a
    assert not renders_identically("you idiot", "you idoit")
    assert not renders_identically("a cat", "a c\u0251t")  # Latin alpha ɑ draws differently
    assert not renders_identically("a cat", "a c\u0430t!")
    assert renders_identically("cat", "catx" + BACKSPACE)
    assert not renders_identically("cat", "cat" + BACKSPACE + "x")  # erases the t
    assert not renders_identically("shalom", "shalom \u05e9")
    assert codepoints("a\u200bb" + BACKSPACE) == "a<U+200B>b<U+0008>"


def test_kerning_tells_a_homoglyph_and_the_constraint_refuses_it():
    # Cyrillic і draws as i on its own, but DejaVu Sans kerns F + і unlike F + i
    assert same_glyph("i", "\u0456") and renders_identically("fiona", "f\u0456ona")
    assert not renders_identically("this is Fiona", "this is F\u0456ona")
    text = AttackedText.from_input("text", "this is Fiona and fiona")
    fiona = [text.apply(Edit(0, ((i, word.replace("i", "\u0456")),), (), (i,)))
             for i, word in ((2, "Fiona"), (4, "fiona"))]
    constraint = RendersIdentically()
    assert constraint.filter(text, fiona) == fiona[1:]
    # the original's windows it remembers are that original's: another's are built anew
    swapped_names = AttackedText.from_input("text", "this is fiona and Fiona")
    assert constraint.filter(swapped_names, [swapped_names.apply(e) for e in (
        Edit(0, ((2, "f\u0456ona"),), (), (2,)), Edit(0, ((4, "F\u0456ona"),), (), (4,)))]) == \
        [swapped_names.apply(Edit(0, ((2, "f\u0456ona"),), (), (2,)))]
    joined = text.apply(Edit(0, (), ((3, ""),), (2,)))  # "Fionaand": a gap changed, no word
    assert not RendersIdentically().check(text, joined)


def _drawn(line: str) -> bytes:
    """``line`` drawn as ``display.render`` draws it, afresh (no shortcut, no memory)."""
    from PIL import Image, ImageDraw

    face = _font(None, 18)
    canvas = Image.new("L", (max(1, int(face.getlength(line)) + 36), 36))
    ImageDraw.Draw(canvas).text((9, 9), line, font=face, fill=255)
    return canvas.size, canvas.tobytes()


def test_lines_called_alike_without_drawing_draw_alike():
    # the shortcut (glyphs drawn alike, neighbours kerned alike) against the drawing itself,
    # on windows with one to three homoglyphs, kerning pairs among them (F, T, V, W, Y, L, P)
    table, rng = homoglyphs(), random.Random(0)
    texts = ("Fiona", "To you", "We saw it", "Yes, Avery", "LOL at Tyler", "Pity, Vicky",
             "you are a complete idiot", "@USER why would you do that?", "F*** off, Jo")
    shortcut = agree = 0
    for _ in range(600):
        text = rng.choice(texts)
        places = [i for i, c in enumerate(text) if c in table]
        chars = list(text)
        for i in rng.sample(places, min(len(places), rng.choice((1, 1, 2, 3)))):
            chars[i] = rng.choice(table[chars[i]])
        attacked = "".join(chars)
        same = _drawn(text) == _drawn(attacked)
        assert renders_identically(text, attacked) == same, codepoints(attacked)
        if _laid_out_alike(text, attacked, None):
            assert same, codepoints(attacked)
            shortcut += 1
        agree += same
    assert 0 < shortcut <= agree < 600  # kerning tells some apart, the shortcut takes most


def test_homoglyphs_draw_the_same_pixels():
    table = homoglyphs()
    assert "\u0430" in table["a"] and "\u0435" in table["e"]
    for letter, glyphs in table.items():
        for g in glyphs:
            assert not g.isascii() and same_glyph(letter, g)


@pytest.mark.parametrize("name", KINDS)
def test_every_candidate_displays_as_the_original(name):
    transformation = get_transformation(name)
    sentence = "@USER you are a complete idiot and a loser"
    forms = transformation.forms("idiot", 1000, random.Random(0))
    assert forms and len(set(forms)) == len(forms)
    for form in forms:
        attacked = sentence.replace("idiot", form)
        assert attacked != sentence and renders_identically(sentence, attacked), \
            codepoints(attacked)
    drawn = transformation.forms("idiot", 5, random.Random(1))
    assert len(drawn) == min(5, len(forms)) and set(drawn) <= set(forms)
    assert drawn == transformation.forms("idiot", 5, random.Random(1))


def test_recipe_flips_the_victim_invisibly_within_budget(tc, examples):
    attack = get_recipe("bad-characters", "tc", max_queries=400)
    results = []
    for i, example in enumerate(examples[:10]):
        victim = Counting(tc)
        results.append(attack.run(example, victim, i))
        assert results[-1].queries == len(victim.sent) <= 400
    won = [r for r in results if r.status == SUCCESSFUL]
    assert len(won) >= 6, results
    for r in won:
        assert r.adversarial != r.original and renders_identically(r.original, r.adversarial)
        assert _label(tc, r.adversarial) != _label(tc, r.original)
    limited = get_recipe("bad-characters", "tc", max_perturbed=1, max_queries=400)
    assert all(r.perturbed <= 1 for r in (limited.run(e, tc, i)
                                          for i, e in enumerate(examples[:4])))
