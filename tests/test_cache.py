"""The user cache (asl_terrain.cache): a map or chart read back from it rules exactly as one decoded afresh,
a damaged entry is derived again, and ``ASL_TERRAIN_CACHE=off`` keeps nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from asl_terrain import cache, mapfile
from asl_terrain.ask import answer_all
from asl_terrain.chart import _bundled_text
from asl_terrain.model import Map, demo_map_path

QUERIES = [
    {"kind": "los", "from": "A1", "to": "C5"},
    {"kind": "los", "from": "E3", "to": "J6"},
    {"kind": "move", "unit": "infantry", "from": "B2", "to": "B3"},
    {"kind": "reach", "unit": "infantry", "from": "D4", "mf": 4},
    {"kind": "tem", "target": "C3", "firer": "A1"},
]


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("ASL_TERRAIN_CACHE", str(root))
    return root


def _demo_copy(tmp_path: Path) -> Path:
    p = tmp_path / "demo.toml"
    shutil.copyfile(demo_map_path(), p)
    return p


def _answers(m: Map) -> list[object]:
    return answer_all(m, QUERIES)


def test_a_map_read_back_from_the_cache_rules_as_a_fresh_one(tmp_path: Path, fresh_cache: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    p = _demo_copy(tmp_path)
    first = Map.load(p)
    assert list((fresh_cache / "maps").iterdir()), "the first load keeps the validated map"

    def no_decoding(*_: object) -> object:
        raise AssertionError("the second load decoded the file again")

    monkeypatch.setattr(mapfile, "read_map_document", no_decoding)
    second = Map.load(p)
    assert second is not first and second.source == str(p)
    assert _answers(second) == _answers(first)
    assert second.derived("k", lambda: 1) == 1  # its own lock and caches work after the round trip


def test_an_edited_map_is_not_read_from_the_cache(tmp_path: Path, fresh_cache: Path) -> None:
    p = _demo_copy(tmp_path)
    Map.load(p)
    text = p.read_text(encoding="utf-8")
    p.write_text(text.replace('"Haldenrath"', '"edited"', 1), encoding="utf-8")
    assert Map.load(p).name == "edited"
    assert len(list((fresh_cache / "maps").iterdir())) == 2


def test_a_damaged_entry_is_derived_again(tmp_path: Path, fresh_cache: Path) -> None:
    p = _demo_copy(tmp_path)
    good = _answers(Map.load(p))
    for f in (fresh_cache / "maps").iterdir():
        f.write_bytes(b"not a pickle")
    assert _answers(Map.load(p)) == good
    for f in (fresh_cache / "maps").iterdir():
        f.write_bytes(f.read_bytes()[:100])  # truncated
    assert _answers(Map.load(p)) == good


def test_a_bad_map_file_is_refused_whatever_the_cache_holds(tmp_path: Path, fresh_cache: Path) -> None:
    p = _demo_copy(tmp_path)
    Map.load(p)
    p.write_text("format = 'asl-terrain/1'\ncolumns = 'x'\n", encoding="utf-8")
    with pytest.raises(mapfile.MapError):
        Map.load(p)


def test_cache_off_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASL_TERRAIN_CACHE", "off")
    assert cache.cache_dir() is None
    p = _demo_copy(tmp_path)
    Map.load(p)
    cache.write("maps", "k", b"x")
    assert cache.read("maps", "k") is None
    assert not any(tmp_path.rglob("*.pickle"))


def test_the_chart_document_read_back_equals_tomllib(fresh_cache: Path) -> None:
    import tomllib

    text = _bundled_text()
    assert cache.toml_document(text, "chart") == tomllib.loads(text)
    assert list((fresh_cache / "chart").iterdir())
    assert cache.toml_document(text, "chart") == tomllib.loads(text)  # read back


def test_keys_depend_on_every_part() -> None:
    assert cache.key(b"a", "b") != cache.key(b"ab")
    assert cache.key(b"a", "b") == cache.key(b"a", "b")


def test_a_board_archive_read_back_from_the_cache_equals_the_archive(tmp_path: Path, fresh_cache: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from asl_terrain import vasl
    from asl_terrain.vasl import archive

    data = vasl.vasl_data_dir()
    if data is None:
        pytest.skip("the VASL board archives (../shared/vasl) are not here")
    copy = tmp_path / "bd01"
    shutil.copyfile(data / "boards" / "bd01", copy)
    first = vasl.read_board(copy)
    assert list((fresh_cache / "boards").iterdir())

    def no_decoding(*_: object) -> object:
        raise AssertionError("the second read decoded the archive again")

    monkeypatch.setattr(archive, "_read_board_file", no_decoding)
    moved = tmp_path / "again"
    moved.mkdir()
    shutil.copyfile(copy, moved / "bd01")
    second = vasl.read_board(moved / "bd01")
    assert second.path == moved / "bd01" and second.archive_name == "bd01"
    assert np.array_equal(second.terrain, first.terrain) and np.array_equal(second.elevation, first.elevation)
    assert (second.width, second.height, second.stairways) == (first.width, first.height, first.stairways)


def test_every_kind_is_trimmed_to_its_bound_least_recently_used_first(fresh_cache: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Each kind of entry (not only the artwork's) is bounded: past cache.LIMIT_BYTES the entries written or
    read least recently go first, the one just written stays, and a temporary file left by a process that died
    an hour ago is removed."""
    import os

    for i, k in enumerate(("a", "b", "c")):
        cache.write("los-shapes", k, b"x" * 1000, ".shelf")
        os.utime(fresh_cache / "los-shapes" / f"{k}.shelf", ns=(10**18 + i, 10**18 + i))
    left = fresh_cache / "los-shapes" / ".tmp-dead.tmp"
    left.write_bytes(b"half")
    os.utime(left, ns=(10**18, 10**18))
    young = fresh_cache / "los-shapes" / ".tmp-writing.tmp"
    young.write_bytes(b"half")
    monkeypatch.setattr(cache, "LIMIT_BYTES", 2500)
    cache.write("los-shapes", "d", b"y" * 1000, ".shelf")
    assert sorted(p.name for p in (fresh_cache / "los-shapes").iterdir()) == [".tmp-writing.tmp", "c.shelf", "d.shelf"]
    assert cache.read("los-shapes", "d", ".shelf") == b"y" * 1000
