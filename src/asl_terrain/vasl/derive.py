"""From a board to a map (format ``asl-terrain/1``): each hex's and hexside's terrain read from the
board's ``LOSData`` pixels into the map format's terms (see ``docs/vasl.md``), and the map dict written."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from asl_terrain.errors import MapError, UnknownLocation

from .archive import BoardArchive, read_board
from .geometry import (
    HEXSIDE_NAMES,
    BoardGeometry,
    Hex,
    HexsideKey,
    _column_name,
    _hex_name,
    _hexside_key,
    _hexside_name,
    _parse_hex,
)
from .terrain import _BUILDING_NAME, TerrainTable, load_terrain_table

FORMAT = "asl-terrain/1"


# VASL terrain names the map format expresses with the same rules effect, as a hex's terrain
_AREA_TERRAIN: dict[str, str] = {
    "Woods": "woods",
    "Pine Woods": "pine-woods",
    "Brush": "brush",
    "Orchard": "orchard",
    "Orchard, Out of Season": "orchard",  # the season is the map's [conditions], not the terrain
    "Grain": "grain",
    "Graveyard": "graveyard",
    "Marsh": "marsh",
    "Shellholes": "shellholes",
    "Water": "water",  # B21: a Water Obstacle (lake, pond) at the level drawn
    "Stone Rubble": "rubble",
    "Wooden Rubble": "rubble",
    "Stone Rubble Ground Level": "rubble",
    "Wooden Rubble Ground Level": "rubble",
}
_STREAMS: dict[str, str] = {
    "Dry Stream": "dry",
    "Shallow Stream": "shallow",
    "Deep Stream": "deep",
    "Flooded Stream": "flooded",
}
# B6: bridges the map carries, over a stream or gully hex (`bridge` key); pontoon and foot bridges are not
_BRIDGES: dict[str, str] = {"Single Hex Stone Bridge": "stone", "Single Hex Wooden Bridge": "wooden",
                            "Stone Bridge": "stone", "Wooden Bridge": "wooden"}
_HEXSIDE_FLAGS: dict[str, str] = {"Wall": "wall", "Hedge": "hedge", "Bocage": "bocage", "Cliff": "cliff",
                                  **{f"Rowhouse Wall{s}": "rowhouse_wall"
                                     for s in ("", ", 1 Level", ", 2 Level", ", 3 Level", ", 4 Level")}}
_ROADS: dict[str, str] = {"Dirt Road": "dirt", "Paved Road": "paved"}
# terrain drawn over a road without removing it (the road depiction continues under it)
_ROAD_OVERPRINTS = ("Shellholes",)

# pixel classes
_OPEN, _ROAD, _HEXSIDE, _DEPRESSION, _BUILDING = range(5)
_FIXED_CLASSES = ("open", "road", "hexside", "depression", "building")

_DISC = 8  # px: the centre-dot sample (the printed centre dot itself is ~4 px and reads as open ground)
_WIDE_DISC = 22  # px: the sample when a road or depression covers the centre dot
_MAJORITY = 0.4  # a terrain holding this share of a sample is the hex's terrain

# hexside sampling: positions along the hexside (vertex to vertex), offsets across it (+ = into the
# neighbour, - = into this hex), in pixels
_SIDE_TS = np.linspace(0.1, 0.9, 33)
_SIDE_OFFSETS = (-10, -8, -6, -4, -2, -1, 0, 1, 2, 4, 6, 8, 10)


def _disc(radius: int) -> tuple[np.ndarray, np.ndarray]:
    r = np.arange(-radius, radius + 1)
    dx, dy = np.meshgrid(r, r, indexing="ij")
    keep = dx * dx + dy * dy <= radius * radius
    return dx[keep], dy[keep]


_DISC_OFFSETS = _disc(_DISC)
_WIDE_OFFSETS = _disc(_WIDE_DISC)


def _disc_pixels(
    geo: BoardGeometry, cx: int, cy: int, offsets: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """The on-board pixels (xs, ys) of a disc of offsets around (cx, cy)."""
    xs, ys = cx + offsets[0], cy + offsets[1]
    ok = (xs >= 0) & (xs < geo.grid_width) & (ys >= 0) & (ys < geo.grid_height)
    return xs[ok], ys[ok]


@dataclass(frozen=True)
class HexTerrain:
    """What :func:`derive_board` made of one hex, in the map format's terms."""

    level: int = 0  # Base Level; the Crest level in a stream hex
    terrain: str = "open"
    building: str | None = None  # "stone" | "wooden" (building and rubble hexes)
    upper_levels: int | None = None
    building_id: str | None = None
    stairwell: bool = False
    stream: str | None = None  # "dry" | "shallow" | "deep" | "flooded"
    offboard: bool = False
    vasl_terrain: str = "Open Ground"  # the VASL terrain the hex's terrain was read from
    bridge: str | None = None  # "stone" | "wooden": a bridge over the stream or gully (B6)
    bridge_level: int | None = None  # the deck's level where above the Crest level (B6.2: its road's level)

    def map_keys(self) -> dict[str, Any]:
        """The hex's keys for a ``[[hex]]`` block, defaults left out."""
        keys: dict[str, Any] = {}
        if self.offboard:
            keys["offboard"] = True
        if self.bridge:
            keys["bridge"] = self.bridge
        if self.bridge_level is not None:
            keys["bridge_level"] = self.bridge_level
        if self.level:
            keys["level"] = self.level
        if self.terrain != "open":
            keys["terrain"] = self.terrain
        if self.building:
            keys["building"] = self.building
        if self.upper_levels:
            keys["upper_levels"] = self.upper_levels
        if self.building_id:
            keys["building_id"] = self.building_id
        if self.stairwell:
            keys["stairwell"] = True
        if self.stream:
            keys["stream"] = self.stream
        return keys


@dataclass
class BoardTerrain:
    """A board read into the map format's terms, in board-local hex coordinates.

    Kept apart from :func:`board_to_map_dict` so that a layout of several boards can offset each
    board's columns and rows before writing one map.
    """

    board: str
    geometry: BoardGeometry
    hexes: dict[Hex, HexTerrain]
    hexsides: dict[HexsideKey, dict[str, Any]]
    unsupported: dict[str, list[str]] = field(default_factory=dict)  # feature → hex or hexside names
    slope_sources: dict[HexsideKey, str] = field(default_factory=dict)  # "artwork" | "elevation" | "guess"

    def unsupported_lines(self) -> list[str]:
        """``unsupported`` as sentences: feature, count, names."""
        lines = []
        for feature, names in self.unsupported.items():
            kind = "hexside" if "hexside" in feature else "hex"
            plural = kind + ("es" if kind == "hex" else "s") if len(names) != 1 else kind
            lines.append(f"{feature}: {len(names)} {plural}: {', '.join(names)}")
        return lines


class MapConversion(NamedTuple):
    """The result of :func:`board_to_map_dict`: the map, and what it could not express."""

    map: dict[str, Any]
    unsupported: list[str]


class _Classes:
    """Pixel classes of a terrain table: open, road, hexside, depression, building, a map terrain, or
    ``unsupported:<VASL name>``."""

    def __init__(self, table: TerrainTable) -> None:
        names = list(_FIXED_CLASSES)
        of_code = np.zeros(256, dtype=np.int16)
        for code in range(256):
            t = table.types.get(code)
            if t is None:
                klass = f"unsupported:{table.name(code)}"
            elif t.name in _ROADS:
                klass = "road"
            elif t.is_hexside:
                klass = "hexside"
            elif t.is_depression or t.name in _STREAMS:
                klass = "depression"
            elif _BUILDING_NAME.fullmatch(t.name):
                klass = "building"
            elif t.name in _AREA_TERRAIN:
                klass = _AREA_TERRAIN[t.name]
            elif t.name in ("Open Ground", "Elevated Road"):
                klass = "open"  # an elevated road's embankment: ground at the level drawn (B6.2 EX: 13K6)
            else:
                klass = f"unsupported:{t.name}"
            if klass not in names:
                names.append(klass)
            of_code[code] = names.index(klass)
        self.names = names
        self.of_code = of_code


def _label_components(mask: np.ndarray) -> np.ndarray:
    """4-connected components of a boolean raster, labelled 1, 2, ... (0 outside), by runs and union-find."""
    gw, gh = mask.shape
    padded = np.zeros((gw, gh + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    d = np.diff(padded, axis=1)
    sx, sy = np.nonzero(d == 1)  # run starts
    _ex, ey = np.nonzero(d == -1)  # run ends (exclusive); both sorted by x, then y
    n = len(sx)
    labels = np.zeros((gw, gh), dtype=np.int32)
    if n == 0:
        return labels
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    col_start = np.searchsorted(sx, np.arange(gw + 1))
    sy_l, ey_l = sy.tolist(), ey.tolist()
    for x in range(gw - 1):
        i, i_end = int(col_start[x]), int(col_start[x + 1])
        j, j_end = i_end, int(col_start[x + 2])
        while i < i_end and j < j_end:
            if sy_l[i] < ey_l[j] and sy_l[j] < ey_l[i]:
                ri, rj = find(i), find(j)
                if ri != rj:
                    parent[rj] = ri
            if ey_l[i] <= ey_l[j]:
                i += 1
            else:
                j += 1
    roots = [find(i) for i in range(n)]
    relabel: dict[int, int] = {}
    for i in range(n):
        lab = relabel.setdefault(roots[i], len(relabel) + 1)
        labels[int(sx[i]), sy_l[i] : ey_l[i]] = lab
    return labels


def _sample(raster: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Raster values at float points (floored) and whether each point is on the raster."""
    xi = np.floor(xs).astype(np.int64)
    yi = np.floor(ys).astype(np.int64)
    valid = (xi >= 0) & (xi < raster.shape[0]) & (yi >= 0) & (yi < raster.shape[1])
    values = raster[np.clip(xi, 0, raster.shape[0] - 1), np.clip(yi, 0, raster.shape[1] - 1)]
    return values, valid


def _crossing(
    mask: np.ndarray, band: np.ndarray, valid: np.ndarray, min_cross: int = 4, min_band: int = 3
) -> tuple[np.ndarray, np.ndarray]:
    """Which hexsides a depiction crosses, and which it runs along.

    ``mask`` (the depiction, with anything drawn over it) and ``band`` (the depiction proper) are
    sampled booleans shaped (hexsides, offsets, positions). A hexside is crossed when at ≥ ``min_cross``
    positions the depiction is on the hexside and 4 px into both hexes, and ≥ ``min_band`` pixels of
    the depiction proper lie within 10 px of the hexside in each hex; it is run along when the
    depiction covers ≥ 80 % of the hexside and 4 px into both hexes.
    """
    k = {o: i for i, o in enumerate(_SIDE_OFFSETS)}
    line = mask[:, k[0]] & valid[:, k[0]]
    across = line & mask[:, k[-4]] & mask[:, k[4]]
    cross = across.sum(axis=1)
    on_map = valid[:, k[0]].sum(axis=1)
    along = (on_map >= 10) & (across.sum(axis=1) >= 0.8 * np.maximum(on_map, 1))
    inside = [k[o] for o in _SIDE_OFFSETS if o <= -2]
    outside = [k[o] for o in _SIDE_OFFSETS if o >= 2]
    band_in = (band[:, inside] & valid[:, inside]).sum(axis=(1, 2))
    band_out = (band[:, outside] & valid[:, outside]).sum(axis=(1, 2))
    crossed = (cross >= min_cross) & (band_in >= min_band) & (band_out >= min_band) & ~along
    return crossed, along


@dataclass
class _Reading:
    """What reading one board's pixels needs: the board, its terrain table, each pixel's class, and the
    features met that the map format cannot carry (``note``)."""

    board: BoardArchive
    table: TerrainTable
    classes: _Classes
    pixel_class: np.ndarray
    unsupported: dict[str, list[str]] = field(default_factory=dict)  # feature → hex or hexside names

    @property
    def geo(self) -> BoardGeometry:
        return self.board.geometry

    def note(self, feature: str, name: str) -> None:
        names = self.unsupported.setdefault(feature, [])
        if name not in names:
            names.append(name)


def _derive_hexes(board: BoardArchive, table: TerrainTable, gully_as_dry_stream: bool = True
                  ) -> tuple[_Reading, dict[Hex, HexTerrain]]:
    """The hex part of :func:`derive_board` (no hexsides): its reading and every hex's terrain (the artwork
    reader's building levels and stream depth need only these)."""
    classes = _Classes(table)
    rd = _Reading(board, table, classes, classes.of_code[board.terrain])
    overrides: dict[Hex, str] = {}
    for hex_name, type_name in board.metadata.building_types.items():
        try:
            overrides[rd.geo.parse(hex_name)] = type_name
        except UnknownLocation:
            rd.note("Building type for a hex off the board (BoardMetadata.xml)", hex_name)
    building_labels: np.ndarray | None = None
    if (rd.pixel_class == _BUILDING).any():
        building_labels = _label_components(rd.pixel_class == _BUILDING)
    raw = {h: _sample_hex(rd, h, building_labels) for h in rd.geo.hexes}
    components: dict[int, list[Hex]] = {}
    for h, info in raw.items():
        if "component" in info:
            components.setdefault(info["component"], []).append(h)
    hexes = {h: _hex_terrain(rd, h, info, overrides.get(h), components, gully_as_dry_stream)
             for h, info in raw.items()}
    return rd, hexes


def derive_board(
    board: BoardArchive, table: TerrainTable | None = None, *, gully_as_dry_stream: bool = True
) -> BoardTerrain:
    """Read a board's hexes and hexsides into the map format's terms (see ``docs/vasl.md``).

    :param gully_as_dry_stream: write gully hexes as ``stream = "dry"`` (B20.41: a Dry stream is
        treated as a gully for all purposes); when False they are listed as unsupported instead and
        written as open ground at VASL's base level (the gully's bottom).
    """
    table = table if table is not None else load_terrain_table()
    rd, hexes = _derive_hexes(board, table, gully_as_dry_stream)
    hexsides = _hexside_features(rd, hexes)
    slope_sources: dict[HexsideKey, str] = {}
    for key, (down, source) in _slope_hexsides(board, hexes, rd.note).items():
        hexsides.setdefault(key, {})["slope"] = _hex_name(down)
        slope_sources[key] = source
    ordered = {key: hexsides[key] for key in sorted(hexsides) if hexsides[key]}
    for names in rd.unsupported.values():
        names.sort(key=_name_sort_key)
    return BoardTerrain(board=board.archive_name, geometry=rd.geo, hexes=hexes, hexsides=ordered,
                        unsupported=rd.unsupported, slope_sources=slope_sources)


def _sample_hex(rd: _Reading, h: Hex, building_labels: np.ndarray | None) -> dict[str, Any]:
    """What the pixels around a hex's centre dot hold: its class (the terrain holding a majority of the
    sample, roads, hexside terrain and depressions aside), the VASL code and ground level read, its
    building's component, and the depression under it (its code and floor level), if any."""
    geo, codes, elev, pixel_class = rd.geo, rd.board.terrain, rd.board.elevation, rd.pixel_class
    cx, cy = geo.centre(*h)
    xs, ys = _disc_pixels(geo, cx, cy, _DISC_OFFSETS)
    cls = pixel_class[xs, ys]
    depression = pixel_class[cx, cy] == _DEPRESSION or (cls == _DEPRESSION).mean() >= _MAJORITY
    keep = (cls != _ROAD) & (cls != _HEXSIDE) & (cls != _DEPRESSION)
    if keep.sum() < _MAJORITY * len(cls):  # a road or depression covers the centre dot: look wider
        xs, ys = _disc_pixels(geo, cx, cy, _WIDE_OFFSETS)
        cls = pixel_class[xs, ys]
        keep = (cls != _ROAD) & (cls != _HEXSIDE) & (cls != _DEPRESSION)
    counts = np.bincount(cls[keep], minlength=len(rd.classes.names))
    counts[_OPEN] = 0
    best = int(counts.argmax())
    klass = best if counts[best] > 0 and counts[best] >= _MAJORITY * keep.sum() else _OPEN
    code = int(codes[cx, cy])
    if klass != _OPEN:
        sel = keep & (cls == klass)
        code = int(np.bincount(codes[xs[sel], ys[sel]]).argmax())
    table = rd.table
    if not depression and any(
        c in table.types and table[c].los_category == "BRIDGE" for c in (code, int(codes[cx, cy]))
    ):
        # a bridge over the centre dot: is there a gully or stream under it?
        wx, wy = _disc_pixels(geo, cx, cy, _WIDE_OFFSETS)
        depression = bool((pixel_class[wx, wy] == _DEPRESSION).mean() >= 0.1)
    info: dict[str, Any] = {"class": rd.classes.names[klass], "code": code, "level": int(elev[cx, cy])}
    if klass == _BUILDING and building_labels is not None:
        labs = building_labels[xs[keep & (cls == klass)], ys[keep & (cls == klass)]]
        info["component"] = int(np.bincount(labs).argmax())
    if depression:
        for offsets in (_DISC_OFFSETS, _WIDE_OFFSETS):  # the depression's pixels near the centre dot
            dx, dy = _disc_pixels(geo, cx, cy, offsets)
            is_dep = pixel_class[dx, dy] == _DEPRESSION
            if is_dep.any():
                break
        info["depression"] = int(np.bincount(codes[dx[is_dep], dy[is_dep]]).argmax())
        # the depression's floor: the commonest ground level under it
        info["floor"] = int(np.bincount(elev[dx[is_dep], dy[is_dep]].astype(np.int64) + 128).argmax()) - 128
    return info


def _hex_terrain(rd: _Reading, h: Hex, info: dict[str, Any], override: str | None,
                 components: Mapping[int, list[Hex]], gully_as_dry_stream: bool) -> HexTerrain:
    """A hex's terrain in the map format's terms, from what :func:`_sample_hex` read."""
    name = _hex_name(h)
    class_name: str = info["class"]
    vasl_name = rd.table.name(info["code"])
    terrain, building, upper, building_id, stairwell = "open", None, None, None, False
    bridge: str | None = None
    if class_name == "building":
        vasl_name, building, upper, stairwell = _building(rd, name, vasl_name, override)
        terrain = "building"
        members = components.get(info.get("component", -1), [])
        if len(members) > 1:
            building_id = f"building-{_hex_name(min(members))}"
    elif class_name.startswith("unsupported:"):
        what = class_name.split(":", 1)[1]
        if what in _BRIDGES and "depression" in info:
            bridge = _BRIDGES[what]  # kept if a stream or gully is carried under it (below)
        else:
            rd.note(what, name)
    elif class_name != "open":
        terrain = class_name
        if class_name == "rubble":
            building = "stone" if vasl_name.startswith("Stone") else "wooden"
    level, stream = info["level"], None
    if "depression" in info:
        level, stream = _depression(rd, name, terrain, info, gully_as_dry_stream)
    if bridge is not None and stream is None:
        rd.note(vasl_name, name)
        bridge = None
    # B6.2: a bridge stands at the level of the road it connects to: the level drawn under the centre dot
    # (on the deck), where that is above the Crest level (bd13's K6 and Y8 carry its elevated road)
    deck = info["level"] if bridge is not None and info["level"] > level else None
    return HexTerrain(level=level, bridge=bridge, bridge_level=deck, terrain=terrain, building=building,
                      upper_levels=upper, building_id=building_id, stairwell=stairwell, stream=stream,
                      vasl_terrain=vasl_name)


def _building(rd: _Reading, name: str, vasl_name: str, override: str | None) -> tuple[str, str, int | None, bool]:
    """A building hex's VASL type (BoardMetadata.xml's override, else the pixels'), its material, its
    upper levels and whether it has a stairwell."""
    type_name = override if override is not None else vasl_name
    m = _BUILDING_NAME.fullmatch(type_name)
    if m is None:
        rd.note(f"{type_name} (building type override)", name)
        m = _BUILDING_NAME.fullmatch(vasl_name)
        type_name = vasl_name
    assert m is not None
    upper, stairwell = None, False
    if m.group(2):
        upper = rd.table.by_name(type_name).height or int(m.group(2))
        stairwell = name in rd.board.stairways
    return type_name, m.group(1).lower(), upper, stairwell


def _depression(rd: _Reading, name: str, terrain: str, info: dict[str, Any],
                gully_as_dry_stream: bool) -> tuple[int, str | None]:
    """A depression hex's level (its Crest level) and stream kind: a stream, or a gully as a dry stream
    (B20.41); anything else, or a stream where P4.1 lets none run, is noted and left out."""
    dep_name = rd.table.name(info["depression"])
    stream: str | None = None
    if dep_name in _STREAMS:
        stream = _STREAMS[dep_name]
        level = info["floor"] + (0 if stream == "flooded" else 1)
    elif dep_name == "Gully" and gully_as_dry_stream:
        stream = "dry"
        level = info["floor"] + 1
    else:
        rd.note(dep_name, name)
        level = info["floor"]
    if stream and terrain not in ("open", "woods", "pine-woods", "brush", "orchard"):
        rd.note(f"{dep_name} in a {terrain} hex (P4.1: a stream runs only with open ground, woods, brush or "
                "orchard; the stream is left out)", name)
        stream = None
    return level, stream


class _Sides(NamedTuple):
    """Every hexside of a board between two of its hexes (hex, its side 1-3, neighbour), and the terrain
    codes sampled along and across each, shaped (hexsides, offsets, positions)."""

    pairs: list[tuple[Hex, int, Hex]]
    sampled: np.ndarray
    valid: np.ndarray

    def key(self, i: int) -> HexsideKey:
        a, _, b = self.pairs[i]
        return _hexside_key(a, b)


def _sample_hexsides(geo: BoardGeometry, codes: np.ndarray) -> _Sides | None:
    pairs: list[tuple[Hex, int, Hex]] = []
    for col, row in geo.hexes:
        for side in (1, 2, 3):
            nb = geo.neighbour(col, row, side)
            if nb is not None:
                pairs.append(((col, row), side, nb))
    if not pairs:
        return None
    starts = np.array([geo.vertex(c, r, s) for (c, r), s, _ in pairs])
    ends = np.array([geo.vertex(c, r, s + 1) for (c, r), s, _ in pairs])
    centres = np.array([geo.centre_exact(c, r) for (c, r), _, _ in pairs])
    mids = (starts + ends) / 2
    outward = (mids - centres) / np.linalg.norm(mids - centres, axis=1)[:, None]
    across = np.array(_SIDE_OFFSETS, dtype=np.float64)
    along_pts = starts[:, None, :] + (ends - starts)[:, None, :] * _SIDE_TS[None, :, None]
    pts = along_pts[:, None, :, :] + across[None, :, None, None] * outward[:, None, None, :]
    sampled, valid = _sample(codes, pts[..., 0], pts[..., 1])
    return _Sides(pairs, sampled, valid)


def _hexside_features(rd: _Reading, hexes: Mapping[Hex, HexTerrain]) -> dict[HexsideKey, dict[str, Any]]:
    """Each hexside's keys: the roads crossing it, its hexside terrain (walls, hedges, ...), and
    ``stream = false`` between two stream hexes where the stream does not cross it."""
    sides = _sample_hexsides(rd.geo, rd.board.terrain)
    hexsides: dict[HexsideKey, dict[str, Any]] = {}
    if sides is None:
        return hexsides
    present = {int(c) for c in np.unique(rd.board.terrain)}
    _road_hexsides(rd, sides, present, hexsides)
    _hexside_terrain(rd, sides, present, hexsides)
    # streams: between two stream hexes the format assumes the stream crosses; say where it does not
    dep = rd.classes.of_code[sides.sampled] == _DEPRESSION
    crossed, _along = _crossing(dep, dep, sides.valid)
    for i, (a, _, b) in enumerate(sides.pairs):
        if hexes[a].stream and hexes[b].stream and not crossed[i]:
            hexsides.setdefault(sides.key(i), {})["stream"] = False
    return hexsides


def _road_hexsides(rd: _Reading, sides: _Sides, present: set[int],
                   hexsides: dict[HexsideKey, dict[str, Any]]) -> None:
    """Roads: the road (and what is drawn over it) crosses the hexside; the strongest road crossing wins."""
    table, sampled, valid = rd.table, sides.sampled, sides.valid
    k0 = _SIDE_OFFSETS.index(0)
    overprint = np.isin(sampled, [table.by_name(n).code for n in _ROAD_OVERPRINTS if _has_name(table, n)])
    best_cross = [0] * len(sides.pairs)
    for road_name, road_kind in _ROADS.items():
        if not _has_name(table, road_name) or table.by_name(road_name).code not in present:
            continue
        road = sampled == table.by_name(road_name).code
        crossed, along = _crossing(road | overprint, road, valid)
        strength = (road | overprint)[:, k0].sum(axis=1)
        for i in np.nonzero(crossed)[0].tolist():
            if int(strength[i]) > best_cross[i]:
                best_cross[i] = int(strength[i])
                hexsides.setdefault(sides.key(i), {})["road"] = road_kind
        for j in np.nonzero(along)[0].tolist():
            rd.note("Road along a hexside (a Narrow Street only under KGP P5.1)", _hexside_name(sides.key(j)))


def _hexside_terrain(rd: _Reading, sides: _Sides, present: set[int],
                     hexsides: dict[HexsideKey, dict[str, Any]]) -> None:
    """Hexside terrain covering half the hexside and half its middle third: walls, hedges, bocage, cliffs
    and rowhouse walls as the map's flags; anything else is noted as unsupported."""
    sampled, valid = sides.sampled, sides.valid
    k = {o: i for i, o in enumerate(_SIDE_OFFSETS)}
    narrow = [k[o] for o in (-2, -1, 0, 1, 2)]
    centre_ts = (_SIDE_TS >= 1 / 3) & (_SIDE_TS <= 2 / 3)
    for code in sorted(present):
        t = rd.table.types.get(code)
        if t is None or not t.is_hexside:
            continue
        on = (sampled[:, narrow] == code) & valid[:, narrow]
        cover = on.any(axis=1)
        line_valid = valid[:, k[0]]
        frac = cover.sum(axis=1) / np.maximum(line_valid.sum(axis=1), 1)
        central = (cover & centre_ts).sum(axis=1) / np.maximum((line_valid & centre_ts).sum(axis=1), 1)
        for j in np.nonzero((frac >= 0.5) & (central >= 0.5))[0].tolist():
            if t.name in _HEXSIDE_FLAGS:
                hexsides.setdefault(sides.key(j), {})[_HEXSIDE_FLAGS[t.name]] = True
            else:
                rd.note(f"{t.name} (hexside)", _hexside_name(sides.key(j)))


def _has_name(table: TerrainTable, name: str) -> bool:
    return any(t.name == name for t in table)


def _name_sort_key(name: str) -> tuple[tuple[int, int], ...]:
    return tuple(_parse_hex(part) for part in name.split("-"))


def _slope_hexsides(
    board: BoardArchive, hexes: Mapping[Hex, HexTerrain], note: Any
) -> dict[HexsideKey, tuple[Hex, str]]:
    """Each slope hexside → (its Down-Slope hex, how that was decided).

    ``<slope hex="O2" hexsides="45"/>`` names hexsides of O2. The Down-Slope hex (the one whose side
    carries the hash marks, P2.2) is decided, in order: by the artwork, when the board has an SSR
    overlay that erases the slopes (its opaque pixels are the hash marks: the hex holding more of them
    is Down-Slope); by elevation, when the two hexes' Base Levels differ (the lower is Down-Slope); else
    the named hex is taken as Down-Slope (a guess).
    """
    geo = board.geometry
    slopes = board.metadata.slopes
    if not slopes:
        return {}
    marks: tuple[np.ndarray, np.ndarray] | None = None
    for rule in board.metadata.overlays:
        if "slope" in rule.name.lower() and rule.image.lower().endswith(".gif") and rule.image in board.members:
            try:
                marks = board.overlay_pixels(rule)
            except MapError:
                marks = None
            break
    out: dict[HexsideKey, tuple[Hex, str]] = {}
    for hex_name, sides in slopes.items():
        try:
            named = geo.parse(hex_name)
        except UnknownLocation:
            note("Slope of a hex off the board (BoardMetadata.xml)", hex_name)
            continue
        for side in sides:
            other = geo.neighbour(named[0], named[1], side)
            if other is None:
                note("Slope on a board-edge hexside (BoardMetadata.xml)", f"{hex_name} side {HEXSIDE_NAMES[side]}")
                continue
            key = _hexside_key(named, other)
            decided: tuple[Hex, str] | None = None
            if marks is not None and marks[0].size:
                (x0, y0), (x1, y1) = geo.hexside_segment(named[0], named[1], side)
                cx, cy = geo.centre_exact(*named)
                d = np.array([x1 - x0, y1 - y0])
                length = float(np.hypot(*d))
                d /= length
                mid = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
                out_n = (mid - np.array([cx, cy])) / np.hypot(mid[0] - cx, mid[1] - cy)
                px, py = marks[0] + 0.5, marks[1] + 0.5
                u = (px - x0) * d[0] + (py - y0) * d[1]
                w = (px - mid[0]) * out_n[0] + (py - mid[1]) * out_n[1]
                near = (u >= -0.1 * length) & (u <= 1.1 * length) & (np.abs(w) <= 14)
                inside, outside = int((near & (w < 0)).sum()), int((near & (w > 0)).sum())
                if max(inside, outside) >= 5 and max(inside, outside) >= 2 * min(inside, outside):
                    decided = (named if inside > outside else other, "artwork")
            if decided is None and hexes[named].level != hexes[other].level:
                decided = (named if hexes[named].level < hexes[other].level else other, "elevation")
            if decided is None:
                decided = (named, "guess")
            out[key] = decided
    return out


def _emit_map(parts: Sequence[tuple[BoardTerrain, int, int]], *, name: str, prefix: str) -> dict[str, Any]:
    """Write one map dict from boards placed at (column offset, row offset); later boards win."""
    hexes: dict[Hex, HexTerrain] = {}
    hexsides: dict[HexsideKey, dict[str, Any]] = {}
    grid: set[Hex] = set()
    for part, dc, dr in parts:
        for (c, r), t in part.hexes.items():
            hexes[(c + dc, r + dr)] = t
        for (a, b), attrs in part.hexsides.items():
            hexsides[_hexside_key((a[0] + dc, a[1] + dr), (b[0] + dc, b[1] + dr))] = attrs
        geo = part.geometry
        grid.update((c + dc, r + dr) for c in range(geo.width) for r in range(geo.height + 1))
    cols = sorted({h[0] for h in grid})
    rows = sorted({h[1] for h in grid})
    blocks: dict[tuple[tuple[str, Any], ...], list[str]] = {}
    for c in range(cols[0], cols[-1] + 1):
        for r in range(rows[0], rows[-1] + 1):
            here = hexes.get((c, r))
            keys = here.map_keys() if here is not None else {"offboard": True}
            if keys:
                blocks.setdefault(tuple(keys.items()), []).append(_hex_name((c, r)))
    side_blocks: dict[tuple[tuple[str, Any], ...], list[str]] = {}
    for key in sorted(hexsides):
        attrs = hexsides[key]
        if attrs:
            side_blocks.setdefault(tuple(attrs.items()), []).append(_hexside_name(key))
    out: dict[str, Any] = {
        "format": FORMAT,
        "name": name,
        "prefix": prefix,
        "columns": [_column_name(cols[0]), _column_name(cols[-1])],
        "rows": [rows[0], rows[-1]],
    }
    if blocks:
        out["hex"] = [{"at": at, **dict(keys)} for keys, at in blocks.items()]
    if side_blocks:
        out["hexside"] = [{"at": at, **dict(keys)} for keys, at in side_blocks.items()]
    return out


_PREFIX = re.compile(r"|[A-Z][a-z]*|\d+")


def board_to_map_dict(
    board: BoardArchive | str | Path,
    table: TerrainTable | None = None,
    prefix: str = "",
    *,
    name: str | None = None,
    gully_as_dry_stream: bool = True,
) -> MapConversion:
    """A map of one VASL board in the structure of ``map-format.md`` (what its TOML would load to).

    :returns: ``(map, unsupported)``: the map dict, and one line per VASL feature the format cannot
        express (``"Cliff (hexside): 27 hexsides: ..."``), which the map leaves out.
    :raises MapError: a bad prefix, or a board that cannot be read.
    """
    if not _PREFIX.fullmatch(prefix):
        raise MapError(f'prefix {prefix!r}: expected "", a capital and lower-case letters ("St"), or digits ("1")')
    archive = board if isinstance(board, BoardArchive) else read_board(board)
    derived = derive_board(archive, table, gully_as_dry_stream=gully_as_dry_stream)
    title = name if name is not None else f"VASL board {archive.name}"
    return MapConversion(_emit_map([(derived, 0, 0)], name=title, prefix=prefix), derived.unsupported_lines())
