"""The protocol's own shuffle makes exactly the draws of ``random.Random.shuffle``: outputs stay
what they were with the standard library's (and the golden file's)."""
import random

from hypothesis import given, strategies as st

from zeroe_assets.rng import shuffle


@given(st.integers(0, 2**64 - 1), st.integers(0, 300))
def test_shuffle_is_random_shuffle_draw_for_draw(seed, n):
    ours, theirs = random.Random(seed), random.Random(seed)
    items, expected = list(range(n)), list(range(n))
    shuffle(items, ours)
    theirs.shuffle(expected)
    assert items == expected
    assert ours.getstate() == theirs.getstate()  # the draws that follow are the same too
