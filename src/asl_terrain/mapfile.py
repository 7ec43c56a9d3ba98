"""The map file, format ``asl-terrain/1`` (docs: ../shared/docs/map-format.md), at the file boundary.

This module reads TOML or JSON into pydantic models, checks everything the format promises (unknown
keys, unknown terrain, hexes off the grid, hexsides whose hexes are not adjacent, slopes naming a hex
not on their hexside, steeples on non-buildings, culverts outside streams, counters on no hex), and
reports *every* problem at once as one :class:`~asl_terrain.errors.MapError` naming the file, the key
or hex, and what was expected. It builds nothing the engines read: :mod:`asl_terrain.model` does that.

Imports: errors, grid (and pydantic). Never an engine.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, Strict, TypeAdapter, ValidationError, field_validator

from . import limits
from .chart import Weather
from .errors import AslTerrainError, MapError
from .grid import Grid, Hex, Hexside, Vertex, column_index, column_label, parse_hex_name

FORMAT = "asl-terrain/1"

Terrain = Literal[
    "open", "woods", "pine-woods", "brush", "orchard", "grain", "building", "rubble",
    "graveyard", "marsh", "shellholes", "water",
]
BuildingType = Literal["single-story-house", "two-story-house", "single-hex-two-story-house", "multi-level"]
StreamDepth = Literal["dry", "shallow", "deep", "flooded"]

#: terrain that may carry ``stream`` (P4.1: stream-woods, stream-brush, stream-orchard; plain stream hexes)
STREAM_TERRAIN = frozenset({"open", "woods", "pine-woods", "brush", "orchard"})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


# The format's numbers are TOML/JSON integers and its flags true/false: "2", 2.0, true for a level, "yes" or
# 1 for a flag are refused (pydantic's lax mode would take them silently).
Int = Annotated[int, Strict()]
Bool = Annotated[bool, Strict()]
#: a Base Level (README "Limits")
Level = Annotated[int, Strict(), Field(ge=limits.MIN_LEVEL, le=limits.MAX_LEVEL)]
#: a hex, hexside or vertex name as written in the file
Name = Annotated[str, Field(max_length=limits.MAX_LOCATION_NAME)]
Prefix = Annotated[str, Field(pattern=r"^([A-Z][a-z]*|[0-9]+)?$", max_length=8)]


def _one_or_more(v: Any) -> Any:
    # "at" is written as a list; a lone string is accepted too (the list form is what the doc shows)
    return [v] if isinstance(v, str) else v


class ConditionsModel(_Strict):
    month: Int = Field(6, ge=1, le=12)
    weather: Weather = "clear"
    frigid: Bool = False
    ssr: list[Name] = []  # SSR terrain switches (asl_terrain.ssr; docs/map-format-extensions.md)


class DefaultsModel(_Strict):
    terrain: Terrain = "open"
    level: Level = 0


class HexBlock(_Strict):
    at: list[Name] = Field(min_length=1)
    level: Level | None = None
    terrain: Terrain | None = None
    building: Literal["stone", "wooden"] | None = None
    building_type: BuildingType | None = None
    upper_levels: Int | None = Field(None, ge=0, le=20)
    steeple: Bool | None = None
    building_id: str | None = Field(None, max_length=limits.MAX_ID)
    stairwell: Bool | None = None
    stream: StreamDepth | None = None
    culvert: Bool | None = None
    ford: Bool | None = None
    offboard: Bool | None = None
    bridge: Literal["stone", "wooden"] | None = None
    bridge_level: Level | None = None

    _at = field_validator("at", mode="before")(_one_or_more)


class HexsideBlock(_Strict):
    at: list[Name] = Field(min_length=1)
    road: Literal["paved", "dirt"] | None = None
    narrow_street: Literal["paved", "unpaved"] | None = None
    slope: Name | None = None
    fence: Bool | None = None
    wall: Bool | None = None
    hedge: Bool | None = None
    bocage: Bool | None = None
    rowhouse_wall: Bool | None = None
    cliff: Bool | None = None
    stream: Bool | None = None
    culvert: Bool | None = None
    crest: Bool | None = None

    _at = field_validator("at", mode="before")(_one_or_more)


class SmokeCounter(_Strict):
    type: Literal["smoke"]
    at: Name
    strength: Int = Field(ge=1, le=6)
    kind: Literal["smoke", "wp", "dispersed-smoke", "dispersed-wp"] | None = None  # docs/map-format-extensions.md


class ResidualFpCounter(_Strict):
    type: Literal["residual-fp"]
    at: Name
    fp: Int = Field(ge=1, le=36)


class MinesCounter(_Strict):
    type: Literal["mines"]
    at: Name
    kind: Literal["A-P", "A-T"]
    strength: Int = Field(ge=1, le=36)
    hidden: Bool = False


class RoadblockCounter(_Strict):
    type: Literal["roadblock"]
    hexside: Name
    arrow: Name | None = None


class WreckCounter(_Strict):
    type: Literal["wreck"]
    at: Name
    bypass: Name | None = None
    burning: Bool = False
    name: Name | None = None  # the vehicle's name ("T-34 M43"), e.g. from a VASL save
    facing: Int | None = Field(None, ge=0, le=11)  # VASL's facing index (60° turns from the counter as printed)


class VehicleCounter(_Strict):
    type: Literal["vehicle"]
    at: Name
    bypass: Name | None = None
    immobile: Bool = False
    name: Name | None = None
    facing: Int | None = Field(None, ge=0, le=11)


class PlainCounter(_Strict):
    type: Literal["rubble", "blaze", "entrenchment", "wire"]  # wire: docs/map-format-extensions.md
    at: Name


Counter = Annotated[
    Union[SmokeCounter, ResidualFpCounter, MinesCounter, RoadblockCounter, WreckCounter, VehicleCounter,
          PlainCounter],
    Field(discriminator="type"),
]


UnitKind = Literal["squad", "half-squad", "crew", "leader", "smc", "sw", "gun", "vehicle", "unit"]


class UnitModel(_Strict):
    """``[[unit]]``: a unit (or SW, Gun, vehicle) for stacking questions; ``at`` a Location, left out for a
    unit off the map (waiting to enter). docs/map-format-extensions.md."""

    name: Name = Field(min_length=1)
    kind: UnitKind
    side: Name = ""
    at: Name | None = None


class BoardPlacementModel(_Strict):
    """One board of an artwork depiction (``[[depiction.board]]``, docs/map-format-extensions.md)."""

    # a VASL board archive: a path (relative to the map file) or a name ("bd01")
    archive: str = Field(min_length=1, max_length=4096)
    prefix: Prefix = ""  # the board's own hex prefix ("1" names 1Y10)
    column: Int = Field(0, ge=0, le=limits.MAX_COLUMNS)  # the map column of the board's column A (even)
    row: Int = Field(0, ge=0, le=limits.MAX_ROWS)  # the map row of the board's row 0 (even)
    # the board's size in hexes (columns; rows of its A, C, E ... columns)
    columns: Int = Field(33, ge=1, le=limits.MAX_COLUMNS)
    rows: Int = Field(10, ge=1, le=limits.MAX_ROWS)
    flipped: Bool = False  # rotated 180° (VASL's "r05"): its hex names stay those printed on it
    # VASL overlays laid on the board, as VASL places them: "ARCHIVE HEX1 HEX2" ("ovr1 F5 F4")
    overlays: list[Annotated[str, Field(min_length=1, max_length=300)]] = Field([], max_length=64)
    version: Name | None = None  # the board version a VASL save was made with (its origin, for the record)
    # the crop it was imported with, for the record ("A-P,6-10": VASL's hexrows and coordinates in play); the
    # hexes outside it are written offboard
    crop: str | None = Field(None, max_length=40)


class DepictionModel(_Strict):
    """``[depiction]``: what the hexes' terrain looks like to a LOS thread (A6.1). Left out, every hex is
    depicted whole (hand-made maps); ``kind = "vasl"`` follows the artwork of VASL board archives."""

    kind: Literal["whole-hex", "vasl"] = "vasl"
    # VASL's SharedBoardMetadata.xml (default: the VASL data directory's)
    terrain_table: str | None = Field(None, max_length=4096)
    board: list[BoardPlacementModel] = []


class MapFile(_Strict):
    """The whole file, as written (before defaults are derived)."""

    format: Literal["asl-terrain/1"]
    name: str = Field("", max_length=limits.MAX_MAP_NAME)
    prefix: Prefix = ""
    columns: tuple[Annotated[str, Field(max_length=12)], Annotated[str, Field(max_length=12)]]
    rows: tuple[Int, Int]
    conditions: ConditionsModel = ConditionsModel()
    defaults: DefaultsModel = DefaultsModel()
    hex: list[HexBlock] = []
    hexside: list[HexsideBlock] = []
    counter: list[Counter] = []
    unit: list[UnitModel] = []
    depiction: DepictionModel | None = None
    # what an import could not carry, one line per feature with its hexes (import-vasl; issue 11)
    not_carried: list[Annotated[str, Field(max_length=100_000)]] = []


def _loc(parts: tuple[Any, ...]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + str(p)
    return out or "(top level)"


def _pydantic_problems(err: ValidationError, data: dict[str, Any]) -> list[str]:
    problems = []
    for e in err.errors():
        loc = tuple(p for p in e["loc"] if not (isinstance(p, str) and p in {
            "smoke", "residual-fp", "mines", "roadblock", "wreck", "vehicle", "rubble", "blaze", "entrenchment",
            "wire"}
            and e["type"] != "extra_forbidden"))
        where = _loc(loc) + _which(data, loc)
        if e["type"] == "extra_forbidden":
            problems.append(f"{where}: unknown key (see map-format.md for the keys of this table)")
        elif e["type"] == "missing":
            problems.append(f"{where}: required key is missing")
        elif e["type"] == "union_tag_invalid":
            problems.append(f"{where}: unknown counter type {e.get('ctx', {}).get('tag')!r}; expected one of smoke, "
                            "residual-fp, mines, roadblock, wreck, vehicle, rubble, blaze, entrenchment, wire")
        else:
            got = e.get("input")
            shown = "" if isinstance(got, (dict, list)) else f" (got {got!r})"
            problems.append(f"{where}: {e['msg']}{shown}")
    return problems


def _which(data: dict[str, Any], loc: tuple[Any, ...]) -> str:
    # name the hexes of a [[hex]]/[[hexside]]/[[counter]] block, so the user finds it without counting
    if len(loc) >= 2 and loc[0] in ("hex", "hexside", "counter") and isinstance(loc[1], int):
        try:
            block = data[loc[0]][loc[1]]
            at = block.get("at", block.get("hexside"))
        except (KeyError, IndexError, TypeError, AttributeError):
            return ""
        if isinstance(at, list):
            at = ", ".join(str(x) for x in at[:4]) + (", ..." if len(at) > 4 else "")
        return f" (at {at})" if at else ""
    return ""


class _Checker:
    """Collects semantic problems with their key paths."""

    def __init__(self, grid: Grid, prefix: str, boards: dict[str, BoardPlacementModel] | None = None) -> None:
        self.grid = grid
        self.prefix = prefix
        self.boards = boards or {}  # a layout's board prefixes: counters and units may name hexes by board
        self.problems: list[str] = []

    def add(self, where: str, msg: str) -> None:
        self.problems.append(f"{where}: {msg}")

    def _strip(self, text: str, where: str, board_ok: bool = False) -> str | None:
        # "StN17" and "N17" name the same hex; another map's prefix is an error (a board's, where allowed)
        try:
            prefix, _ = parse_hex_name(text)
        except AslTerrainError as e:
            self.add(where, str(e))
            return None
        if prefix and prefix != self.prefix and (not board_ok or prefix not in self.boards):
            self.add(where, f"{text!r} has prefix {prefix!r}, but this map's prefix is {self.prefix!r}"
                     + (f" (board prefixes: {', '.join(self.boards)})" if board_ok and self.boards else ""))
            return None
        return text

    def hex(self, text: str, where: str, board_ok: bool = False) -> Hex | None:
        if self._strip(text, where, board_ok) is None:
            return None
        prefix, h = parse_hex_name(text)
        b = self.boards.get(prefix) if prefix != self.prefix else None
        if b is not None:
            # a board's own name; where it lies on the map is model.BoardPlacement's to decide
            local_ok = 0 <= h.col < b.columns and (0 if h.col % 2 else 1) <= h.row <= b.rows
            if not local_ok:
                self.add(where, f"hex {text!r} is not on board {prefix} ({b.archive})")
                return None
            return h
        if h not in self.grid:
            self.add(where, f"hex {text!r} is off the map ({self.grid.describe()})")
            return None
        return h

    def hexside(self, text: str, where: str, board_ok: bool = False) -> Hexside | None:
        parts = text.split("-")
        if len(parts) != 2:
            self.add(where, f"{text!r} is not a hexside; expected two adjacent hexes such as 'N17-O17'")
            return None
        hs = [self.hex(p, where, board_ok) for p in parts]
        if hs[0] is None or hs[1] is None:
            return None
        if board_ok and any(self._board_named(p) for p in parts):
            return None  # board-named: placed (and checked for adjacency) by the model
        if not hs[0].is_adjacent(hs[1]):
            self.add(where, f"hexside {text!r}: {parts[0]} and {parts[1]} are not adjacent")
            return None
        return Hexside.of(hs[0], hs[1])

    def _board_named(self, text: str) -> bool:
        try:
            prefix = parse_hex_name(text)[0]
        except AslTerrainError:
            return False
        return bool(prefix) and prefix != self.prefix and prefix in self.boards

    def vertex(self, text: str, where: str) -> Vertex | None:
        parts = text.split("-")
        if len(parts) != 3:
            self.add(where, f"{text!r} is not a vertex; expected three mutually adjacent hexes such as "
                            "'O17-O18-P17'")
            return None
        from .grid import parse_hex_name

        hs: list[Hex] = []
        for p in parts:
            if self._strip(p, where) is None:
                return None
            hs.append(parse_hex_name(p)[1])
        try:
            return Vertex.of(hs[0], hs[1], hs[2])
        except AslTerrainError:
            self.add(where, f"vertex {text!r}: its three hexes are not mutually adjacent")
            return None


def parse_map_data(data: Any, source: str = "<map>") -> tuple[MapFile, Grid]:
    """Validate a decoded map document (the dict TOML or JSON gives) and return it with its grid.

    :raises MapError: naming ``source``, with every problem found.
    """
    mf, grid, _ = _analyse(data, source)
    return mf, grid


def map_warnings(data: Any, source: str = "<map>") -> list[str]:
    """What ``check`` says of a map that loads but may not be what its author meant: a building with no
    material (stone is taken), stream hexes joined to no other stream hex and not at the map edge.
    :raises MapError: as :func:`parse_map_data`."""
    return _analyse(data, source)[2]


def _analyse(data: Any, source: str) -> tuple[MapFile, Grid, list[str]]:
    if not isinstance(data, dict):
        raise MapError(f"{source}: a map file must be a table (TOML) or an object (JSON)", source=source)
    fmt = data.get("format")
    if fmt != FORMAT:
        raise MapError(f"{source}: format: expected {FORMAT!r}, got {fmt!r}", source=source)
    problems: list[str] = []
    mf: MapFile | None = None
    try:
        mf = MapFile.model_validate(data)
        hex_blocks: list[HexBlock | None] = list(mf.hex)
        side_blocks: list[HexsideBlock | None] = list(mf.hexside)
        counters: list[Any] = list(mf.counter)
        prefix, defaults = mf.prefix, mf.defaults
    except ValidationError as e:
        # report the file's other problems too: check what of it is well-formed (README: every problem)
        problems += _pydantic_problems(e, data)
        hex_blocks = _each(data, "hex", HexBlock)
        side_blocks = _each(data, "hexside", HexsideBlock)
        counters = _each(data, "counter", TypeAdapter(Counter))
        prefix = _valid(_Prefix, {"prefix": data.get("prefix", "")})
        prefix = prefix.prefix if prefix is not None else ""
        defaults = _valid(DefaultsModel, data.get("defaults", {})) or DefaultsModel()
    extent = _valid(_Extent, {"columns": data.get("columns"), "rows": data.get("rows")})
    grid = _grid(extent, problems) if extent is not None else None
    warnings: list[str] = []
    if grid is not None:
        boards = {b.prefix: b for b in mf.depiction.board if b.prefix} if mf and mf.depiction else None
        check = _Checker(grid, prefix, boards)
        placed = _check_blocks(hex_blocks, side_blocks, counters, check)
        if mf is not None:
            _check_depiction(mf, check)
        warnings = _check_merged(hex_blocks, side_blocks, placed, defaults, check)
        problems += check.problems
    if problems or mf is None or grid is None:
        raise MapError(_summary(source, problems), problems=problems, source=source)
    return mf, grid, warnings


class _Extent(_Strict):
    columns: tuple[Annotated[str, Field(max_length=12)], Annotated[str, Field(max_length=12)]]
    rows: tuple[Int, Int]


class _Prefix(_Strict):
    prefix: Prefix = ""


def _valid(model: Any, data: Any) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError:
        return None


def _each(data: dict[str, Any], key: str, model: Any) -> list[Any]:
    items = data.get(key)
    if not isinstance(items, list):
        return []
    out = []
    for item in items:
        try:
            out.append(model.validate_python(item) if isinstance(model, TypeAdapter) else model.model_validate(item))
        except ValidationError:
            out.append(None)
    return out


def _grid(extent: _Extent, problems: list[str]) -> Grid | None:
    try:
        c0, c1 = column_index(extent.columns[0]), column_index(extent.columns[1])
    except AslTerrainError as e:
        problems.append(f"columns: {e}; expected column labels such as [\"A\", \"T\"]")
        return None
    r0, r1 = extent.rows
    bad = len(problems)
    if c0 > c1:
        problems.append(f"columns: first column {extent.columns[0]} comes after last column {extent.columns[1]}")
    elif c1 - c0 + 1 > limits.MAX_COLUMNS:
        problems.append(f"columns: {extent.columns[0]}..{extent.columns[1]} is {c1 - c0 + 1} columns; a map has at "
                        f"most {limits.MAX_COLUMNS} (README, Limits)")
    if r0 > r1 or r0 < 0:
        problems.append(f"rows: expected [first, last] with 0 <= first <= last, got {list(extent.rows)}")
    elif r1 - r0 + 1 > limits.MAX_ROWS or r1 > limits.MAX_ROW_NUMBER:
        problems.append(f"rows: {r0}..{r1} is {r1 - r0 + 1} rows; a map has at most {limits.MAX_ROWS}, numbered at "
                        f"most {limits.MAX_ROW_NUMBER} (README, Limits)")
    elif c0 <= c1 and (c1 - c0 + 1) * (r1 - r0 + 1) > limits.MAX_HEXES:
        problems.append(f"columns, rows: {(c1 - c0 + 1) * (r1 - r0 + 1):,} hexes; a map has at most "
                        f"{limits.MAX_HEXES:,} (README, Limits)")
    if len(problems) > bad:
        return None
    return Grid(c0, c1, r0, r1)


#: the hexes each [[hex]] block's "at" names, and the hexsides of each [[hexside]] block (valid ones only)
_Placed = tuple[list[list[tuple[int, Hex]]], list[list[tuple[int, Hexside]]]]


def _check_blocks(hex_blocks: list[HexBlock | None], side_blocks: list[HexsideBlock | None], counters: list[Any],
                  check: _Checker) -> _Placed:
    hex_at: list[list[tuple[int, Hex]]] = []
    side_at: list[list[tuple[int, Hexside]]] = []
    for i, hb in enumerate(hex_blocks):
        hex_at.append([])
        if hb is None:
            continue
        for j, text in enumerate(hb.at):
            h = check.hex(text, f"hex[{i}].at[{j}]")
            if h is not None:
                hex_at[-1].append((j, h))
        if hb.stream is not None and hb.terrain is not None and hb.terrain not in STREAM_TERRAIN:
            check.add(f"hex[{i}].stream", f"a stream cannot run through {hb.terrain!r} terrain; expected one of "
                                          f"{', '.join(sorted(STREAM_TERRAIN))} (P4.1)")
    for i, sb in enumerate(side_blocks):
        side_at.append([])
        if sb is None:
            continue
        if sb.wall and sb.hedge:
            check.add(f"hexside[{i}]", "wall = true and hedge = true: a hexside carries a wall or a hedge, not both "
                                       "(B9.1); expected one of them")
        for j, text in enumerate(sb.at):
            hs = check.hexside(text, f"hexside[{i}].at[{j}]")
            if hs is not None:
                side_at[-1].append((j, hs))
            if hs is not None and sb.slope is not None:
                h = check.hex(sb.slope, f"hexside[{i}].slope")
                if h is not None and h not in hs.hexes:
                    check.add(f"hexside[{i}].slope", f"{sb.slope!r} is not one of the hexes of hexside {text!r}; "
                                                     "expected the hex that carries the slope hash marks (P2.2)")
    for i, c in enumerate(counters):
        where = f"counter[{i}]"
        if c is None:
            continue
        if isinstance(c, RoadblockCounter):
            hs = check.hexside(c.hexside, f"{where}.hexside", board_ok=True)  # board-named: the model checks
            if c.arrow is not None and hs is not None:
                v = check.vertex(c.arrow, f"{where}.arrow")
                if v is not None and v not in hs.vertices():
                    check.add(f"{where}.arrow", f"vertex {c.arrow!r} is not a vertex of hexside {c.hexside!r}; "
                                                "the arrow points to one of its two vertices (P5.141)")
        else:
            h = check.hex(c.at, f"{where}.at", board_ok=True)
            bypass = getattr(c, "bypass", None)
            if bypass is not None and h is not None:
                hs = check.hexside(bypass, f"{where}.bypass", board_ok=True)
                if hs is not None and h not in hs.hexes:
                    check.add(f"{where}.bypass", f"hexside {bypass!r} is not a hexside of {c.at!r}")
    return hex_at, side_at


_HEX_KEYS = ("level", "terrain", "building", "building_type", "upper_levels", "steeple", "building_id",
             "stairwell", "stream", "culvert", "ford", "offboard", "bridge", "bridge_level")
_SIDE_KEYS = ("road", "narrow_street", "slope", "fence", "wall", "hedge", "bocage", "rowhouse_wall", "cliff", "stream",
              "culvert", "crest")


def _check_merged(hex_blocks: list[HexBlock | None], side_blocks: list[HexsideBlock | None], placed: _Placed,
                  defaults: DefaultsModel, check: _Checker) -> list[str]:
    """Check each hex and hexside as its blocks leave it (later blocks override the keys they set): the
    problems go to ``check``; returns the warnings."""
    warnings: list[str] = []
    prefix = check.prefix
    vals: dict[Hex, dict[str, Any]] = {}
    order: list[Hex] = []
    for i, hb in enumerate(hex_blocks):
        if hb is None:
            continue
        given = {k: getattr(hb, k) for k in _HEX_KEYS if getattr(hb, k) is not None}
        for _, h in placed[0][i]:
            if h not in vals:
                vals[h] = {}
                order.append(h)
            vals[h].update(given)
    terrain_of: dict[Hex, dict[str, Any]] = {}
    no_material: list[str] = []
    for h in order:
        v = {"terrain": defaults.terrain, "level": defaults.level, **vals[h]}
        terrain_of[h] = v
        name = prefix + h.name
        is_building = v["terrain"] == "building"
        btype = v.get("building_type") or ("multi-level" if "upper_levels" in v else "single-story-house")
        if not is_building:
            for k in ("building_type", "upper_levels", "steeple", "stairwell", "building_id"):
                if v.get(k) not in (None, False) and not (k == "building_id" and v["terrain"] == "rubble"):
                    check.add(f"hex {name}", f"{k!r} is set but the hex is {v['terrain']!r}, not a building")
        elif btype != "multi-level" and v.get("upper_levels"):
            check.add(f"hex {name}", f"upper_levels is for multi-level buildings, but building_type is {btype!r}")
        if v.get("building") is not None and v["terrain"] not in ("building", "rubble"):
            check.add(f"hex {name}", f"'building' (stone/wooden) is set but the hex is {v['terrain']!r}")
        if is_building and v.get("building") is None:
            no_material.append(name)
        is_stream = v.get("stream") is not None
        if v.get("culvert") and not is_stream:
            check.add(f"hex {name}", "a Stream Culvert needs a stream hex (set stream = ...) (P4.2)")
        if is_stream and v["terrain"] not in STREAM_TERRAIN:
            check.add(f"hex {name}", f"a stream cannot run through {v['terrain']!r} (P4.1)")
        if v.get("ford") and not is_stream:
            check.add(f"hex {name}", "a ford needs a stream hex (P4.3, B20.8)")
        if v.get("bridge") is not None and not is_stream:
            check.add(f"hex {name}", "a bridge needs a stream hex here (B6: the map format's bridges span streams "
                      "and gullies)")
        if v.get("bridge_level") is not None and v.get("bridge") is None:
            check.add(f"hex {name}", "bridge_level needs a bridge in the hex (set bridge = \"stone\" or \"wooden\") (B6.2)")
        elif v.get("bridge_level") is not None and v["bridge_level"] < v.get("level", defaults.level):
            check.add(f"hex {name}", f"bridge_level {v['bridge_level']} is below the hex's Crest level "
                      f"{v.get('level', defaults.level)}: a bridge spans its stream at or above the Crest (B6.2)")
    if no_material:
        shown = ", ".join(no_material[:6]) + (", ..." if len(no_material) > 6 else "")
        warnings.append(f"{len(no_material)} building hex(es) with no 'building' material ({shown}): stone is taken "
                        "(B23.3 TEM +3); write building = \"stone\" or \"wooden\" to say so")
    default_v = {"terrain": defaults.terrain, "level": defaults.level}
    sides: dict[Hexside, dict[str, Any]] = {}
    for i, sb in enumerate(side_blocks):
        if sb is None:
            continue
        given = {k: getattr(sb, k) for k in _SIDE_KEYS if getattr(sb, k) is not None}
        for _, hs in placed[1][i]:
            sides.setdefault(hs, {}).update(given)
    for hs, v in sides.items():
        name = prefix + hs.name
        if v.get("wall") and v.get("hedge"):
            check.add(f"hexside {name}", "both a wall and a hedge (set by different blocks): a hexside carries one "
                                         "or the other (B9.1)")
        ends = [terrain_of.get(h, default_v) for h in hs.hexes]
        if v.get("culvert"):
            for h, t in zip(hs.hexes, ends):
                if t.get("stream") is None:
                    check.add(f"hexside {name}", f"culvert = true but {prefix}{h.name} is not a stream hex (P4.22)")
        if v.get("narrow_street") and v.get("crest") and ends[0]["level"] == ends[1]["level"]:
            check.add(f"hexside {name}", "crest = true on a Narrow Street hexside whose hexes have the same Base "
                                         "Level: P5.11 puts a unit in Bypass along a Crest-Line Narrow Street in "
                                         "its lower hex, and neither is lower; leave crest out (or set the levels)")
    warnings += _stream_warnings(terrain_of, sides, check)
    return warnings


def _stream_warnings(terrain_of: dict[Hex, dict[str, Any]], sides: dict[Hexside, dict[str, Any]],
                     check: _Checker) -> list[str]:
    """Where a stream does not connect: a stream hex joined to no other stream hex, or a dead end (joined to
    one) that is not at the map edge, where a stream may run off the map. A stream broken by a mistyped or
    missing hex shows as two dead ends; a lone stream hex as one."""
    g = check.grid
    stream = {h for h, t in terrain_of.items() if t.get("stream") is not None}
    out = []
    for h in sorted(stream, key=lambda x: (x.col, x.row)):
        joined = 0
        for n in h.neighbours():
            w = sides.get(Hexside.of(h, n), {}).get("stream")
            if (w is True and n in g) or (w is None and n in stream):
                joined += 1
        if joined > 1 or h.col in (g.col_first, g.col_last) or h.row in (g.row_first, g.row_last):
            continue
        if joined == 0:
            out.append(f"stream hex {check.prefix}{h.name} is joined to no other stream hex (no stream hexside) and "
                       "is not at the map edge: check the stream's hex names")
        else:
            out.append(f"stream hex {check.prefix}{h.name} ends the stream (one stream hexside) away from the map "
                       "edge: check for a missing or mistyped stream hex next to it")
    return out


def _check_depiction(mf: MapFile, check: _Checker) -> None:
    d = mf.depiction
    if d is None:
        return
    if d.kind == "vasl" and not d.board:
        check.add("depiction.board", 'kind = "vasl" needs at least one [[depiction.board]] (a VASL board archive)')
    seen: dict[str, int] = {}
    for i, b in enumerate(d.board):
        where = f"depiction.board[{i}]"
        if b.column % 2 or b.row % 2:
            check.add(where, f"column = {b.column}, row = {b.row}: board offsets must be even (a board keeps its "
                             "column parity and whole-pixel position; the next board to the right is at column 32)")
        if b.prefix and b.prefix in seen:
            check.add(f"{where}.prefix", f"prefix {b.prefix!r} is already used by depiction.board[{seen[b.prefix]}]")
        if b.prefix:
            seen[b.prefix] = i
        last_col, last_row = b.column + b.columns - 1, b.row + b.rows
        if last_col > check.grid.col_last or last_row > check.grid.row_last:
            check.add(where, f"the board (columns {b.column}..{last_col}, rows {b.row}..{last_row}) does not fit "
                             f"the map ({check.grid.describe()})")


def _summary(source: str, problems: list[str]) -> str:
    if len(problems) == 1:
        return f"{source}: {problems[0]}"
    return f"{source}: {len(problems)} problems:\n" + "\n".join(f"  - {p}" for p in problems)


class _DuplicateKey(ValueError):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # JSON would keep the last of two "level" keys silently (TOML refuses them): a hex given two levels
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(f"key {k!r} is given twice in one object ({json.dumps(out[k])[:30]} and "
                                f"{json.dumps(v)[:30]}); expected each key once")
        out[k] = v
    return out


def read_map_document(path: str | Path) -> Any:
    """Decode a map file (TOML, or JSON by its ``.json`` suffix; UTF-8, a byte-order mark allowed) without
    validating it. Files over the size, nesting or number-length limits are refused before decoding."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise MapError(f"{p}: cannot read the map file ({e.strerror or e})", source=str(p)) from None
    def error(msg: str) -> MapError:
        return MapError(msg, source=str(p))

    if p.suffix.lower() == ".json":
        if not raw.startswith(b"\xef\xbb\xbf"):
            try:  # JSON may come in UTF-16 or UTF-32 (RFC 8259 detection, as json.loads(bytes) does)
                raw = raw.decode(json.detect_encoding(raw)).encode("utf-8")
            except (UnicodeDecodeError, LookupError):
                pass
        text = limits.decode_bytes(raw, str(p), "map file", error)
        try:
            return json.loads(text, object_pairs_hook=_no_duplicate_keys)
        except _DuplicateKey as e:
            raise MapError(f"{p}: {e}", source=str(p)) from None
        except json.JSONDecodeError as e:
            raise MapError(f"{p}: not valid JSON ({e})", source=str(p)) from None
        except (RecursionError, ValueError) as e:  # the guard should have refused it first
            raise MapError(f"{p}: cannot be read as JSON ({type(e).__name__}: {e})", source=str(p)) from None
    text = limits.decode_bytes(raw, str(p), "map file", error)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise MapError(f"{p}: not valid TOML ({e}); map files are TOML, or JSON with a .json suffix",
                       source=str(p)) from None
    except (RecursionError, ValueError) as e:
        raise MapError(f"{p}: cannot be read as TOML ({type(e).__name__}: {e})", source=str(p)) from None


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the map format (``asl-terrain schema``)."""
    schema = MapFile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "asl-terrain map file (format asl-terrain/1)"
    schema["x-limits"] = {
        "columns": limits.MAX_COLUMNS, "rows": limits.MAX_ROWS, "row_number": limits.MAX_ROW_NUMBER,
        "hexes": limits.MAX_HEXES, "level": [limits.MIN_LEVEL, limits.MAX_LEVEL],
        "name_length": limits.MAX_MAP_NAME, "building_id_length": limits.MAX_ID,
        "location_name_length": limits.MAX_LOCATION_NAME, "hex_name_length": limits.MAX_HEX_NAME,
        "file_bytes": limits.MAX_FILE_BYTES, "nesting": limits.MAX_DEPTH, "number_digits": limits.MAX_DIGITS,
        "batch_queries": limits.MAX_BATCH,
    }
    return schema
