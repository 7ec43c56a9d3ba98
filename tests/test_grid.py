"""Tests of asl_terrain.grid: names, adjacency, range, hexsides, vertices and exact thread tracing.

The named cases come from the seed rule texts and the rules digest (sections 1.1-1.3, 3.9, 8); the
properties run on a 100 x 100 grid, and the tracer is also checked against a brute-force exact oracle
and against Red Blob's nudged line drawing.
"""

from __future__ import annotations

import doctest
import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asl_terrain import grid
from asl_terrain.errors import BadName, NotAdjacent
from asl_terrain.grid import (
    Hex,
    Hexside,
    Point,
    Trace,
    Vertex,
    column_index,
    column_label,
    hex_corners,
    locate,
    nudged_line,
    parse_hex_name,
    parse_hexside_name,
    parse_vertex_name,
    to_pixel,
    trace,
    trace_hexes,
)

H = Hex.parse


def names(hexes: object) -> list[str]:
    return [h.name for h in hexes]  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------ doctests


def test_doctests() -> None:
    result = doctest.testmod(grid, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 20
    assert result.failed == 0


# --------------------------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("label", "index"),
    [("A", 0), ("B", 1), ("Z", 25), ("AA", 26), ("BB", 27), ("GG", 32), ("KK", 36), ("LL", 37),
     ("MM", 38), ("ZZ", 51), ("AAA", 52), ("BBB", 53)],
)
def test_column_index_and_label(label: str, index: int) -> None:
    assert column_index(label) == index
    assert column_label(index) == label


@pytest.mark.parametrize("label", ["AB", "", "a", "aa", "Aa", "A1", "ÄÄ", " A"])
def test_column_index_rejects(label: str) -> None:
    with pytest.raises(BadName, match="column"):
        column_index(label)


def test_column_label_negative() -> None:
    with pytest.raises(ValueError):
        column_label(-1)


@pytest.mark.parametrize(
    ("text", "prefix", "col", "row"),
    [
        ("N17", "", 13, 17),
        ("3I10", "3", 8, 10),
        ("StN17", "St", 13, 17),
        ("ChX3", "Ch", 23, 3),
        ("LgI20", "Lg", 8, 20),
        ("1Y10", "1", 24, 10),
        ("12M4", "12", 12, 4),
        ("23Y1", "23", 24, 1),
        ("StMM5", "St", 38, 5),
        ("ChAA10", "Ch", 26, 10),
        ("ChLL7", "Ch", 37, 7),
        ("CbLL6", "Cb", 37, 6),
        ("B0", "", 1, 0),
        ("15Y4", "15", 24, 4),
        ("AAA3", "", 52, 3),
    ],
)
def test_parse_hex_name(text: str, prefix: str, col: int, row: int) -> None:
    assert parse_hex_name(text) == (prefix, Hex(col, row))
    h = Hex.parse(text)
    assert h == Hex(col, row)
    assert h.name == text[len(prefix):]
    assert str(h) == h.name


@pytest.mark.parametrize(
    "text", ["", "N", "17", "n17", "AB3", "N-1", "stN17", "STN17", "N17x", "N 17", " N17", "N17\n", "St",
             "1", "S1N17", "N1.5", "N١٧"],
)
def test_bad_hex_names(text: str) -> None:
    with pytest.raises(BadName) as info:
        Hex.parse(text)
    message = str(info.value)
    assert repr(text) in message
    assert "expected" in message and "N17" in message


def test_negative_hexes_have_no_name() -> None:
    h = Hex(-1, 3)
    with pytest.raises(ValueError):
        _ = h.name
    with pytest.raises(ValueError):
        _ = Hex(2, -1).name
    assert "col=-1" in str(h)


# ---------------------------------------------------------------------------- adjacency in the rules

SEED_HEXSIDES = [
    "N17-O17", "O17-N17", "N17-O18", "K13-L13", "H12-I13", "J11-K12", "G9-F8", "StG9-F8", "J6-K6", "StJ6-K6",
    "X3-Y4", "ChX3-Y4", "M4-L3", "I13-I14", "J14-K14", "K13-K14", "K14-L13", "J13-K14", "K14-K15",
    "H11-H12", "LL6-LL7", "CbLL6-LL7", "ChLL6-LL7", "O18-N18", "L13-L14", "StN17-O17", "StO17-O18", "G8-H8",
    "1G8-H8", "K13-L12", "O17-P17", "O18-P17", "N18-O19",
]


@pytest.mark.parametrize("text", SEED_HEXSIDES)
def test_seed_hexsides_are_adjacent(text: str) -> None:
    prefix, hs = parse_hexside_name(text)
    a, b = (Hex.parse(t) for t in text.split("-"))
    assert a.is_adjacent(b) and b.is_adjacent(a)
    assert a.distance(b) == 1
    assert hs == Hexside.of(a, b) == Hexside.of(b, a) == Hexside(b, a)
    assert hs.hexes == tuple(sorted((a, b)))
    assert Hexside.parse(hs.name) == hs
    assert hs.name in (f"{a.name}-{b.name}", f"{b.name}-{a.name}")
    assert b.direction_to(a) == (a.direction_to(b) + 3) % 6
    assert prefix == (parse_hex_name(text.split("-")[0])[0])


@pytest.mark.parametrize("text", ["O17-O18-P17", "O17-O18-N17", "StO17-O18-P17", "H7-G8-H8", "P17-O17-O18",
                                  "N17-O18-O17"])
def test_seed_vertices(text: str) -> None:
    v = Vertex.parse(text)
    hexes = [Hex.parse(t) for t in text.split("-")]
    for a, b in itertools.combinations(hexes, 2):
        assert a.is_adjacent(b)
    assert v.hexes == tuple(sorted(hexes))
    for perm in itertools.permutations(hexes):
        assert Vertex.of(*perm) == v
        assert Vertex.parse("-".join(h.name for h in perm)) == v
    assert v.name == "-".join(h.name for h in sorted(hexes))
    # the vertex is a corner of each of its hexes, at the same point
    for h in hexes:
        assert v in h.vertices()
    assert set(v.hexsides()) == {Hexside.of(a, b) for a, b in itertools.combinations(hexes, 2)}


def test_canonical_vertex_names() -> None:
    assert Vertex.parse("P17-O18-O17").name == "O17-O18-P17"
    assert Vertex.parse("O17-O18-N17").name == "N17-O17-O18"
    assert Vertex.parse("StO17-O18-P17").point() == (43, 35)


def test_rule_adjacencies() -> None:
    """N17 touches O17 and O18; K13 touches L12 and L13; N18 touches O18 and O19; P17 not O19."""
    assert {H("O17"), H("O18")} <= set(H("N17").neighbours())
    assert {H("L12"), H("L13")} <= set(H("K13").neighbours())
    assert {H("O18"), H("O19")} <= set(H("N18").neighbours())
    assert not H("P17").is_adjacent(H("O19"))
    assert not H("O19").is_adjacent(H("P17"))
    with pytest.raises(NotAdjacent):
        H("P17").direction_to(H("O19"))
    for a, b in itertools.combinations([H("O17"), H("O18"), H("P17")], 2):
        assert a.is_adjacent(b)


def test_3i10_neighbours() -> None:
    prefix, h = parse_hex_name("3I10")
    assert prefix == "3"
    assert sorted(names(h.neighbours())) == ["H10", "H9", "I11", "I9", "J10", "J9"]
    assert names(h.neighbours()) == ["I9", "J9", "J10", "I11", "H10", "H9"]  # N, NE, SE, S, SW, NW


def test_direction_order() -> None:
    n17 = H("N17")  # odd column: half a hex lower
    assert names(n17.neighbours()) == ["N16", "O17", "O18", "N18", "M18", "M17"]
    k13 = H("K13")  # even column
    assert names(k13.neighbours()) == ["K12", "L12", "L13", "K14", "J13", "J12"]
    for k in range(6):
        assert n17.direction_to(n17.neighbour(k)) == k
        assert n17.neighbour(k + 6) == n17.neighbour(k)


@pytest.mark.parametrize(("a", "b", "rng"), [("I14", "K14", 2), ("H13", "K14", 3), ("J12", "K14", 2),
                                              ("N17", "N17", 0), ("A1", "A10", 9), ("A1", "GG10", 32)])
def test_range(a: str, b: str, rng: int) -> None:
    assert H(a).distance(H(b)) == rng
    assert H(b).distance(H(a)) == rng


def test_cube() -> None:
    for h in [H("A1"), H("B0"), H("N17"), Hex(-3, -7), Hex(99, 99)]:
        q, r, s = h.cube()
        assert q + r + s == 0
        assert Hex.from_cube(q, r, s) == h
        assert Hex.from_cube(q, r) == h
    with pytest.raises(ValueError):
        Hex.from_cube(1, 1, 1)


# --------------------------------------------------------------------------------- hexsides, vertices


def test_hexside_parse_either_order_and_prefixes() -> None:
    hs = Hexside.parse("N17-O17")
    assert Hexside.parse("O17-N17") == hs
    assert Hexside.parse("StN17-O17") == hs
    assert Hexside.parse("StN17-StO17") == hs
    assert Hexside.parse("O17-StN17") == hs
    assert hs.name == "N17-O17" and str(hs) == "N17-O17"
    assert parse_hexside_name("StN17-O17") == ("St", hs)
    assert parse_hexside_name("N17-O17") == ("", hs)
    assert hash(hs) == hash(Hexside.of(H("O17"), H("N17")))
    assert hs.other(H("N17")) == H("O17") and hs.other(H("O17")) == H("N17")
    with pytest.raises(ValueError):
        hs.other(H("P17"))


@pytest.mark.parametrize("text", ["N17", "N17-", "-N17", "N17-O17-", "N17_O17", "N17--O17", "StN17-LgO17",
                                  "n17-o17", ""])
def test_bad_hexside_names(text: str) -> None:
    with pytest.raises(BadName) as info:
        Hexside.parse(text)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("text", ["N17-P17", "P17-O19", "N17-N17", "A1-A3", "N17-O16"])
def test_non_adjacent_hexside(text: str) -> None:
    with pytest.raises(NotAdjacent) as info:
        Hexside.parse(text)
    assert repr(text) in str(info.value)
    a, b = (H(t) for t in text.split("-"))
    with pytest.raises(NotAdjacent):
        Hexside.of(a, b)
    with pytest.raises(NotAdjacent):
        Hexside(a, b)


@pytest.mark.parametrize("text", ["N17-O17", "N17-O17-P17-Q17", "N17-O17-x", "StN17-O17-LgO18"])
def test_bad_vertex_names(text: str) -> None:
    with pytest.raises(BadName) as info:
        Vertex.parse(text)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("text", ["N17-O17-P17", "O17-O18-O19", "N17-N17-O17", "O17-O18-N18", "P17-O18-O19"])
def test_non_adjacent_vertex(text: str) -> None:
    with pytest.raises(NotAdjacent) as info:
        Vertex.parse(text)
    assert repr(text) in str(info.value)


def test_hexside_vertices_and_points() -> None:
    hs = Hexside.parse("O17-O18")  # the roadblock hexside of the P5.141 example
    assert {v.name for v in hs.vertices()} == {"O17-O18-P17", "N17-O17-O18"}
    assert hs.endpoints() == ((41, 35), (43, 35))
    assert tuple(v.point() for v in hs.vertices()) == hs.endpoints()
    assert hs.midpoint_x2() == (84, 70)
    assert Vertex.parse("H7-G8-H8") in Hexside.parse("1G8-H8").vertices()  # B9 example


def test_hex_parts_agree() -> None:
    h = H("N17")
    cx, cy = h.centre()
    assert h.centre() == (39, 35)
    assert h.vertex(0).name == "N16-N17-O17"  # the N/NE corner
    for k in range(6):
        v = h.vertex(k)
        assert {h, h.neighbour(k), h.neighbour(k + 1)} == set(v.hexes)
        assert h.hexside(k) == Hexside.of(h, h.neighbour(k))
        assert set(h.hexside(k).vertices()) == {h.vertex(k - 1), h.vertex(k)}
        assert h.hexsides()[k] == h.hexside(k)
        assert h.vertices()[k] == v
        assert locate(v.point()) == v
    assert locate((cx, cy)) == h
    with pytest.raises(ValueError):
        locate((0, 1))


def test_drawing_helpers() -> None:
    x, y = to_pixel(H("B1").centre(), 10.0)
    assert x == pytest.approx(15.0)
    assert y == pytest.approx(3 * 10 * 3**0.5 / 2)
    corners = hex_corners(H("A1"), 1.0)
    assert len(corners) == 6
    cx, cy = to_pixel(H("A1").centre(), 1.0)
    for px, py in corners:
        assert ((px - cx) ** 2 + (py - cy) ** 2) ** 0.5 == pytest.approx(1.0)


# ------------------------------------------------------------------------------------ tracing: cases


def fr(text: str) -> Fraction:
    return Fraction(text)


def along_names(t: Trace) -> list[tuple[Fraction, Fraction, str]]:
    return [(t0, t1, hs.name) for t0, t1, hs in t.along]


def vertex_names(t: Trace) -> list[tuple[Fraction, str]]:
    return [(tv, v.name) for tv, v in t.vertices]


def test_trace_along_hexsides_h13_l13() -> None:
    """P2 Fire Lane example: H13 to L13 runs along I13-I14, through J13, along K13-K14."""
    t = trace_hexes(H("H13"), H("L13"))
    assert names(t.hexes) == ["H13", "J13", "L13"]
    assert [(s.t_in, s.t_out) for s in t.spans] == [(0, fr("1/6")), (fr("1/3"), fr("2/3")), (fr("5/6"), 1)]
    assert along_names(t) == [(fr("1/6"), fr("1/3"), "I13-I14"), (fr("2/3"), fr("5/6"), "K13-K14")]
    assert vertex_names(t) == [(fr("1/6"), "H13-I13-I14"), (fr("1/3"), "I13-I14-J13"),
                               (fr("2/3"), "J13-K13-K14"), (fr("5/6"), "K13-K14-L13")]
    assert t.crossed == ()
    assert names(t.touched) == ["H13", "I13", "I14", "J13", "K13", "K14", "L13"]
    # each run-along hexside's end vertices are the ones reported
    for t0, t1, hs in t.along:
        assert set(hs.vertices()) == {v for tv, v in t.vertices if tv in (t0, t1)}


def test_trace_i14_k14_through_vertices() -> None:
    """Range 2 along a hexspine: along J13-J14, through vertices I14-J13-J14 and J13-J14-K14."""
    t = trace_hexes(H("I14"), H("K14"))
    assert names(t.hexes) == ["I14", "K14"]
    assert along_names(t) == [(fr("1/3"), fr("2/3"), "J13-J14")]
    assert vertex_names(t) == [(fr("1/3"), "I14-J13-J14"), (fr("2/3"), "J13-J14-K14")]
    assert Vertex.parse("J13-J14-K14") in {v for _, v in t.vertices}
    assert set(t.touched) == {H("I14"), H("J13"), H("J14"), H("K14")}


def test_trace_60_degrees_through_vertex() -> None:
    """A 60-degree thread runs through a vertex and then along a hexside (digest 1.2, 3.9)."""
    t = trace_hexes(H("N17"), H("O16"))
    assert names(t.hexes) == ["N17", "O16"]
    assert vertex_names(t) == [(fr("1/3"), "N16-N17-O17"), (fr("2/3"), "N16-O16-O17")]
    assert along_names(t) == [(fr("1/3"), fr("2/3"), "N16-O17")]
    assert t.crossed == ()
    # the thread touches all three hexes of each vertex
    assert set(t.touched) == {H("N17"), H("N16"), H("O17"), H("O16")}
    t = trace_hexes(H("J12"), H("K14"))  # P2 example: squad E in K14 fired on from J12
    assert along_names(t) == [(fr("1/3"), fr("2/3"), "J13-K13")]
    assert names(t.touched) == ["J12", "J13", "K13", "K14"]


def test_trace_30_degrees_through_hexside_midpoints() -> None:
    """A 30-degree thread crosses hexsides at their midpoints, touching no vertex."""
    for a, b, middle in [("N17", "N19", ["N18"]), ("Y4", "AA3", ["Z3"]), ("K13", "M12", ["L12"])]:
        t = trace_hexes(H(a), H(b))
        assert names(t.hexes) == [a, *middle, b]
        assert t.along == () and t.vertices == ()
        assert [tc for tc, _ in t.crossed] == [fr("1/4"), fr("3/4")]
        p, q = H(a).centre(), H(b).centre()
        for tc, hs in t.crossed:
            mx2, my2 = hs.midpoint_x2()
            assert (2 * (p[0] + tc * (q[0] - p[0])), 2 * (p[1] + tc * (q[1] - p[1]))) == (mx2, my2)


def test_trace_15y4_through_z3_to_aa3() -> None:
    """B10 example: 15Y4 fires through Z3 to AA3."""
    t = trace_hexes(H("15Y4"), H("AA3"))
    assert names(t.hexes) == ["Y4", "Z3", "AA3"]


def test_trace_transversal_vertices() -> None:
    """A thread may pass through a vertex from one hex straight into another: the third hex is touched."""
    t = trace_hexes(H("A0"), H("F1"))
    assert names(t.hexes) == ["A0", "B0", "C1", "D0", "E1", "F1"]
    assert vertex_names(t) == [(fr("1/3"), "B0-C0-C1"), (fr("2/3"), "D0-D1-E1")]
    assert t.along == ()
    assert H("C0") in t.touched and H("C0") not in t.hexes
    assert H("D1") in t.touched and H("D1") not in t.hexes
    # B0 -> C1 and D0 -> E1 meet at the vertex, with no hexside crossing
    assert [hs.name for _, hs in t.crossed] == ["A0-B0", "C1-D0", "E1-F1"]


def test_trace_from_bypass_vertex() -> None:
    """A Bypassing unit's thread starts at a vertex (A4.34): from vertex N17-O17-O18."""
    v = Vertex.parse("O17-O18-N17")
    # eastward, along the O17-O18 (roadblock) hexside to vertex O17-O18-P17, then into P17
    t = trace(v.point(), H("P17").centre())
    assert names(t.hexes) == ["P17"]
    assert along_names(t) == [(0, fr("1/2"), "O17-O18")]
    assert vertex_names(t) == [(0, "N17-O17-O18"), (fr("1/2"), "O17-O18-P17")]
    assert names(t.touched) == ["N17", "O17", "O18", "P17"]
    # westward, straight into N17 and on into M17 and L16
    t = trace(v.point(), H("L16").centre())
    assert names(t.hexes) == ["N17", "M17", "L16"]
    assert t.spans[0].t_in == 0
    assert vertex_names(t) == [(0, "N17-O17-O18")]
    assert [hs.name for _, hs in t.crossed] == ["M17-N17", "L16-M17"]
    assert names(t.touched) == ["N17", "O17", "O18", "M17", "L16"]
    # vertex to vertex, both ends reported
    w = Vertex.parse("H7-G8-H8")
    t = trace(v.point(), w.point())
    assert t.vertices[0] == (0, v) and t.vertices[-1] == (1, w)
    # and back
    r = trace(H("L16").centre(), v.point())
    assert names(r.hexes) == ["L16", "M17", "N17"] and r.vertices == ((1, v),)


def test_trace_degenerate() -> None:
    t = trace_hexes(H("N17"), H("N17"))
    assert names(t.hexes) == ["N17"] and t.spans[0].t_in == 0 and t.spans[0].t_out == 1
    v = Vertex.parse("O17-O18-P17")
    t = trace(v.point(), v.point())
    assert t.spans == () and t.vertices == ((0, v),)
    assert set(t.touched) == set(v.hexes)


def test_trace_adjacent() -> None:
    t = trace_hexes(H("N17"), H("O17"))
    assert names(t.hexes) == ["N17", "O17"]
    assert t.crossed == ((fr("1/2"), Hexside.parse("N17-O17")),)


def test_trace_rejects_other_points() -> None:
    with pytest.raises(ValueError):
        trace((0, 1), (3, 1))
    with pytest.raises(ValueError):
        trace((0, 0), (1, 0))


def test_trace_is_cached_and_off_map() -> None:
    assert trace((0, 0), (300, 100)) is trace((0, 0), (300, 100))
    t = trace((-30, -20), (-3, 11))  # off every map: negative columns and rows
    assert t.spans[0].hex == Hex(-10, -10) and t.spans[-1].hex == Hex(-1, 5)


def test_long_hexspine_on_a_100_map() -> None:
    """Along hexsides at range 99 on a 100 x 100 map: the tie is still recognised exactly."""
    t = trace_hexes(Hex(0, 50), Hex(98, 50))  # same row, same-parity columns: a horizontal hexspine
    assert len(t.spans) == 50 and len(t.along) == 49 and len(t.vertices) == 98
    assert t.crossed == ()
    t = trace_hexes(Hex(0, 99), Hex(66, 0))  # a 60-degree hexspine, far
    assert t.crossed == () and len(t.along) == 66 and len(t.spans) == 67 and len(t.vertices) == 132
    assert t == brute_force(t.start, t.end)


# ------------------------------------------------------------------------- an exact brute-force oracle

_VERTEX_STEP = ((1, -1), (2, 0), (1, 1), (-1, 1), (-2, 0), (-1, -1))


def _cross(ax: int, ay: int, bx: int, by: int) -> int:
    return ax * by - ay * bx


def brute_force(p: Point, q: Point) -> Trace:
    """Test every hex, hexside and vertex near the segment; slow, exact and independent of the walk."""
    (px, py), (qx, qy) = p, q
    dx, dy = qx - px, qy - py
    dd = dx * dx + dy * dy
    c0, c1 = (min(px, qx) - 3) // 3, (max(px, qx) + 3) // 3 + 1
    r0, r1 = (min(py, qy) - 3) // 2, (max(py, qy) + 3) // 2 + 1
    spans = []
    crossed = {}
    along = {}
    verts = {}
    for col in range(c0, c1 + 1):
        for row in range(r0, r1 + 1):
            h = Hex(col, row)
            cx, cy = h.centre()
            corners = [(cx + ox, cy + oy) for ox, oy in _VERTEX_STEP]
            lo, hi = Fraction(0), Fraction(1)
            for k in range(6):
                (ax, ay), (bx, by) = corners[k - 1], corners[k]
                ex, ey = bx - ax, by - ay
                inside = _cross(ex, ey, cx - ax, cy - ay)  # sign of the interior side
                f0 = _cross(ex, ey, px - ax, py - ay)
                f1 = _cross(ex, ey, dx, dy)
                if inside < 0:
                    f0, f1 = -f0, -f1
                # need f0 + t f1 > 0
                if f1 == 0:
                    if f0 <= 0:
                        lo, hi = Fraction(1), Fraction(0)
                elif f1 > 0:
                    lo = max(lo, Fraction(-f0, f1))
                else:
                    hi = min(hi, Fraction(-f0, f1))
                # the hexside itself
                den = _cross(dx, dy, ex, ey)
                hs = Hexside.of(h, h.neighbour(k))
                if den != 0:
                    t = Fraction(_cross(ax - px, ay - py, ex, ey), den)
                    lam = Fraction(_cross(ax - px, ay - py, dx, dy), den)
                    if 0 <= t <= 1 and 0 < lam < 1:
                        crossed[hs] = t
                elif _cross(ax - px, ay - py, dx, dy) == 0 and dd:
                    ta = Fraction((ax - px) * dx + (ay - py) * dy, dd)
                    tb = Fraction((bx - px) * dx + (by - py) * dy, dd)
                    t0, t1 = max(min(ta, tb), Fraction(0)), min(max(ta, tb), Fraction(1))
                    if t0 < t1:
                        along[hs] = (t0, t1)
                if _cross(ax - px, ay - py, dx, dy) == 0:
                    t = Fraction((ax - px) * dx + (ay - py) * dy, dd) if dd else Fraction(0)
                    if 0 <= t <= 1 and (dd or (ax, ay) == (px, py)):
                        verts[locate((ax, ay))] = t
            if (p == q and (cx, cy) == p) or (p != q and lo < hi):
                spans.append(grid.Span(h, lo, hi))
    spans.sort(key=lambda s: s.t_in)
    return Trace(
        p, q, tuple(spans),
        tuple(sorted(((t, hs) for hs, t in crossed.items()), key=lambda e: e[0])),
        tuple(sorted(((t0, t1, hs) for hs, (t0, t1) in along.items()), key=lambda e: e[0])),
        tuple(sorted(((t, v) for v, t in verts.items()), key=lambda e: e[0])),
    )


def points(lo: int, hi: int) -> st.SearchStrategy[Point]:
    """Centre dots and vertices (X + Y even) in a square."""
    return st.tuples(st.integers(lo, hi), st.integers(lo, hi)).map(lambda xy: (xy[0], xy[1] + ((xy[0] + xy[1]) & 1)))


def near(p: Point, radius: int) -> st.SearchStrategy[Point]:
    return st.tuples(st.integers(-radius, radius), st.integers(-radius, radius)).map(
        lambda d: (p[0] + d[0], p[1] + d[1] + ((p[0] + d[0] + p[1] + d[1]) & 1)))


segments = points(-1000, 1000).flatmap(lambda p: st.tuples(st.just(p), near(p, 24)))
# directions along hexspines and through neighbour centres make ties likely
special_steps = st.sampled_from([(2, 0), (1, 1), (1, -1), (-1, 1), (-1, -1), (-2, 0), (3, 1), (3, -1),
                                 (0, 2), (-3, 1), (-3, -1), (0, -2), (5, 1), (4, 2), (5, 3), (9, 1)])
special_segments = st.tuples(points(-1000, 1000), special_steps, st.integers(1, 8), st.integers(-2, 2)).map(
    lambda a: (a[0], (a[0][0] + a[1][0] * a[2], a[0][1] + a[1][1] * a[2] + 2 * a[3])))


@settings(max_examples=300, deadline=None)
@given(st.one_of(segments, special_segments))
def test_trace_matches_brute_force(seg: tuple[Point, Point]) -> None:
    p, q = seg
    assert trace.__wrapped__(p, q) == brute_force(p, q)


def test_trace_matches_brute_force_named() -> None:
    for a, b in [("H13", "L13"), ("I14", "K14"), ("A0", "F1"), ("N17", "O16"), ("A1", "J7"), ("N17", "N19")]:
        p, q = H(a).centre(), H(b).centre()
        assert trace(p, q) == brute_force(p, q)
    v = Vertex.parse("N17-O17-O18").point()
    for q in [H("P17").centre(), H("L16").centre(), Vertex.parse("H7-G8-H8").point(), H("N17").centre()]:
        assert trace(v, q) == brute_force(v, q)
        assert trace(q, v) == brute_force(q, v)


# -------------------------------------------------------------------- properties on a 100 x 100 grid

hexes = st.builds(Hex, st.integers(0, 99), st.integers(0, 99))
inner_hexes = st.builds(Hex, st.integers(1, 98), st.integers(1, 98))  # every neighbour has a name
directions = st.integers(0, 5)


@given(hexes, st.sampled_from(["", "St", "Lg", "Ch", "1", "12"]))
def test_names_round_trip(h: Hex, prefix: str) -> None:
    assert Hex.parse(h.name) == h
    assert parse_hex_name(prefix + h.name) == (prefix, h)
    assert column_index(column_label(h.col)) == h.col


@given(st.integers(0, 2000))
def test_column_labels_round_trip(i: int) -> None:
    assert column_index(column_label(i)) == i


@given(inner_hexes, directions)
def test_hexside_names_round_trip(h: Hex, k: int) -> None:
    n = h.neighbour(k)
    hs = h.hexside(k)
    assert Hexside.parse(f"{h.name}-{n.name}") == hs == Hexside.parse(f"{n.name}-{h.name}")
    assert Hexside.parse(hs.name) == hs
    assert hs.name.split("-") == [x.name for x in sorted((h, n))]


@given(inner_hexes, directions, st.permutations([0, 1, 2]))
def test_vertex_names_round_trip(h: Hex, k: int, order: list[int]) -> None:
    v = h.vertex(k)
    trio = [h, h.neighbour(k), h.neighbour(k + 1)]
    text = "-".join(trio[i].name for i in order)
    assert Vertex.parse(text) == v
    assert Vertex.parse(v.name) == v
    assert parse_vertex_name("St" + text) == ("St", v)
    assert locate(v.point()) == v


@given(hexes, hexes)
def test_neighbours_symmetric(a: Hex, b: Hex) -> None:
    assert (a in b.neighbours()) == (b in a.neighbours()) == a.is_adjacent(b) == (a.distance(b) == 1)
    if a.is_adjacent(b):
        assert b.direction_to(a) == (a.direction_to(b) + 3) % 6
        assert a.neighbour(a.direction_to(b)) == b


@given(hexes, directions)
def test_neighbour_direction_round_trip(h: Hex, k: int) -> None:
    n = h.neighbour(k)
    assert h.direction_to(n) == k
    assert n.neighbour(k + 3) == h
    assert h.distance(n) == 1
    (hx, hy), (nx, ny) = h.centre(), n.centre()
    assert (nx - hx, ny - hy) == grid._NEIGHBOUR_STEP[k]


@given(hexes, hexes, hexes)
def test_range_is_a_metric(a: Hex, b: Hex, c: Hex) -> None:
    assert a.distance(a) == 0
    assert (a.distance(b) == 0) == (a == b)
    assert a.distance(b) == b.distance(a)
    assert a.distance(c) <= a.distance(b) + b.distance(c)


def reversed_trace(t: Trace) -> Trace:
    one = Fraction(1)
    return Trace(
        t.end, t.start,
        tuple(grid.Span(s.hex, one - s.t_out, one - s.t_in) for s in reversed(t.spans)),
        tuple((one - tc, hs) for tc, hs in reversed(t.crossed)),
        tuple((one - t1, one - t0, hs) for t0, t1, hs in reversed(t.along)),
        tuple((one - tv, v) for tv, v in reversed(t.vertices)),
    )


def check_contiguous(t: Trace) -> None:
    """Spans and run-along hexsides tile [0, 1] in order, and every joint is a crossing or a vertex."""
    pieces: list[tuple[Fraction, Fraction, object]] = [(s.t_in, s.t_out, s) for s in t.spans]
    pieces += [(t0, t1, hs) for t0, t1, hs in t.along]
    pieces.sort(key=lambda e: e[0])
    assert [s.t_in for s in t.spans] == sorted(s.t_in for s in t.spans)
    assert [tc for tc, _ in t.crossed] == sorted(tc for tc, _ in t.crossed)
    assert [tv for tv, _ in t.vertices] == sorted(tv for tv, _ in t.vertices)
    if not pieces:
        return
    assert pieces[0][0] == 0 and pieces[-1][1] == 1
    crossed = {tc: hs for tc, hs in t.crossed}
    vertices = {tv: v for tv, v in t.vertices}
    assert len(crossed) == len(t.crossed) and len(vertices) == len(t.vertices)
    joints = 0
    for (_, end, x), (start, _, y) in itertools.pairwise(pieces):
        assert end == start
        if isinstance(x, grid.Span) and isinstance(y, grid.Span) and end in crossed:
            assert crossed[end] == Hexside.of(x.hex, y.hex)
            assert end not in vertices
            joints += 1
        else:
            v = vertices[end]
            for piece in (x, y):
                if isinstance(piece, grid.Span):
                    assert piece.hex in v.hexes
                else:
                    assert isinstance(piece, Hexside) and set(piece.hexes) <= set(v.hexes)
            if isinstance(x, grid.Span) and isinstance(y, grid.Span):
                assert x.hex.is_adjacent(y.hex)
    assert joints == len(t.crossed)
    for t0, t1, _ in t.along:
        assert t0 in vertices and t1 in vertices


@settings(max_examples=300, deadline=None)
@given(hexes, hexes)
def test_trace_contiguous_and_ends(a: Hex, b: Hex) -> None:
    t = trace_hexes(a, b)
    assert t.hexes[0] == a and t.hexes[-1] == b
    assert t.spans[0].t_in == 0 and t.spans[-1].t_out == 1
    check_contiguous(t)
    for i, j in itertools.pairwise(t.hexes):
        assert i != j
    assert len(set(t.touched)) == len(t.touched)
    assert set(t.hexes) <= set(t.touched)
    # a thread cannot visit fewer hexes than the range + 1 unless it runs along hexsides
    if not t.along:
        assert len(t.spans) >= a.distance(b) + 1


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.tuples(hexes, hexes).map(lambda ab: (ab[0].centre(), ab[1].centre())), segments,
                 special_segments))
def test_trace_reverse(seg: tuple[Point, Point]) -> None:
    p, q = seg
    if p != q:
        assert trace(q, p) == reversed_trace(trace(p, q))
    check_contiguous(trace(p, q))


def at(t: Trace, tt: Fraction) -> tuple[set[Hex], Hex | None, bool, Hexside | None]:
    """The hexes the trace touches at parameter tt, the hex whose interior holds that point (if any),
    whether a vertex or a run-along hexside is there, and the hexside crossed there (if any)."""
    touched: set[Hex] = set()
    inside = None
    special = False
    crossing = next((hs for tc, hs in t.crossed if tc == tt), None)
    for s in t.spans:
        if s.t_in <= tt <= s.t_out:
            touched.add(s.hex)
            if s.t_in < tt < s.t_out or (tt == 0 == s.t_in and t.start == s.hex.centre()) or (
                    tt == 1 == s.t_out and t.end == s.hex.centre()):
                inside = s.hex
    for t0, t1, hs in t.along:
        if t0 <= tt <= t1:
            touched.update(hs.hexes)
            special = True
    for tv, v in t.vertices:
        if tv == tt:
            touched.update(v.hexes)
            special = True
    return touched, inside, special, crossing


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.tuples(hexes, hexes),
                 st.tuples(hexes, st.sampled_from([(2, 0), (1, 1), (1, -1), (3, 0), (4, 2), (5, 1), (0, 3)]),
                           st.integers(1, 12), st.sampled_from([1, -1, 0])).map(
                     lambda a: (a[0], Hex.from_cube(a[0].cube()[0] + a[3] * a[1][0] * a[2],
                                                    a[0].cube()[1] - a[3] * a[1][1] * a[2])))))
def test_trace_agrees_with_nudged_lines(ab: tuple[Hex, Hex]) -> None:
    """Where the +eps and -eps walks agree the exact trace is in that hex; where they differ, it runs along
    a hexside or passes through a vertex there, touching both hexes, or (a sample that falls exactly on a
    hexside the thread crosses, e.g. A4 to B0 at A2-B2) it crosses the hexside between the two there."""
    a, b = ab
    t = trace_hexes(a, b)
    plus, minus = nudged_line(a, b, +1), nudged_line(a, b, -1)
    n = a.distance(b)
    assert len(plus) == len(minus) == n + 1
    ties = 0
    for i, (hp, hm) in enumerate(zip(plus, minus)):
        tt = Fraction(i, n) if n else Fraction(0)
        touched, inside, special, crossing = at(t, tt)
        if hp == hm:
            assert hp in touched
            if inside is not None:
                assert hp == inside
        else:
            ties += 1
            assert special or crossing == Hexside.of(hp, hm), (i, hp, hm)
            assert {hp, hm} <= touched
    if not t.along and not t.vertices and all(tc * n % 1 for tc, _ in t.crossed):
        assert ties == 0


def test_nudged_lines_differ_on_a_crossed_hexside() -> None:
    """The two nudged walks also differ where a sample falls exactly on a hexside the thread crosses:
    A4 to B0 crosses A2-B2 at its midpoint, t = 1/2, with no hexside run along and no vertex."""
    a, b = H("A4"), H("B0")
    plus, minus = nudged_line(a, b, +1), nudged_line(a, b, -1)
    assert {plus[2], minus[2]} == {H("A2"), H("B2")}
    t = trace_hexes(a, b)
    assert t.along == () and t.vertices == ()
    assert (Fraction(1, 2), Hexside.parse("A2-B2")) in t.crossed


def test_nudged_line_h13_l13() -> None:
    plus, minus = nudged_line(H("H13"), H("L13"), 1), nudged_line(H("H13"), H("L13"), -1)
    assert {p for p, m in zip(plus, minus) if p != m} | {m for p, m in zip(plus, minus) if p != m} == {
        H("I13"), H("I14"), H("K13"), H("K14")}
