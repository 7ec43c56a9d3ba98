"""What the map says for movement: road types, slopes, Narrow Streets, culverts and Crest status as the
rules read them, and the cached geometry of hexsides, vertices and Bypass positions."""

from __future__ import annotations

from typing import Any

from ..errors import QueryError, UnknownLocation
from ..grid import Hex, Hexside, Vertex
from ..model import HexsideTerrain, Location, Map, narrow_street_bypass_blockers
from .rulings import Prohibition


def road_hexside_type(hst: HexsideTerrain) -> str | None:
    """The road type whose rate applies to crossing this hexside: ``"paved"`` or ``"dirt"`` (B3.1).

    A Narrow Street counts as a road (P5.1): paved as paved, unpaved as dirt. Entry of a hex is per the
    type of the road hexside crossed, not the hex's own type (B3.1: 12M4 entered across M4-L3 is per dirt).
    """
    if hst.road is not None:
        return hst.road
    if hst.narrow_street is not None:
        return "paved" if hst.narrow_street == "paved" else "dirt"
    return None


def road_hex_type(m: Map, h: Hex) -> str | None:
    """A hex's road type (B3.1): ``"paved"`` when any paved road crosses one of its hexsides (a hex with
    both kinds is a paved road hex), ``"dirt"`` when only dirt roads do, None for no road.

    Narrow Streets do not make a road hex here (P5.14 and P5.142 treat those hexes on their own).

    Examples
    --------
    >>> from asl_terrain.model import Map
    >>> m = Map.from_data({"format": "asl-terrain/1", "columns": ["A", "C"], "rows": [1, 3],
    ...     "hexside": [{"at": ["B2-B1"], "road": "paved"}, {"at": ["B2-A2"], "road": "dirt"}]})
    >>> road_hex_type(m, Hex.parse("B2")), road_hex_type(m, Hex.parse("A2")), road_hex_type(m, Hex.parse("C3"))
    ('paved', 'dirt', None)
    """
    kinds = {t.road for t in m.hexsides_of(h) if t.road is not None}
    if "paved" in kinds:
        return "paved"
    if "dirt" in kinds:
        return "dirt"
    return None


def road_negated(m: Map, h: Hex) -> bool:
    """A road covered by rubble is treated as non-existent (B3.43): rubble terrain or a Rubble counter."""
    return m.is_rubble(h)


def road_bonus_spoilers(m: Map, h: Hex) -> list[str]:
    """What a unit meets in road hex ``h`` that denies the B3.4 road bonus: mines, burning wrecks, Wire,
    rubble and SMOKE. (A roadblock is met where the move crosses its hexside or its Narrow Street segment;
    debris and Panji are outside the map format; mud and Deep Snow come from the conditions.)"""
    out: list[str] = []
    cs = m.counters_at(h)
    if not cs and m.terrain(h).terrain != "rubble":
        return out
    if m.smoke(h):
        out.append(f"SMOKE in {m.name_of(h)}")
    if m.mines(h):
        out.append(f"mines in {m.name_of(h)}")
    if any(c.type == "wreck" and c.burning and c.at == h for c in cs):
        out.append(f"a burning wreck in {m.name_of(h)}")
    if m.has_counter(h, "wire"):
        out.append(f"Wire in {m.name_of(h)}")
    if road_negated(m, h):
        out.append(f"rubble in {m.name_of(h)}")
    return out


def moves_up_slope(m: Map, frm: Hex, hs: Hexside) -> bool | None:
    """Whether crossing slope hexside ``hs`` from ``frm`` moves Up-Slope (True) or Down-Slope (False), or
    None when ``hs`` is no slope hexside (P2.5: crossing a slope hexside one is Down-Slope from is moving
    Up-Slope; the hash marks are in the Down-Slope hex, P2.2)."""
    t = m.hexside(hs)
    if t.slope is None:
        return None
    return t.slope == frm


def is_crest_line_slope(m: Map, hs: Hexside) -> bool:
    """A combination Crest-Line-slope hexside (P2.53): a slope hexside that is also a Crest Line."""
    t = m.hexside(hs)
    return t.slope is not None and t.crest


def bypass_hex(m: Map, hs: Hexside, preferred: Hex | None = None) -> Hex | None:
    """The hex a unit Bypassing along Narrow Street ``hs`` is in (P5.11): the lower hex of a Crest Line
    hexside, otherwise ``preferred`` (None when the rule leaves it open)."""
    return m.crest_narrow_street_lower_hex(hs) or preferred


def narrow_street_bypass_blocked(m: Map, hs: Hexside) -> str | None:
    """Why all Bypass along Narrow Street hexside ``hs`` is NA (P5.126), or None: another vehicle/wreck in
    Bypass along it (either hex), a Blaze (a burning wreck in Bypass along another hexside excepted), or
    Rubble in either hex (:func:`asl_terrain.model.narrow_street_bypass_blockers`); the first is named."""
    for b in narrow_street_bypass_blockers(m, hs):
        if b.blocks:
            if b.what in ("vehicle", "wreck"):
                return f"a {b.what} is already in Bypass along {m.name_of(hs)} (in {m.name_of(b.hex)})"
            return b.words(m, hs)
    return None


def narrow_street_smoke(m: Map, hs: Hexside) -> Hex | None:
    """The hex whose SMOKE adds to the cost of Bypass along Narrow Street ``hs`` (P5.11): SMOKE in either
    ground-level Location, but on a Crest Line hexside only the lower hex's. None for no SMOKE."""
    for h in m.bypass_hexes(hs):
        if h in m and m.smoke(h):
            return h
    return None


def culvert_entry_problem(m: Map, frm: Location, to: Hex) -> Prohibition | None:
    """Why entering the Stream Culvert of ``to`` from ``frm`` is NA (P4.21), or None: entry only from IN
    an ADJACENT stream (or Stream Culvert) Location, never when the stream is flooded."""
    t = m.terrain(to)
    name = m.name_of(to)
    if not t.culvert:
        return Prohibition(f"{name} has no Stream Culvert", "P4.2")
    if t.stream == "flooded":
        return Prohibition(f"the stream in {name} is flooded", "P4.21")
    if frm.hex == to:
        return Prohibition("a Stream Culvert is entered only from IN an ADJACENT stream or culvert Location, not from "
                           "its own hex", "P4.21")
    if not frm.hex.is_adjacent(to):
        return Prohibition(f"{m.name_of(frm.hex)} is not adjacent to {name}", "P4.21")
    ft = m.terrain(frm.hex)
    hst = m.hexside(Hexside.of(frm.hex, to))
    if frm.place == "culvert":
        ok = hst.culvert or hst.stream
    else:
        ok = (frm.place == "" and frm.level == 0 and not frm.is_bypass and ft.is_stream
              and (hst.stream or hst.culvert))
    if not ok:
        return Prohibition("a Stream Culvert is entered only from IN an ADJACENT stream (or Stream Culvert) "
                           "Location", "P4.21")
    return None


def crest_status_problem(m: Map, h: Hex, hs: Hexside | None) -> Prohibition | None:
    """Why Crest status cannot be gained in hex ``h`` (along ``hs``), or None (P4.22: never in a Stream
    Culvert hex, nor along a stream-and-Stream-Culvert hexside)."""
    t = m.terrain(h)
    if t.culvert:
        return Prohibition(f"Crest status cannot be gained in a Stream Culvert hex ({m.name_of(h)})", "P4.22")
    if hs is not None:
        hst = m.hexside(hs)
        if hst.stream and hst.culvert:
            return Prohibition("Crest status cannot be gained along stream-and-Stream-Culvert hexside "
                               f"{m.name_of(hs)}", "P4.22")
    if t.stream == "flooded":
        return Prohibition(f"the stream in {m.name_of(h)} is flooded: a water obstacle, not a depression", "B20.44")
    return None


#: the geometry below, kept by plain coordinates (hashed in C: the grid's dataclasses hash in Python, and a
#: search asks tens of thousands of times); each table is emptied when it reaches its bound
_GEOMETRY_LIMIT = 1 << 15  # a 3-board layout has about 1,000 hexes and 3,200 hexsides
_ENDS: dict[tuple[int, int, int, int], tuple[Vertex, Vertex]] = {}
_VERTICES: dict[tuple[int, int], tuple[Vertex, ...]] = {}
_SIDES_AT: dict[tuple[int, ...], tuple[Hexside, ...]] = {}


def _kept(table: dict[Any, Any], key: Any, value: Any) -> Any:
    """``value`` kept in ``table`` under ``key`` (the table emptied first when full)."""
    if len(table) >= _GEOMETRY_LIMIT:
        table.clear()
    table[key] = value
    return value


def _ends(hs: Hexside) -> tuple[Vertex, Vertex]:
    """The two end vertices of a hexside (cached geometry)."""
    a, b = hs.a, hs.b
    k = (a.col, a.row, b.col, b.row)
    got = _ENDS.get(k)
    return got if got is not None else _kept(_ENDS, k, hs.vertices())


def _hex_vertices(h: Hex) -> tuple[Vertex, ...]:
    """The six vertices of a hex (cached geometry)."""
    k = (h.col, h.row)
    got = _VERTICES.get(k)
    return got if got is not None else _kept(_VERTICES, k, h.vertices())


def _same_vertex(x: Vertex, v: Vertex) -> bool:
    """``x == v``, by coordinates (no dataclass __eq__ calls)."""
    return x is v or (x.a.col == v.a.col and x.a.row == v.a.row and x.b.col == v.b.col and x.b.row == v.b.row
                      and x.c.col == v.c.col and x.c.row == v.c.row)


def _other_end(hs: Hexside, v: Vertex) -> Vertex:
    """The end vertex of ``hs`` that is not ``v`` (where a step in Bypass along ``hs`` from ``v`` ends)."""
    a, b = _ends(hs)
    if b is v:
        return a
    return b if _same_vertex(a, v) else a


def _hexsides_at(h: Hex, v: Vertex) -> tuple[Hexside, ...]:
    """The two hexsides of ``h`` that meet at its vertex ``v`` (none when ``v`` is not one of its vertices)."""
    k = (h.col, h.row, v.a.col, v.a.row, v.b.col, v.b.row, v.c.col, v.c.row)
    got = _SIDES_AT.get(k)
    if got is None:
        got = ()
        for i, x in enumerate(_hex_vertices(h)):
            if _same_vertex(x, v):
                got = (h.hexside(i), h.hexside(i + 1))
                break
        _kept(_SIDES_AT, k, got)
    return got


def bypass_ns(loc: Location, m: Map) -> bool:
    """Whether a Bypass position is along a Narrow Street (its hexside, or any hexside at its vertex)."""
    if loc.bypass is not None:
        return m.hexside(loc.bypass).narrow_street is not None
    if loc.vertex is not None:
        return any(m.hexside(hs).narrow_street is not None for hs in _hexsides_at(loc.hex, loc.vertex))
    return False


def _beyond_grid(v: Vertex) -> bool:
    """Whether a vertex touches a hex of negative column or row, which has no name (the edge of the grid)."""
    a, b, c = v.a, v.b, v.c  # no generator: asked for every step in Bypass
    return a.col < 0 or a.row < 0 or b.col < 0 or b.row < 0 or c.col < 0 or c.row < 0


def _in_vca_obstacle(m: Map, h: Hex, obstacles: tuple[str, ...]) -> bool:
    """Whether a vehicle (not in Bypass) in hex ``h`` is in a building, woods or rubble hex, where each
    hexspine of VCA change costs more (D2.11; the hexes are the chart's ``vca_obstacle_terrain``)."""
    return ("rubble" if m.is_rubble(h) else m.terrain(h).terrain) in obstacles  # a Rubble counter is rubble


# ============================================================================================ entry prohibitions


def checked_location(m: Map, x: Location, key: str, parsed: bool = False) -> Location:
    """Location ``x`` (or a Bypass position) checked against the map and in its canonical form: a Bypass
    position naming the higher hex of a Crest-Line Narrow Street hexside is the lower hex's (P5.11), and a
    unit in Bypass is at ground level (A4.3). ``parsed``: ``x`` comes from the map's own parser, which
    checked it already. Errors name query key ``key``."""
    if not parsed:
        if x.hex not in m:
            raise UnknownLocation(f"{key}: hex {x.hex!r} is not on map {m.name!r}")
        if x.is_ground:
            return x  # every hex of the map has its ground Location
        try:
            m.check_location(x.base())
        except QueryError as e:
            raise type(e)(f"{key}: {e}") from None
    loc = x
    if x.bypass is not None:
        low = bypass_hex(m, x.bypass)
        if low is not None and low != x.hex:
            loc = Location(low, x.level, x.place, x.bypass, x.vertex)
    if loc.is_bypass and (loc.level or loc.place):
        raise QueryError(f"{key}: a unit in Bypass is at ground level (A4.3); expected a Bypass position such as "
                         f"{m.name_of(loc.hex)}@... without '/{loc.place or loc.level}'")
    return loc
