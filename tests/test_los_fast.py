"""The LOS engine's fast paths give the plain path's answers (issue 13).

* a thread traced as it is walked (``los._stream``, a shape met for the first time) and its compiled
  template yield exactly the contacts read off the exact trace (``grid.trace``'s record of spans, hexsides
  crossed and run along, vertices) by an independent derivation (``_from_trace``), on random maps and
  threads (centre dots and Bypass vertices);
* rulings decided through the streamed walk equal those through the compiled template;
* a map's derived tables are built once, kept with the map and bounded;
* rulings asked from many threads at once equal the serial ones (the web page queries concurrently).
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_los import small_maps

from asl_terrain import grid
from asl_terrain import los as L
from asl_terrain.grid import Hex, Hexside, Trace, Vertex
from asl_terrain.model import Location, Map, load_demo


def _vertex_sides(v: Vertex, dx: int, dy: int, t: float) -> list[Hex]:
    """The hexsides at vertex ``v`` that a thread of direction (dx, dy) does not run along, the lone one on
    its side of the thread first, as their hexes."""
    vx, vy = v.point()
    left: list[Hexside] = []
    right: list[Hexside] = []
    for hs in v.hexsides():
        e1, e2 = hs.endpoints()
        ex, ey = e2 if e1 == (vx, vy) else e1
        side = dx * (ey - vy) - dy * (ex - vx)
        (left if side > 0 else right if side < 0 else []).append(hs)
    lone, others = (left, right) if len(left) == 1 else (right, left)
    return [h for hs in (*lone, *others) for h in (hs.a, hs.b)]


def _from_trace(tr: Trace, ix: Any) -> list[tuple[Any, ...]]:
    """The contacts of a thread read off its :class:`Trace` (hexes as ``ix(hex)``), sorted by t, what ends or
    is crossed at a t before what starts there: the derivation the engine's walk must agree with."""
    (px, py), (qx, qy) = tr.start, tr.end
    dx, dy = qx - px, qy - py
    events: list[tuple[Any, int, tuple[Any, ...]]] = []
    ends_at: dict[Any, tuple[Hex, ...]] = {}
    starts_at: dict[Any, tuple[Hex, ...]] = {}
    for sp in tr.spans:
        events.append((sp.t_in, 1, (L._S, float(sp.t_in), float(sp.t_out), ix(sp.hex))))
        ends_at[sp.t_out], starts_at[sp.t_in] = (sp.hex,), (sp.hex,)
    for t0, t1, hs in tr.along:
        events.append((t0, 1, (L._A, float(t0), float(t1), ix(hs.a), ix(hs.b))))
        ends_at[t1], starts_at[t0] = hs.hexes, hs.hexes
    for t, hs in tr.crossed:
        events.append((t, 0, (L._X, float(t), float(t), ix(hs.a), ix(hs.b))))
    for t, v in tr.vertices:
        if not 0 < t < 1:
            continue
        f = float(t)
        prev, nxt = ends_at[t], starts_at[t]
        for h in v.hexes:
            if h not in prev and h not in nxt:
                events.append((t, 0, (L._T, f, f, ix(h))))
        pairs = [(a, b) for a in prev for b in nxt] if len(prev) == 1 or len(nxt) == 1 else []
        for a, b in pairs:
            a, b = min(a, b), max(a, b)
            events.append((t, 0, (L._P, f, f, ix(a), ix(b))))
        events.append((t, 0, (L._V, f, f, *(ix(h) for h in _vertex_sides(v, dx, dy, f)))))
    events.sort(key=lambda e: e[:2])
    return [e[2] for e in events]


def _points(m: Map, data: Any) -> tuple[tuple[int, int], tuple[int, int]]:
    hexes = list(m.hexes())
    pts = []
    for _ in range(2):
        h = data.draw(st.sampled_from(hexes))
        if data.draw(st.booleans()):
            pts.append(h.vertex(data.draw(st.integers(0, 5))).point())
        else:
            pts.append(h.centre())
    return pts[0], pts[1]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_maps(), st.data())
def test_a_streamed_thread_meets_exactly_the_contacts_of_its_template(m: Map, data: Any) -> None:
    tab = L._resolve(m, None, None)
    for _ in range(10):
        p, q = _points(m, data)
        comp, base = tab.compiled(p, q)
        compiled = [(c[0], c[1], c[2], *(base + x for x in c[3:])) for c in comp.contacts]
        want = _from_trace(grid.trace(p, q), tab.idx)
        assert list(L._stream(tab, p, q)) == want
        assert compiled == want


def test_threads_along_hexsides_and_through_vertices_stream_as_compiled() -> None:
    """Every direction out to range 6 from both column parities, the exact-vertex and hexside-run cases
    included, on the demo map."""
    m = load_demo()
    tab = L._resolve(m, None, None)
    for start in (Hex(10, 10), Hex(11, 10)):
        p = start.centre()
        for dc in range(-6, 7):
            for dr in range(-6, 7):
                q = Hex(start.col + dc, start.row + dr).centre()
                comp, base = tab.compiled(p, q)
                compiled = [(c[0], c[1], c[2], *(base + x for x in c[3:])) for c in comp.contacts]
                want = _from_trace(grid.trace(p, q), tab.idx)
                assert list(L._stream(tab, p, q)) == want == compiled, (p, q)


def _outcome(o: L._Outcome) -> tuple[Any, ...]:
    return (o.clear, o.block, o.blind, o.hinds, o.drm, o.rules)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_maps(), st.data())
def test_streamed_rulings_equal_the_compiled_ones(m: Map, data: Any) -> None:
    locs = [loc for h in m.hexes() for loc in m.locations(h)]
    tab = L._resolve(m, None, None)
    for _ in range(12):
        a = data.draw(st.sampled_from(locs))
        b = data.draw(st.sampled_from(locs))
        A, B = tab.end(a), tab.end(b)
        key = (A.point[0] % 6, A.point[1] & 1, B.point[0] - A.point[0], B.point[1] - A.point[1])
        tab.templates.pop(key, None)
        tab.seen.discard(key)
        streamed = L._decide(tab, A, B, (False, False), False)   # first sight: traced as walked
        compiled = L._decide(tab, A, B, (False, False), True)    # the borderline test compiles the shape
        assert _outcome(streamed[0]) == _outcome(compiled[0])
        assert streamed[1:5] == compiled[1:5]


def test_a_maps_tables_are_built_once_kept_with_it_and_bounded() -> None:
    m = load_demo()
    built = []

    def build() -> object:
        built.append(1)
        return object()

    first = m.derived("k", build)
    assert m.derived("k", build) is first and len(built) == 1
    for i in range(40):
        m.derived(("other", i), build, limit=16)
    assert len(m._derived) <= 16
    t1 = L._resolve(m, None, None)
    assert L._resolve(m, None, None) is t1
    assert L._resolve(load_demo(), None, None) is not t1   # another map, its own tables


def test_rulings_asked_from_many_threads_equal_the_serial_ones() -> None:
    m = load_demo()
    hexes = list(m.hexes())
    pairs = [(Location(hexes[i]), Location(hexes[(i * 37 + 11) % len(hexes)])) for i in range(0, len(hexes), 3)]
    serial = [L.los(load_demo(), a, b).to_json() for a, b in pairs]
    got: dict[int, list[dict[str, Any]]] = {}

    def work(k: int) -> None:
        got[k] = [L.los(m, a, b).to_json() for a, b in pairs]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(got[k] == serial for k in range(6))


def _rulings(m: Map, pairs: list[tuple[Location, Location]], views: list[Location]) -> list[Any]:
    m._derived.clear()  # tables built anew, as this test's SPARSE_OVER says
    out: list[Any] = [L.los(m, a, b).to_json() for a, b in pairs]
    out += [L.viewshed(m, v).to_json() for v in views]
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_maps(), st.data())
def test_sparse_tables_rule_as_the_lists(m: Map, data: Any) -> None:
    """issue 13 item 2: a very big map keeps its per-index tables sparse, reading a hex when a thread first
    needs it; on random maps (streams, walls, hedges, slopes, counters) every ruling equals the lists'."""
    locs = [loc for h in m.hexes() for loc in m.locations(h)]
    pairs = [(data.draw(st.sampled_from(locs)), data.draw(st.sampled_from(locs))) for _ in range(20)]
    views = [data.draw(st.sampled_from(locs))]
    lists = _rulings(m, pairs, views)
    was = L.SPARSE_OVER
    L.SPARSE_OVER = -1
    try:
        assert _rulings(m, pairs, views) == lists
        assert isinstance(L._resolve(m, None, None).recs, L._Sparse)
    finally:
        L.SPARSE_OVER = was
        m._derived.clear()


def test_sparse_tables_rule_as_the_lists_on_the_fixture_maps() -> None:
    """The same on the demo map and the fixture maps with bridges, rowhouses, bocage, Narrow Streets and
    their roadblock, slopes and streams: viewsheds from a spread of hexes and threads between them."""
    from pathlib import Path

    maps = Path(__file__).parent / "maps"
    for m in [load_demo(), *(Map.load(maps / f"{n}.toml") for n in (
            "b6_bridge_b21_water_b23_rowhouse", "b6_bridge_levels", "b9_bocage", "st_village", "st_village_mines",
            "p2_slopes", "p2_slopes_house", "streams", "crest_slope"))]:
        hexes = list(m.hexes())
        views = [Location(h) for h in hexes[:: max(1, len(hexes) // 5)]]
        pairs = [(Location(hexes[i]), Location(hexes[(i * 37 + 11) % len(hexes)])) for i in range(0, len(hexes), 2)]
        lists = _rulings(m, pairs, views)
        was = L.SPARSE_OVER
        L.SPARSE_OVER = -1
        try:
            assert _rulings(m, pairs, views) == lists, m.name
        finally:
            L.SPARSE_OVER = was
            m._derived.clear()


@pytest.mark.parametrize("walls", [True, False])
def test_fresh_tables_built_by_many_threads_at_once_give_the_serial_answers(walls: bool) -> None:
    """Every lazy part of a map's LOS tables (hex records, compiled thread shapes and their borderline
    variants, ends) built by several threads at once, switching threads as often as the interpreter can:
    rulings (borderline included), batch verdicts and viewsheds equal the serial ones, on a map with walls
    and one without (which read different variants of a shape)."""
    def fresh() -> Map:
        data = {"format": "asl-terrain/1", "name": "t", "columns": ["A", "N"], "rows": [1, 10],
                "hex": [{"at": ["C3", "D4", "H6", "I6"], "terrain": "woods"}, {"at": ["F2", "F3"], "level": 1},
                        {"at": ["K8"], "terrain": "brush"}, {"at": ["E7", "L3"], "terrain": "orchard"}],
                "hexside": [{"at": ["G5-G6", "B8-C8"], "wall": True}] if walls else []}
        return Map.from_data(data)

    m0 = fresh()
    locs = [Location(h) for h in m0.hexes()]
    pairs = [(a, b) for a in locs[::7] for b in locs[::3]]
    serial = ([L.los(m0, a, b).to_json() for a, b in pairs], list(L.los_verdicts(m0, pairs)),
              L.viewshed(m0, locs[40]).to_json())
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(3):
            m = fresh()
            got: dict[int, Any] = {}

            def work(k: int) -> None:
                cut = k * len(pairs) // 4
                order = pairs[cut:] + pairs[:cut]  # each thread meets the shapes in its own order
                rulings = {(a, b): L.los(m, a, b).to_json() for a, b in order}
                got[k] = ([rulings[p] for p in pairs], list(L.los_verdicts(m, pairs)),
                          L.viewshed(m, locs[40]).to_json())

            threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(got) == [0, 1, 2, 3]  # no thread failed
            assert all(got[k] == serial for k in range(4))
    finally:
        sys.setswitchinterval(old)


# ------------------------------------------------------------------ borderline variants, as they are read


def _eager_variants(tr: Trace, p: Any, q: Any, tol: float) -> tuple[list[Any], list[Any]] | None:
    """The borderline variants as they were built before they were read lazily: each shifted walk whole,
    its leading start-vertex hexes and trailing end-vertex hexes popped, then its contacts."""
    got = L._nudged_variants(tr, p, q, tol)
    if got is None:
        return None
    ax, ay = L._true(p)
    bx, by = L._true(q)
    ux, uy = bx - ax, by - ay
    length = (ux * ux + uy * uy) ** 0.5
    nx, ny = -uy / length, ux / length
    first, last = L._end_hexes(tr, True), L._end_hexes(tr, False)
    start_v = {(h.col, h.row) for t, v in tr.vertices if t == 0 for h in v.hexes}
    end_v = {(h.col, h.row) for t, v in tr.vertices if t == 1 for h in v.hexes}
    out = []
    for sign in (1.0, -1.0):
        d = tol * 1.000001 * sign
        hexes = list(L._walk_float((ax + nx * d, ay + ny * d), (bx + nx * d, by + ny * d)))
        while hexes and start_v and hexes[0] in start_v and hexes[0] not in first:
            hexes.pop(0)
        while hexes and end_v and hexes[-1] in end_v and hexes[-1] not in last:
            hexes.pop()
        cs: list[Any] = []
        for k, rel in enumerate(hexes):
            if k:
                cs.append((L._X, 0.0, 0.0, min(hexes[k - 1], rel), max(hexes[k - 1], rel)))
            cs.append((L._S, 0.0, 0.0, rel))
        out.append(cs)
    return out[0], out[1]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 5), st.integers(0, 1), st.integers(-40, 40), st.integers(-40, 40),
       st.sampled_from([0.01, 0.05, 0.2]), st.booleans())
def test_borderline_variants_read_lazily_are_the_whole_shifted_walks(kx: int, ky: int, dc: int, dr: int,
                                                                     tol: float, vertex_end: bool) -> None:
    """The variants worked out as a walk reads them are the whole shifted walks, trimmed at the end vertices
    as before (centre dots and vertex ends)."""
    p = Hex(kx, ky + 3).centre()
    q = Hex(kx + dc, ky + 3 + dr).centre()
    if vertex_end:
        q = (q[0] + grid._VERTEX_STEP[dc % 6][0], q[1] + grid._VERTEX_STEP[dc % 6][1])
    if p == q:
        return
    tr = grid.trace.__wrapped__(p, q)
    lazy = L._nudged_variants(tr, p, q, tol)
    eager = _eager_variants(tr, p, q, tol)
    assert (lazy is None) == (eager is None)
    if lazy is not None and eager is not None:
        assert [list(lazy[0]), list(lazy[1])] == [eager[0], eager[1]]


def test_unrolled_contacts_are_their_source_however_they_are_read() -> None:
    """Walks that stop early, walks side by side and walks from several threads all read the source's
    items in order, each worked out once."""
    made: list[int] = []

    def source() -> Any:
        for i in range(1000):
            made.append(i)
            yield (L._S, 0.0, 0.0, i)

    u = L._Unrolled(source())
    want = [(L._S, 0.0, 0.0, i) for i in range(1000)]
    assert [c for _, c in zip(range(10), u)] == want[:10]
    assert len(made) < 100  # only as far as read (in small batches)
    a, b = iter(u), iter(u)
    assert [next(a), next(a), next(b)] == [want[0], want[1], want[0]]
    got: dict[int, list[Any]] = {}
    threads = [threading.Thread(target=lambda k=k: got.__setitem__(k, list(u))) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(got[k] == want for k in range(4)) and list(u) == want and made == list(range(1000))


def test_a_long_blocked_thread_works_out_only_the_start_of_its_borderline_variants() -> None:
    """issue 13 (the first LOS on a big map): the thread is blocked three hexes out, so its borderline walks
    stop there too; the variants of the rest of the thread are never worked out."""
    m = Map.from_data({"format": "asl-terrain/1", "name": "long", "columns": ["A", "KK"], "rows": [1, 10],
                       "hex": [{"at": ["C2"], "terrain": "woods"}],
                       "hexside": [{"at": ["H5-H6"], "wall": True}]})
    a, b = m.parse_location("A2"), m.parse_location("KK2")
    r = L.los(m, a, b)
    assert not r.clear and r.blocked_by is not None and r.blocked_by.hex == Hex.parse("C2")
    tab = L._resolve(m, None, None)
    comp, _ = tab.compiled(tab.end(a).point, tab.end(b).point)
    assert comp.nudged is not None and len(comp.contacts) > 100
    assert all(len(v._items) < 70 for v in comp.nudged)  # one batch each: the walks stopped at C2
    eager = _eager_variants(grid.trace.__wrapped__(*_ends(comp)), *_ends(comp), comp.tol)
    assert eager is not None and all(len(e) > 70 for e in eager)
    assert [list(v) for v in comp.nudged] == [[(c[0], c[1], c[2], *(h[0] * comp.stride + h[1] for h in c[3:]))
                                               for c in e] for e in eager]


def _ends(comp: Any) -> tuple[Any, Any]:
    kx, ky, dx, dy = comp.key
    return (kx, ky), (kx + dx, ky + dy)


_WHERE = st.sampled_from(["centre", *range(6)])


def _point(h: Hex, where: Any) -> tuple[int, int]:
    return h.centre() if where == "centre" else h.vertices()[where].point()


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 30), st.integers(0, 30), _WHERE, st.integers(-12, 12), st.integers(-12, 12), _WHERE,
       st.booleans())
def test_p2_3_the_boundary_of_an_end_is_the_same_seen_from_every_hex(col: int, row: int, where: Any, dc: int,
                                                                     dr: int, there: Any, at_start: bool) -> None:
    """Up-Slope (P2.3) asks which of an end hex's hexsides its thread leaves or enters through; the fast path
    reads that off one reference hex (the grid is a lattice): the same hexsides as the exact trace's."""
    h = Hex(col, row)
    end, far = _point(h, where), _point(Hex(col + dc, row + dr), there)
    if far == end:
        return
    p, q = (end, far) if at_start else (far, end)
    exact = L._boundary(grid.trace(p, q), h, at_start)
    cx, cy = h.centre()
    fast = L._boundary_steps(p[0] - cx, p[1] - cy, q[0] - cx, q[1] - cy, at_start)
    assert fast == L._side_steps(h, exact)
    assert len(fast) == len(exact)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=4, max_size=60),
       st.tuples(st.floats(-20, 60), st.floats(-20, 60)), st.tuples(st.floats(-20, 60), st.floats(-20, 60)),
       st.sampled_from([0.0, 0.6, -0.6]))
def test_a6_1_the_hull_shortcut_weighs_a_drawn_wall_as_every_pixel_does(px: list[tuple[int, int]],
                                                                        a: tuple[float, float],
                                                                        b: tuple[float, float],
                                                                        shift: float) -> None:
    """B9.1 / A6.1: whether a drawn wall lies on both sides of a thread, decided from its pixels' convex hull
    where that decides, equals the count over every pixel."""
    import numpy as np

    pts = np.array([(x + 0.5, y + 0.5) for x, y in px], dtype=np.float64)

    class Dep:
        def wall_pixels(self, key: Any, raster: Any = None, turn: Any = None) -> Any:
            return pts

        wall_hull = L.ArtworkDepiction.wall_hull
        _wall_hull: dict[Any, Any] = {}

    class Raster:
        def frame_for(self, p: Any, q: Any) -> tuple[Any, None]:
            return self, None

        def los_point(self, g: Any) -> Any:
            return g

    dep = Dep()
    dep.raster = Raster()  # type: ignore[attr-defined]
    thread = L._ArtworkThread(dep, a, b, shift)  # type: ignore[arg-type]
    (x0, y0), (x1, y1) = a, b
    dx, dy = x1 - x0, y1 - y0
    length = float(np.hypot(dx, dy)) or 1.0
    if shift:
        x0, y0 = x0 + dy / length * shift, y0 - dx / length * shift
    rx, ry = pts[:, 0] - x0, pts[:, 1] - y0
    along = (rx * dx + ry * dy) / (length * length)
    side = (rx * dy - ry * dx) / length
    inside = (along >= 0) & (along <= 1)
    every = int(((side > 1.0) & inside).sum()) >= 2 and int(((side < -1.0) & inside).sum()) >= 2
    assert thread.drawn_on_both_sides((0, 1)) == every
