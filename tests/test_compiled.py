"""The user cache of compiled tables (`zeroe_assets.data.compiled`): a second read comes from it,
any change of the file reads it again, a damaged cache file is rebuilt and never trusted, and
a cache that cannot be written costs nothing but the read."""
import os

import pytest

from zeroe_assets.data import _read_misspellings, codespell_dictionary, read_misspellings
from zeroe_assets.data.compiled import compiled

TABLE = "hello helo hallo\nworld wrold\n"


def counted(calls):
    def read(path):
        calls.append(path)
        return _read_misspellings(path)

    read.__module__, read.__qualname__ = __name__, "counted.read"
    return read


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("ZEROE_CACHE_DIR", str(folder))
    return folder


def test_a_second_read_comes_from_the_cache_and_a_changed_file_is_read_again(tmp_path, cache):
    path, calls = tmp_path / "en.natural", []
    path.write_text(TABLE)
    read = counted(calls)
    first = compiled(read, path)
    assert first == {"hello": ("helo", "hallo"), "world": ("wrold",)} and len(calls) == 1
    assert compiled(read, path) == first and len(calls) == 1  # from the cache
    assert len(list(cache.iterdir())) == 1
    path.write_text(TABLE + "again agian\n")
    assert compiled(read, path)["again"] == ("agian",) and len(calls) == 2
    os.utime(path, ns=(1, 1))  # the same bytes, another modification time: read again
    assert compiled(read, path)["again"] == ("agian",) and len(calls) == 3
    assert compiled(read, path)["again"] == ("agian",) and len(calls) == 3


@pytest.mark.parametrize("damage", ["flip", "cut", "empty", "garbage", "header"])
def test_a_damaged_cache_file_is_rebuilt_never_trusted(tmp_path, cache, damage):
    path, calls = tmp_path / "en.natural", []
    path.write_text(TABLE)
    read = counted(calls)
    expected = compiled(read, path)
    (stored,) = cache.iterdir()
    blob = bytearray(stored.read_bytes())
    if damage == "flip":  # one changed letter of a typo: still valid marshal data
        at = blob.index(b"wrold")
        blob[at] = ord("x")
    changed = {"flip": bytes(blob), "cut": bytes(blob[:len(blob) // 2]), "empty": b"",
               "garbage": os.urandom(len(blob)), "header": b"X" + bytes(blob[1:])}[damage]
    stored.write_bytes(changed)
    assert compiled(read, path) == expected and len(calls) == 2  # read again
    assert compiled(read, path) == expected and len(calls) == 2  # and stored whole again


def test_no_cache_where_it_cannot_be_written_or_is_turned_off(tmp_path, monkeypatch):
    path, calls = tmp_path / "en.natural", []
    path.write_text(TABLE)
    read = counted(calls)
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("ZEROE_CACHE_DIR", str(blocked / "cache"))
    assert compiled(read, path) == compiled(read, path) and len(calls) == 2
    monkeypatch.setenv("ZEROE_CACHE_DIR", "")
    assert compiled(read, path)["world"] == ("wrold",) and len(calls) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "en.natural"]


def test_a_missing_file_is_the_reader_s_error(tmp_path, cache):
    with pytest.raises(ValueError, match="no such file"):
        read_misspellings(tmp_path / "missing.natural")
    assert not cache.exists()


def test_codespell_s_table_from_the_cache_is_the_table_read_from_its_file(cache):
    path = codespell_dictionary()
    fresh = _read_misspellings(path)
    assert compiled(_read_misspellings, path) == fresh  # built
    loaded = compiled(_read_misspellings, path)  # loaded
    assert loaded == fresh and list(loaded) == list(fresh)  # the same keys in the same order
    assert all(list(loaded[k]) == list(fresh[k]) for k in fresh)


def test_the_shields_language_lists_are_read_once_then_loaded_compiled(cache, monkeypatch):
    """The seven pyspellchecker lists the shield's language check reads (2 s of its start-up):
    from the second process on they come from the cache, the same words in the same order."""
    from zeroe_assets.data import spellchecker_path
    from zeroe_assets.shield import language

    path = spellchecker_path("nl")
    first = compiled(language._top, path)
    assert len(first) == language.TOP and len(list(cache.iterdir())) == 1
    monkeypatch.setattr(language, "spellchecker_text", None)  # no reading now: the cache answers
    again = compiled(language._top, path)
    assert again == first and list(again) == list(first)
