"""Derived LOS tables kept in the user cache (issue 13, item 3): the thread shapes of a grid and the codes of
an artwork's pixel stretches, read back by a later process's batch. A map whose tables were read from the
cache rules every pair exactly as one that derived them; a damaged entry is derived again; with the cache
off nothing is written."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from asl_terrain import cache, los
from asl_terrain.model import Location, Map
from asl_terrain.vasl.archive import BoardArchive, BoardMetadata
from asl_terrain.vasl.artwork import ArtworkRaster
from asl_terrain.vasl.geometry import BoardGeometry
from asl_terrain.vasl.terrain import TerrainTable, TerrainType

_NAMES = ("Open Ground", "Woods", "Brush", "Grain", "Orchard", "Stone Rubble")
_GEO = BoardGeometry(9, 5, 450, 322)  # hexes A1-I5


def _table() -> TerrainTable:
    types = {code: TerrainType(code, name, "OPEN", 0, False, False, False, False, False, False, 0.0, (0, 0, 0))
             for code, name in enumerate(_NAMES)}
    return TerrainTable(types, {}, "test")


def _board() -> BoardArchive:
    """Blobs of woods, brush, grain, orchard and rubble on hills of levels 0-2: threads cross runs of codes."""
    rnd = np.random.default_rng(5)
    cells = (_GEO.grid_width // 9 + 1, _GEO.grid_height // 9 + 1)
    terrain = np.kron(rnd.integers(0, len(_NAMES), cells), np.ones((9, 9), dtype=np.int64))
    terrain[rnd.random(terrain.shape) < 0.6] = 0  # mostly open ground, so that threads run on
    elevation = np.kron(rnd.integers(0, 3, cells), np.ones((9, 9), dtype=np.int64))
    meta = BoardMetadata("KT", "", "", "", "", False, 9, 5, {}, {}, (), (), {}, {})
    return BoardArchive(Path("bdKT"), meta, _GEO, elevation[: _GEO.grid_width, : _GEO.grid_height].astype(np.int8),
                        terrain[: _GEO.grid_width, : _GEO.grid_height].astype(np.uint8), frozenset(), ())


_BOARD = _board()


def _tiny_map() -> Map:
    m = Map.from_data({"format": "asl-terrain/1", "name": "kept tables", "columns": ["A", "I"], "rows": [0, 5],
                       "depiction": {"kind": "vasl", "board": [{"archive": "bdKT", "columns": 9, "rows": 5}]}})
    raster = ArtworkRaster([(_BOARD, 0, 0)], _table())
    m.derived(("vasl.artwork",), lambda: raster)  # the board above, not an archive read from disk
    return m


@functools.lru_cache(maxsize=1)
def _bd01() -> dict[str, object]:
    from asl_terrain import vasl

    if vasl.vasl_data_dir() is None:
        pytest.skip("the VASL board archives (../shared/vasl) are not here")
    return vasl.import_boards(["bd01"]).map


def _board_map() -> Map:
    return Map.from_data(_bd01())


def _pairs(m: Map, every: int = 1) -> list[tuple[Location, Location]]:
    locs = [Location(h) for h in m.hexes() if not m.terrain(h).offboard]
    return [(a, b) for a in locs[::every] for b in locs]


def _rulings(m: Map, pairs: list[tuple[Location, Location]]) -> tuple[list[Any], list[Any]]:
    """Every pair's verdict (the batch path), and the full ruling of some (the single-LOS path)."""
    verdicts = list(los.los_verdicts(m, pairs))
    full = [los.los(m, a, b, borderline=True).to_json() for a, b in pairs[::97]]
    return verdicts, full


def _entries(root: Path) -> list[Path]:
    return [p for kind in ("los-shapes", "stretch-codes") for p in (root / kind).glob("*") if p.is_file()]


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("ASL_TERRAIN_CACHE", str(root))
    return root


@pytest.mark.parametrize("make", [_tiny_map, _board_map], ids=["hand-made artwork", "bd01"])
def test_tables_read_back_from_the_cache_rule_as_derived_ones(make, fresh_cache: Path,  # type: ignore[no-untyped-def]
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    every = 1 if make is _tiny_map else 7
    monkeypatch.setenv("ASL_TERRAIN_CACHE", "off")
    m0 = make()
    pairs = _pairs(m0, every)
    derived = _rulings(m0, pairs)
    monkeypatch.setenv("ASL_TERRAIN_CACHE", str(fresh_cache))
    assert _rulings(make(), pairs) == derived  # the first process: derives, then keeps
    assert {p.parent.name for p in _entries(fresh_cache)} == {"los-shapes", "stretch-codes"}
    warm = make()
    tab = los._resolve(warm, None, None)
    tab.warm()
    raster = tab.depiction.raster  # type: ignore[attr-defined]
    assert len(tab.kept) > 100 and len(raster._sets) > 100  # read back before any thread is walked
    kept = tab.kept.get(next(iter(tab.kept._read[0])))
    assert isinstance(kept, tuple) and kept and isinstance(kept[0], tuple)
    assert _rulings(warm, pairs) == derived
    # shapes compiled from the kept contacts equal shapes traced now
    for key, c in list(tab.templates.items())[:200]:
        assert c.contacts == los._Compiled(key, tab.stride, tab.tolerance).contacts


def test_a_damaged_entry_is_derived_again(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = _pairs(_tiny_map())
    good = _rulings(_tiny_map(), pairs)
    files = _entries(fresh_cache)
    assert len(files) == 2
    for how in ("flipped", "truncated", "garbage"):
        for f in files:
            b = bytearray(f.read_bytes())
            if how == "flipped":  # a bit in the middle of the values: the index still reads, the value does not
                b[len(b) * 2 // 3] ^= 0x10
            elif how == "truncated":
                b = b[: len(b) // 2]
            else:
                b = bytearray(b"not a table")
            f.write_bytes(bytes(b))
        assert _rulings(_tiny_map(), pairs) == good, how
        files = _entries(fresh_cache)


def test_a_shelf_keeps_values_exactly_and_ignores_damage(fresh_cache: Path) -> None:
    shelf = cache.Shelf("test-shelf", "k", limit=3)
    assert len(shelf) == 0 and shelf.get((1, 2)) is None
    values = {(1, 2): ((0, 0.1, 1 / 3, 7),), (3,): frozenset({1, 5}), "b": b"\x00\x01"}
    shelf.save(values, least=4)  # fewer new values than asked for: nothing written
    assert not (fresh_cache / "test-shelf").exists()
    shelf.save({**values, "over": 1})
    again = cache.Shelf("test-shelf", "k", limit=3)
    assert len(again) == 3 and "over" not in again  # the limit
    assert {k: again.get(k) for k in values} == values
    f = next((fresh_cache / "test-shelf").iterdir())
    b = bytearray(f.read_bytes())
    b[-1] ^= 0xFF  # the last value's last byte
    f.write_bytes(bytes(b))
    damaged = cache.Shelf("test-shelf", "k", limit=3)
    assert damaged.get("b") is None and damaged.get((1, 2)) == values[(1, 2)]


def test_cache_off_keeps_no_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASL_TERRAIN_CACHE", "off")
    monkeypatch.chdir(tmp_path)
    m = _tiny_map()
    list(los.los_verdicts(m, _pairs(m)))
    los.viewshed(m, Location(next(iter(m.hexes()))))
    cache.Shelf("test-shelf", "k", limit=3).save({1: 2})
    cache.write_value("test", "k", 1)
    assert cache.read_value("test", "k") is None
    assert not any(tmp_path.rglob("*"))


def test_a_single_los_reads_no_kept_table(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Work proportional to the question (issue 13, item 2): the kept tables are read by batches only."""
    m = _tiny_map()
    pairs = _pairs(m)
    list(los.los_verdicts(m, pairs))  # keeps the tables
    assert len(_entries(fresh_cache)) == 2

    def unread(*_: object) -> object:
        raise AssertionError("a single LOS read a kept table")

    monkeypatch.setattr(cache.Shelf, "_open", unread)
    monkeypatch.setattr(cache, "read_value", unread)
    fresh = _tiny_map()
    for a, b in pairs[::50]:
        los.los(fresh, a, b, borderline=True)


def test_an_entry_written_by_another_python_is_not_read(fresh_cache: Path) -> None:
    """marshal's format may change between Python versions: such an entry is derived again."""
    cache.Shelf("test-shelf", "k", limit=3).save({1: (0.5,)})
    cache.write_value("test-value", "k", {b"\x01": frozenset({3})})
    assert cache.Shelf("test-shelf", "k", limit=3).get(1) == (0.5,)
    assert cache.read_value("test-value", "k") == {b"\x01": frozenset({3})}
    mine = f"py{sys.version_info[0]}.{sys.version_info[1]}".encode()
    for f in fresh_cache.rglob("k.*"):
        f.write_bytes(f.read_bytes().replace(mine, b"py2.99", 1))
    assert cache.Shelf("test-shelf", "k", limit=3).get(1) is None
    assert cache.read_value("test-value", "k") is None


def test_a_shelf_whose_index_is_not_ours_reads_as_empty_and_is_written_anew(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A shelf entry with a valid header over an index of the wrong form (not of this package's making) gives no
    value and no error, and the next save writes the values given."""
    import marshal
    import zlib

    monkeypatch.setenv("ASL_TERRAIN_CACHE", str(tmp_path))
    shelf = cache.Shelf("los-shapes", "foreign", 10)
    shelf.save({"a": (1, 2)})
    f = next((tmp_path / "los-shapes").iterdir())
    head = marshal.dumps({"a": "not a triple", "b": (1,)})
    f.write_bytes(cache._SHELF_MAGIC + zlib.crc32(head).to_bytes(4, "little") + len(head).to_bytes(8, "little") + head)
    again = cache.Shelf("los-shapes", "foreign", 10)
    assert again.get("a") is None and again.get("b") is None
    again.save({"c": (3,)})
    assert cache.Shelf("los-shapes", "foreign", 10).get("c") == (3,)
