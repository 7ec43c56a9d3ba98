"""A thread's samples over the artwork (A6.1, issue 13): the fast reading (pixel ids read as bytes, a stretch
at a time, views and offsets kept per centre pixel and shape) gives exactly the codes
that reading the thread's pixels one by one gives (:meth:`ArtworkRaster.thread_pixels`, ``code_at``)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from asl_terrain.vasl.archive import BoardArchive
from asl_terrain.vasl.artwork import ArtworkRaster
from asl_terrain.vasl.geometry import BoardGeometry
from asl_terrain.vasl.terrain import TerrainTable, TerrainType

_NAMES = ("Open Ground", "Woods", "Pine Woods", "Brush", "Grain", "Orchard", "Graveyard", "Marsh", "Stone Rubble",
          "Wooden Rubble")


def _table() -> TerrainTable:
    types = {code: TerrainType(code, name, "OPEN", 0, False, False, False, False, False, False, 0.0, (0, 0, 0))
             for code, name in enumerate(_NAMES)}
    return TerrainTable(types, {}, "test")


def _raster(levels: int, seed: int) -> ArtworkRaster:
    """A 9 x 5 hex board of random blobs of terrain on random ground levels (``levels`` of them)."""
    geo = BoardGeometry(9, 5, 450, 322)
    rnd = np.random.default_rng(seed)
    # blobs: coarse random cells scaled up, so that threads cross runs of one code and their edges
    cells = (geo.grid_width // 7 + 1, geo.grid_height // 7 + 1)
    terrain = np.kron(rnd.integers(0, len(_NAMES), cells), np.ones((7, 7), dtype=np.int64))
    elevation = np.kron(rnd.integers(-8, -8 + levels, cells), np.ones((7, 7), dtype=np.int64))
    terrain = terrain[: geo.grid_width, : geo.grid_height].astype(np.uint8)
    elevation = elevation[: geo.grid_width, : geo.grid_height].astype(np.int8)
    board = BoardArchive(Path("bdT"), None, geo, elevation, terrain, frozenset(), ())  # type: ignore[arg-type]
    return ArtworkRaster([(board, 0, 0)], _table())


FEW = _raster(3, 1)    # under 256 codes: one byte a pixel
MANY = _raster(32, 2)  # over 256 codes (10 features x 32 levels): the ids are the codes


def _points(r: ArtworkRaster) -> list[tuple[int, int]]:
    centres = [(3 * c, 2 * row + c % 2) for c, row in r.geometry.hexes]
    vertices = [(x + 1, y + 1) for x, y in centres[::3]] + [(x - 2, y) for x, y in centres[1::4]]
    inside = [(x, y) for x, y in vertices if 0 <= r.pixel((x, y))[0] < r.width and 0 <= r.pixel((x, y))[1] < r.height]
    return centres + inside  # Bypass vertices on the board (a thread never starts off the raster)


def _plain(r: ArtworkRaster, p: tuple[int, int], q: tuple[int, int], t0: float, t1: float) -> frozenset[int]:
    """The codes strictly inside [t0, t1], read pixel by pixel in the thread's order."""
    codes = [r.code_at(x, y) for x, y in r.thread_pixels(p, q)]
    n = len(codes) - 1
    a = math.ceil(t0 * n - 1e-9) + 1
    b = math.floor(t1 * n + 1e-9) - 1
    if b < a:
        a = b = min(max(round((t0 + t1) * n / 2), 0), n)
    return frozenset(codes[a : b + 1])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([FEW, MANY]), st.data(), st.floats(0, 1), st.floats(0, 1))
def test_stretches_equal_a_pixel_by_pixel_reading(r: ArtworkRaster, data: st.DataObject, u: float, v: float) -> None:
    pts = _points(r)
    p = data.draw(st.sampled_from(pts))
    q = data.draw(st.sampled_from(pts))
    t0, t1 = min(u, v), max(u, v)
    want_codes = [r.code_at(x, y) for x, y in r.thread_pixels(p, q)]
    exact = p in _centres(r) and q in _centres(r)  # else the end-pixel quirk (test below)
    n = len(want_codes) - 1
    for _ in range(2):  # the second time from the kept views and offsets
        s = r.sample(p, q)
        got, want = s.between(t0, t1), _plain(r, p, q, t0, t1)
        if exact or max(math.floor(t1 * n + 1e-9) - 1, round((t0 + t1) * n / 2)) < n:
            assert got == want  # (the engine sorts a record's codes: the set's order is not read)
    assert s.codes == want_codes if exact else s.codes[:-1] == want_codes[:-1]


def _centres(r: ArtworkRaster) -> set[tuple[int, int]]:
    return {(3 * c, 2 * row + c % 2) for c, row in r.geometry.hexes}


def test_only_the_last_pixel_of_a_thread_with_a_bypass_vertex_end_may_differ() -> None:
    """The kept quirk (answers unchanged since before the fast reading): a thread with a Bypass vertex at one
    end (bdT (19, 7) -> (3, 1)) may read its final pixel from a neighbour of the exact walk's (and so may a
    stretch that reaches it); every other pixel is the exact walk's. Centre-to-centre threads are exact."""
    for r in (FEW, MANY):
        for p, q in (((19, 7), (3, 1)), ((21, 7), (1, 1)), ((1, 3), (6, 8))):
            got, want = r.sample(p, q).codes, [r.code_at(x, y) for x, y in r.thread_pixels(p, q)]
            assert len(got) == len(want) and got[:-1] == want[:-1] and got[-1] != want[-1], (p, q)
            assert not (p in _centres(r) and q in _centres(r))


def test_both_rasters_are_what_they_claim() -> None:
    assert FEW._pixel_ids().dtype == np.uint8 and len(FEW._code_of) <= 256
    assert MANY._pixel_ids().dtype == np.uint16 and not MANY._code_of
    assert len(np.unique(MANY._flat)) > 256
