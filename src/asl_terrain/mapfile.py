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

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import AslTerrainError, MapError
from .grid import Hex, Hexside, Vertex, column_index, column_label, parse_hex_name

FORMAT = "asl-terrain/1"

Terrain = Literal[
    "open", "woods", "pine-woods", "brush", "orchard", "grain", "building", "rubble",
    "graveyard", "marsh", "shellholes",
]
BuildingType = Literal["single-story-house", "two-story-house", "single-hex-two-story-house", "multi-level"]
StreamDepth = Literal["dry", "shallow", "deep", "flooded"]
Weather = Literal["clear", "rain", "snow", "deep-snow", "mud"]

#: terrain that may carry ``stream`` (P4.1: stream-woods, stream-brush, stream-orchard; plain stream hexes)
STREAM_TERRAIN = frozenset({"open", "woods", "pine-woods", "brush", "orchard"})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


def _one_or_more(v: Any) -> Any:
    # "at" is written as a list; a lone string is accepted too (the list form is what the doc shows)
    return [v] if isinstance(v, str) else v


class ConditionsModel(_Strict):
    month: int = Field(6, ge=1, le=12)
    weather: Weather = "clear"
    frigid: bool = False


class DefaultsModel(_Strict):
    terrain: Terrain = "open"
    level: int = 0


class HexBlock(_Strict):
    at: list[str] = Field(min_length=1)
    level: int | None = None
    terrain: Terrain | None = None
    building: Literal["stone", "wooden"] | None = None
    building_type: BuildingType | None = None
    upper_levels: int | None = Field(None, ge=0, le=20)
    steeple: bool | None = None
    building_id: str | None = None
    stairwell: bool | None = None
    stream: StreamDepth | None = None
    culvert: bool | None = None
    ford: bool | None = None
    offboard: bool | None = None

    _at = field_validator("at", mode="before")(_one_or_more)


class HexsideBlock(_Strict):
    at: list[str] = Field(min_length=1)
    road: Literal["paved", "dirt"] | None = None
    narrow_street: Literal["paved", "unpaved"] | None = None
    slope: str | None = None
    fence: bool | None = None
    wall: bool | None = None
    hedge: bool | None = None
    bocage: bool | None = None
    stream: bool | None = None
    culvert: bool | None = None
    crest: bool | None = None

    _at = field_validator("at", mode="before")(_one_or_more)


class SmokeCounter(_Strict):
    type: Literal["smoke"]
    at: str
    strength: int = Field(ge=1, le=6)


class ResidualFpCounter(_Strict):
    type: Literal["residual-fp"]
    at: str
    fp: int = Field(ge=1, le=36)


class MinesCounter(_Strict):
    type: Literal["mines"]
    at: str
    kind: Literal["A-P", "A-T"]
    strength: int = Field(ge=1, le=36)
    hidden: bool = False


class RoadblockCounter(_Strict):
    type: Literal["roadblock"]
    hexside: str
    arrow: str | None = None


class WreckCounter(_Strict):
    type: Literal["wreck"]
    at: str
    bypass: str | None = None
    burning: bool = False


class VehicleCounter(_Strict):
    type: Literal["vehicle"]
    at: str
    bypass: str | None = None
    immobile: bool = False


class PlainCounter(_Strict):
    type: Literal["rubble", "blaze", "entrenchment"]
    at: str


Counter = Annotated[
    Union[SmokeCounter, ResidualFpCounter, MinesCounter, RoadblockCounter, WreckCounter, VehicleCounter,
          PlainCounter],
    Field(discriminator="type"),
]


class BoardPlacementModel(_Strict):
    """One board of an artwork depiction (``[[depiction.board]]``, docs/map-format-extensions.md)."""

    archive: str = Field(min_length=1)  # a VASL board archive: a path (relative to the map file) or a name ("bd01")
    prefix: str = Field("", pattern=r"^([A-Z][a-z]*|[0-9]+)?$")  # the board's own hex prefix ("1" names 1Y10)
    column: int = Field(0, ge=0)  # the map column of the board's column A (even)
    row: int = Field(0, ge=0)  # the map row of the board's row 0 (even)
    columns: int = Field(33, ge=1)  # the board's size in hexes (columns; rows of its A, C, E ... columns)
    rows: int = Field(10, ge=1)
    flipped: bool = False  # rotated 180° (VASL's "r05"): its hex names stay those printed on it


class DepictionModel(_Strict):
    """``[depiction]``: what the hexes' terrain looks like to a LOS thread (A6.1). Left out, every hex is
    depicted whole (hand-made maps); ``kind = "vasl"`` follows the artwork of VASL board archives."""

    kind: Literal["whole-hex", "vasl"] = "vasl"
    terrain_table: str | None = None  # VASL's SharedBoardMetadata.xml (default: the VASL data directory's)
    board: list[BoardPlacementModel] = []


class MapFile(_Strict):
    """The whole file, as written (before defaults are derived)."""

    format: Literal["asl-terrain/1"]
    name: str = ""
    prefix: str = Field("", pattern=r"^([A-Z][a-z]*|[0-9]+)?$")
    columns: tuple[str, str]
    rows: tuple[int, int]
    conditions: ConditionsModel = ConditionsModel()
    defaults: DefaultsModel = DefaultsModel()
    hex: list[HexBlock] = []
    hexside: list[HexsideBlock] = []
    counter: list[Counter] = []
    depiction: DepictionModel | None = None


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
            "smoke", "residual-fp", "mines", "roadblock", "wreck", "vehicle", "rubble", "blaze", "entrenchment"}
            and e["type"] != "extra_forbidden"))
        where = _loc(loc) + _which(data, loc)
        if e["type"] == "extra_forbidden":
            problems.append(f"{where}: unknown key (see map-format.md for the keys of this table)")
        elif e["type"] == "missing":
            problems.append(f"{where}: required key is missing")
        elif e["type"] == "union_tag_invalid":
            problems.append(f"{where}: unknown counter type {e.get('ctx', {}).get('tag')!r}; expected one of smoke, "
                            "residual-fp, mines, roadblock, wreck, vehicle, rubble, blaze, entrenchment")
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


class Grid:
    """The extent of a map: which hexes exist."""

    __slots__ = ("col_first", "col_last", "row_first", "row_last")

    def __init__(self, col_first: int, col_last: int, row_first: int, row_last: int) -> None:
        self.col_first, self.col_last, self.row_first, self.row_last = col_first, col_last, row_first, row_last

    def __contains__(self, h: Hex) -> bool:
        return self.col_first <= h.col <= self.col_last and self.row_first <= h.row <= self.row_last

    def describe(self) -> str:
        return (f"columns {column_label(self.col_first)}..{column_label(self.col_last)}, "
                f"rows {self.row_first}..{self.row_last}")


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
    if not isinstance(data, dict):
        raise MapError(f"{source}: a map file must be a table (TOML) or an object (JSON)", source=source)
    fmt = data.get("format")
    if fmt != FORMAT:
        raise MapError(f"{source}: format: expected {FORMAT!r}, got {fmt!r}", source=source)
    try:
        mf = MapFile.model_validate(data)
    except ValidationError as e:
        found = _pydantic_problems(e, data)
        raise MapError(_summary(source, found), problems=found, source=source) from None
    problems: list[str] = []
    try:
        c0, c1 = column_index(mf.columns[0]), column_index(mf.columns[1])
    except AslTerrainError as e:
        raise MapError(f"{source}: columns: {e}; expected column labels such as [\"A\", \"T\"]",
                       source=source) from None
    if c0 > c1:
        problems.append(f"columns: first column {mf.columns[0]} comes after last column {mf.columns[1]}")
    if mf.rows[0] > mf.rows[1] or mf.rows[0] < 0:
        problems.append(f"rows: expected [first, last] with 0 <= first <= last, got {list(mf.rows)}")
    if problems:
        raise MapError(_summary(source, problems), problems=problems, source=source)
    grid = Grid(c0, c1, mf.rows[0], mf.rows[1])
    check = _Checker(grid, mf.prefix, {b.prefix: b for b in mf.depiction.board if b.prefix} if mf.depiction else None)
    _check_blocks(mf, check)
    _check_depiction(mf, check)
    if check.problems:
        raise MapError(_summary(source, check.problems), problems=check.problems, source=source)
    return mf, grid


def _check_blocks(mf: MapFile, check: _Checker) -> None:
    for i, hb in enumerate(mf.hex):
        for j, text in enumerate(hb.at):
            check.hex(text, f"hex[{i}].at[{j}]")
        if hb.stream is not None and hb.terrain is not None and hb.terrain not in STREAM_TERRAIN:
            check.add(f"hex[{i}].stream", f"a stream cannot run through {hb.terrain!r} terrain; expected one of "
                                          f"{', '.join(sorted(STREAM_TERRAIN))} (P4.1)")
    for i, sb in enumerate(mf.hexside):
        for j, text in enumerate(sb.at):
            hs = check.hexside(text, f"hexside[{i}].at[{j}]")
            if hs is not None and sb.slope is not None:
                h = check.hex(sb.slope, f"hexside[{i}].slope")
                if h is not None and h not in hs.hexes:
                    check.add(f"hexside[{i}].slope", f"{sb.slope!r} is not one of the hexes of hexside {text!r}; "
                                                     "expected the hex that carries the slope hash marks (P2.2)")
    for i, c in enumerate(mf.counter):
        where = f"counter[{i}]"
        if isinstance(c, RoadblockCounter):
            hs = check.hexside(c.hexside, f"{where}.hexside")
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


def read_map_document(path: str | Path) -> Any:
    """Decode a map file (TOML, or JSON by its ``.json`` suffix) without validating it."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise MapError(f"{p}: cannot read the map file ({e.strerror or e})", source=str(p)) from None
    if p.suffix.lower() == ".json":
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise MapError(f"{p}: not valid JSON ({e})", source=str(p)) from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise MapError(f"{p}: not valid TOML ({e}); map files are TOML, or JSON with a .json suffix",
                       source=str(p)) from None


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the map format (``asl-terrain schema``)."""
    schema = MapFile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "asl-terrain map file (format asl-terrain/1)"
    return schema
