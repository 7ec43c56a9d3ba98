"""Walls and hedges as drawn on a board's artwork (B9.1, B9.2, A6.1), on a small hand-made board.

B9.1: the thick wall/hedge depiction, as well as the hexside itself (vertices included), represents the
wall/hedge and affects any LOS through it. The board here is 7 x 5 hexes of open ground with one hedge drawn
on D2-D3 (D2's S side), 7 px thick, and (``spill``) drawn on 10 px past its east vertex into the E hex there,
as board artwork often is. The board is made in memory: no VASL data is needed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from asl_terrain import vasl
from asl_terrain.los import location_point, los
from asl_terrain.model import Map
from asl_terrain.vasl.archive import BoardArchive, BoardMetadata
from asl_terrain.vasl.artwork import ArtworkRaster
from asl_terrain.vasl.terrain import TerrainTable, TerrainType

GEO = vasl.BoardGeometry(7, 5, 337, 322)  # hexes A1-A5, B0-B5, ..., G1-G5
HEDGE = 73


def _type(code: int, name: str, category: str) -> TerrainType:
    side = category == "HEXSIDE"
    return TerrainType(code, name, category, 0, side, False, side, False, False, False, 0.0, (0, 0, 0))


TABLE = TerrainTable({0: _type(0, "Open Ground", "OPEN"), HEDGE: _type(HEDGE, "Hedge", "HEXSIDE")}, {})


def _board(spill: float) -> BoardArchive:
    terrain = np.zeros((GEO.grid_width, GEO.grid_height), dtype=np.uint8)
    (x0, y0), (x1, y1) = sorted(GEO.hexside_segment(3, 2, 3))  # D2-D3, west vertex first
    xs, ys = np.meshgrid(np.arange(GEO.grid_width) + 0.5, np.arange(GEO.grid_height) + 0.5, indexing="ij")
    x1 += spill
    t = np.clip((xs - x0) / (x1 - x0), 0, 1)  # the hexside is horizontal
    terrain[np.hypot(xs - (x0 + t * (x1 - x0)), ys - y0) <= 3.5] = HEDGE
    meta = BoardMetadata("ZW", "", "", "", "", False, 7, 5, {}, {}, (), (), {}, {})
    return BoardArchive(Path("bdZW"), meta, GEO, np.zeros(terrain.shape, dtype=np.int8), terrain, frozenset(), ())


def board_map(spill: float = 10.0, hedge: bool = True) -> Map:
    m = Map.from_data({
        "format": "asl-terrain/1", "name": "hedge drawn past its vertex", "columns": ["A", "G"], "rows": [0, 5],
        "hexside": [{"at": ["D2-D3"], "hedge": True}] if hedge else [],
        "depiction": {"kind": "vasl", "board": [{"archive": "bdZW", "columns": 7, "rows": 5}]}})
    raster = ArtworkRaster([(_board(spill), 0, 0)], TABLE)
    m.derived(("vasl.artwork",), lambda: raster)  # the board above, not an archive read from disk
    return m


def ruling(m: Map, a: str, b: str):  # type: ignore[no-untyped-def]
    return los(m, m.parse_location(a), m.parse_location(b), borderline=True)


def hedge_pixels_crossed(m: Map, a: str, b: str) -> int:
    """How many pixels of the thread from ``a`` to ``b`` are drawn as the hedge beyond D2-D3's east vertex."""
    raster = vasl.map_artwork(m)
    terrain = raster.archives[0][0].terrain
    east = max(x for x, _ in GEO.hexside_segment(3, 2, 3))
    pixels = raster.thread_pixels(location_point(m.parse_location(a)), location_point(m.parse_location(b)))
    return sum(1 for x, y in pixels if x > east + 1 and terrain[x, y] == HEDGE)


def test_b9_1_the_hedge_drawn_past_its_vertex_blocks_a_same_level_los() -> None:
    """D1 -> E5 crosses no hedge hexside, but it crosses the hedge's drawing where it runs on past the D2-D3
    hexside's east vertex: the drawing is the hedge (B9.1), a Half-Level obstacle to this ground-level LOS
    (B9.2). Drawn only up to its vertex, or with no hedge on D2-D3 in the map, the same LOS is clear."""
    m = board_map()
    assert hedge_pixels_crossed(m, "D1", "E5") > 3
    for a, b in (("D1", "E5"), ("E5", "D1")):
        r = ruling(m, a, b)
        assert not r.clear and not r.borderline, (a, b)
        assert r.blocked_by is not None and r.blocked_by.rule == "B9.1"
        assert r.blocked_by.hexside is not None and r.blocked_by.hexside.name == "D2-D3"
        assert "as drawn" in r.blocked_by.terrain and "B9.1" in r.rules()
    assert ruling(board_map(spill=0), "D1", "E5").clear
    assert ruling(board_map(hedge=False), "D1", "E5").clear


def test_b9_2_the_drawn_hedge_never_blocks_los_to_its_own_hex() -> None:
    """D3 -> F1 crosses the drawing beyond the vertex too, but D2-D3 is a hexside of D3: a wall/hedge never
    blocks LOS to any portion of its own hex (B9.2), drawn or not."""
    m = board_map()
    assert hedge_pixels_crossed(m, "D3", "F1") > 3
    assert ruling(m, "D3", "F1").clear and ruling(m, "F1", "D3").clear


def test_b9_2_a_hedge_lying_along_the_los_follows_the_hexspine_rule_not_its_drawing() -> None:
    """C3 -> E3 runs exactly along D2-D3 (on its hexspine), through the drawing all the way: the hexspine touches
    both end hexes, so it is no obstacle (B9.2). A3 -> G3 runs along it too, touching neither: blocked, by
    B9.2's lengthwise rule, not by the drawing."""
    m = board_map()
    assert hedge_pixels_crossed(m, "C3", "E3") > 3
    assert ruling(m, "C3", "E3").clear
    r = ruling(m, "A3", "G3")
    assert not r.clear and r.blocked_by is not None and r.blocked_by.rule == "B9.2"
    assert "run along" in r.blocked_by.terrain


def test_a6_1_a_thread_beside_the_drawings_tip_is_not_blocked() -> None:
    """D5 -> E1 cuts through the corner of the drawing's tip: the hedge is visible on one side of the thread
    only, so it does not block (A6.1); shifted a hair the thread would cross it, so the LOS is borderline."""
    m = board_map()
    assert hedge_pixels_crossed(m, "D5", "E1") > 3
    r = ruling(m, "D5", "E1")
    assert r.clear and r.borderline
