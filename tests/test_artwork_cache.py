"""A map's artwork raster kept in the user cache (issue 13, start-up): read back (mapped, its boards not
read), it is the raster built from the boards to the pixel and rules every pair alike; a damaged entry is
built again; an edited file is hashed again; the cache off keeps nothing."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from asl_terrain import cache
from asl_terrain.los import los_verdicts
from asl_terrain.model import Location, Map
from asl_terrain.vasl import archive, artwork, kept


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("ASL_TERRAIN_CACHE", str(root))
    return root


def test_a_file_key_is_the_hash_of_its_bytes_remembered_until_the_file_changes(
        tmp_path: Path, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "board"
    p.write_bytes(b"first bytes")
    k = cache.file_key(p, "vasl board")
    assert k == cache.key(b"first bytes", "vasl board")
    assert len(list((fresh_cache / "file-keys").iterdir())) == 1
    assert cache.file_key(p, "vasl board") == k and len(list((fresh_cache / "file-keys").iterdir())) == 1
    assert cache.file_key(p, "other kind") == cache.key(b"first bytes", "other kind")
    st = os.stat(p)
    p.write_bytes(b"other bytes")  # the same size, and the modification time put back: its change time moved
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert cache.file_key(p, "vasl board") == cache.key(b"other bytes", "vasl board")
    def refused(*_: object) -> None:
        raise PermissionError("read-only cache")

    p.write_bytes(b"third")
    monkeypatch.setattr(os, "replace", refused)  # a memo that cannot be written: the key all the same
    assert cache.file_key(p, "vasl board") == cache.key(b"third", "vasl board")
    assert len(list((fresh_cache / "file-keys").iterdir())) == 3  # no memo of the third, no temp file left


def test_kept_arrays_read_back_equal_and_a_damaged_entry_reads_as_none(fresh_cache: Path) -> None:
    a = np.arange(5000, dtype=np.uint16).reshape(50, 100)
    b = np.array([3, 1, 2], dtype=np.uint8)
    kept.write("artwork", "k1", {"code_of": [8, 40]}, {"codes": a, "ids": b})
    got = kept.read("artwork", "k1")
    assert got is not None
    head, arrays = got
    assert head == {"code_of": [8, 40]}
    assert np.array_equal(arrays["codes"], a) and arrays["codes"].dtype == a.dtype and arrays["codes"].shape == (50, 100)
    assert np.array_equal(arrays["ids"], b) and not arrays["ids"].flags.writeable
    assert kept.read("artwork", "k2") is None
    f = fresh_cache / "artwork" / "k1.arrays"
    whole = f.read_bytes()
    for damaged in (whole[:-1], whole[:30], b"", b"not an entry" + whole[12:], whole[:21] + b"\xff" * 8 + whole[29:]):
        f.write_bytes(damaged)
        assert kept.read("artwork", "k1") is None, damaged[:40]
    # a body changed in place, header intact (a flipped bit, a block zeroed): its CRC tells
    for at in (4096, 4096 + 9999, len(whole) - 1):
        changed = bytearray(whole)
        changed[at] ^= 0x10
        f.write_bytes(bytes(changed))
        assert kept.read("artwork", "k1") is None, at


def test_kept_entries_past_the_limit_go_least_recently_read_first(fresh_cache: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    block = np.zeros(3 * 4096, dtype=np.uint8)
    for i, k in enumerate(("a", "b", "c")):
        kept.write("artwork", k, {}, {"x": block})
        os.utime(fresh_cache / "artwork" / f"{k}.arrays", ns=(10**18 + i, 10**18 + i))
    assert kept.read("artwork", "a") is not None  # read: now the most recent
    size = (fresh_cache / "artwork" / "a.arrays").stat().st_size
    monkeypatch.setattr(cache, "LIMIT_BYTES", 3 * size)
    kept.write("artwork", "d", {}, {"x": block})
    assert sorted(p.name for p in (fresh_cache / "artwork").iterdir()) == ["a.arrays", "c.arrays", "d.arrays"]
    monkeypatch.setattr(cache, "LIMIT_BYTES", 0)
    kept.write("artwork", "e", {}, {"x": block})  # the one written stays, whatever the limit
    assert sorted(p.name for p in (fresh_cache / "artwork").iterdir()) == ["e.arrays"]


def _layout() -> dict[str, Any]:
    from asl_terrain import vasl

    if vasl.vasl_data_dir() is None:
        pytest.skip("the VASL board archives (../shared/vasl) are not here")
    return vasl.import_boards(["bd01", "bd02"], layout="bd01;bd02").map


def _sample(m: Map) -> list[tuple[Location, Location]]:
    locs = [Location(h) for h in m.hexes() if not m.terrain(h).offboard]
    rnd = random.Random(13)
    return [(rnd.choice(locs), rnd.choice(locs)) for _ in range(3000)]


def _los_raster(m: Map) -> Any:
    from asl_terrain.los import _resolve

    return _resolve(m, None, None).depiction.raster  # type: ignore[attr-defined]


def test_a_raster_read_back_from_the_cache_is_the_built_one_and_rules_alike(fresh_cache: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    data = _layout()
    first = Map.from_data(data)
    pairs = _sample(first)
    want = list(los_verdicts(first, pairs))
    built = _los_raster(first)
    assert built._key is not None and built._raster.shape == (1800, 1290)
    assert sorted(p.name for p in (fresh_cache / "artwork").iterdir()) and built is not artwork.map_artwork(first)

    def no_building(*_: object, **__: object) -> None:
        raise AssertionError("the kept raster was built again")

    monkeypatch.setattr(archive, "_read_board_file", no_building)
    monkeypatch.setattr(artwork.ArtworkRaster, "__init__", no_building)
    monkeypatch.setattr(artwork.ArtworkRaster, "_hexside_art_codes", no_building)
    second = Map.from_data(data)
    assert list(los_verdicts(second, pairs)) == want
    back = _los_raster(second)
    assert back is not built and isinstance(back.archives, artwork._KeptBoards) and back.archives._boards is None
    assert np.array_equal(back._raster, built._raster) and np.array_equal(back._pixel_ids(), built._pixel_ids())
    assert (back._code_of, back.features, back.placements, back.geometry, back._on_boards, back._turned) == \
        (built._code_of, built.features, built.placements, built.geometry, built._on_boards, built._turned)
    assert [h for h in back._on_boards if back.hex_codes(*h) != built.hex_codes(*h)] == []
    monkeypatch.undo()
    # the boards, when something asks for them (a picture, a cross-check), are the archives themselves
    assert [(a.archive_name, dc, dr) for a, dc, dr in back.archives] == [("bd01", 0, 0), ("bd02", 0, 10)]
    assert np.array_equal(back.archives[1][0].terrain, built.archives[1][0].terrain)


def test_a_damaged_raster_entry_is_built_again_and_the_cache_off_keeps_none(
        tmp_path: Path, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _layout()
    first = Map.from_data(data)
    pairs = _sample(first)[:500]
    want = list(los_verdicts(first, pairs))
    entries = sorted((fresh_cache / "artwork").iterdir())
    assert len(entries) == 3  # the boards' raster, with the walls drawn, and its pixel ids
    for e in entries:
        e.write_bytes(e.read_bytes()[:5000])
    again = Map.from_data(data)
    assert list(los_verdicts(again, pairs)) == want
    assert all(e.stat().st_size > 5000 for e in entries)  # written anew
    # the bodies overwritten at full length (the pixel ids out of range, the codes another terrain's): the
    # rulings stay the same, never an error
    for e in entries:
        whole = bytearray(e.read_bytes())
        whole[8192:] = b"\xff" * (len(whole) - 8192)
        e.write_bytes(bytes(whole))
    assert list(los_verdicts(Map.from_data(data), pairs)) == want
    monkeypatch.setenv("ASL_TERRAIN_CACHE", "off")
    off = Map.from_data(data)
    assert list(los_verdicts(off, pairs)) == want and _los_raster(off)._key is None
    monkeypatch.setenv("ASL_TERRAIN_CACHE", str(tmp_path / "other"))
    monkeypatch.setattr(cache, "cache_dir", lambda: None)
    assert list(los_verdicts(Map.from_data(data), pairs)) == want
    assert not (tmp_path / "other").exists()
