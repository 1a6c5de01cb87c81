"""The neighbour-asset wrapper: exact cases, approximate vs brute force (ties tolerated), and the
round trip through the artifact store."""
from __future__ import annotations

import faiss
import numpy as np
import pytest

from zeroe_assets.assets import ArtifactError, load_component, write_component
from zeroe_assets.assets.index import (VectorIndex, agreement, choose_index, exact_neighbours,
                                       normalise)
from zeroe_assets.assets.tables import NeighbourTable


def test_identity_vectors_find_themselves():
    index = VectorIndex.build(np.eye(5), np.arange(10, 15))
    keys, scores = index.search(np.eye(5)[2], 1)
    assert keys.tolist() == [12] and scores.tolist() == [1.0]
    keys, scores = index.batch_search(np.eye(5), 2)
    assert keys[:, 0].tolist() == [10, 11, 12, 13, 14] and scores.shape == (5, 2)


def test_more_neighbours_than_vectors_are_not_invented():
    index = VectorIndex.build(np.eye(3), np.array(["x", "y", "z"]))
    keys, scores = index.search(np.eye(3)[0], 10)
    assert keys.tolist()[0] == "x" and len(keys) == 3


def test_batch_search_matches_brute_force_up_to_ties():
    rng = np.random.default_rng(0)
    vectors = normalise(rng.normal(size=(500, 16)))
    vectors[1] = vectors[0]  # a tie, as identical glyphs make
    index = VectorIndex.build(vectors, np.arange(500))
    queries = vectors[:50]
    _, ids = index.index.search(queries, 10)
    assert agreement(vectors, queries, ids, 10) == 1.0
    brute = np.sort(queries @ vectors.T, axis=1)[:, ::-1][:, :10]
    np.testing.assert_allclose(index.batch_search(queries, 10).scores, brute, rtol=1e-5, atol=1e-5)


def test_quantised_index_is_chosen_only_when_it_agrees():
    rng = np.random.default_rng(1)
    vectors = normalise(rng.normal(size=(2000, 32)))
    index, measured = choose_index(vectors, np.arange(2000), ["SQ4", "Flat"], 20, 0.999, sample=200)
    assert list(measured) == ["SQ4", "Flat"] and measured["Flat"] == 1.0 and measured["SQ4"] < 0.999
    index, measured = choose_index(vectors, np.arange(2000), ["SQ8", "Flat"], 20, 0.5, sample=200)
    assert list(measured) == ["SQ8"] and isinstance(index.index, faiss.IndexScalarQuantizer)


def test_round_trip_through_the_store(tmp_path):
    rng = np.random.default_rng(2)
    vectors = normalise(rng.normal(size=(50, 8)))
    keys = np.arange(100, 150, dtype=np.uint16)
    index = VectorIndex.build(vectors, keys)
    table = NeighbourTable(keys, np.tile(keys[:3], (50, 1)), np.ones((50, 3), np.float16))
    write_component("space", {**index.files("index"), **table.files("table")}, {"dims": 8},
                    root=tmp_path)
    comp = load_component("space", tmp_path)
    loaded = VectorIndex.from_component(comp, "index")
    assert loaded.keys.dtype == np.uint16 and 120 in loaded and 99 not in loaded
    np.testing.assert_allclose(loaded.vector(120), vectors[20], atol=1e-6)
    loaded_table = NeighbourTable.from_component(comp, "table")
    assert loaded_table.k == 3 and loaded_table.reads is None  # a table never re-ranked
    reads = np.ones((50, 3), np.float16)
    reads[0, 1] = 0.5
    write_component("space", {**index.files("index"),
                              **NeighbourTable(keys, table.neighbours, table.scores, reads
                                               ).files("table")}, {"dims": 8}, root=tmp_path)
    again = NeighbourTable.from_component(load_component("space", tmp_path), "table")
    assert np.array_equal(again.reads, reads)


def test_mismatched_files_are_reported(tmp_path):
    index = VectorIndex.build(np.eye(4), np.arange(4))
    files = index.files("index")
    files["index.keys.npy"] = VectorIndex.build(np.eye(3), np.arange(3)).files()["index.keys.npy"]
    write_component("space", files, {}, root=tmp_path)
    with pytest.raises(ArtifactError, match="do not match"):
        VectorIndex.from_component(load_component("space", tmp_path), "index")
    write_component("space", index.files("index"), {"dims": 5}, root=tmp_path)
    with pytest.raises(ArtifactError, match="4-dim index.*says 5 dims"):
        VectorIndex.from_component(load_component("space", tmp_path), "index")
    with pytest.raises(ValueError, match="table shapes"):
        NeighbourTable(np.arange(3), np.zeros((2, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"reads \(3, 1\)"):
        NeighbourTable(np.arange(3), np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((3, 1)))


def test_exact_neighbours_leave_each_row_out():
    rng = np.random.default_rng(3)
    vectors = normalise(rng.normal(size=(40, 6)))
    vectors[1] = vectors[0]  # a duplicate is a neighbour, not itself
    index = VectorIndex.build(vectors, np.arange(100, 140))
    np.testing.assert_allclose(index.vectors(), vectors, atol=1e-6)
    ids, sims = index.exact_neighbours(5)
    assert ids.shape == (40, 5) and not (ids == np.arange(40)[:, None]).any()
    assert ids[0, 0] == 1 and ids[1, 0] == 0
    brute = np.sort(np.where(np.eye(40, dtype=bool), -np.inf, vectors @ vectors.T), 1)[:, ::-1]
    np.testing.assert_allclose(sims, brute[:, :5], rtol=1e-5, atol=1e-5)
    assert exact_neighbours(vectors[:3], 10, chunk=2)[0].shape == (3, 2)  # capped at the others
    with pytest.raises(ValueError, match="at least two"):
        exact_neighbours(vectors[:1], 3)
