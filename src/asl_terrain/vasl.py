"""VASL board archives, VASL's terrain table and the VASL LOS oracle files.

VASL (the Virtual ASL module for VASSAL) ships each board as a zip archive holding the board image, a
``BoardMetadata.xml`` and ``LOSData``: a raster of the board, one ground elevation and one terrain code
per pixel, from which VASL's LOS engine works. This module reads those archives and VASL's shared terrain
table, reads the oracle files VASL's own LOS engine produced on each board, and derives from a board a
map in the structure of ``docs/map-format.md`` (format ``asl-terrain/1``).

Nothing here copies VASL data into the project: everything is read at run time from a VASL data
directory (see :func:`vasl_data_dir`).

Coordinates
-----------
* Pixels: ``(x, y)`` with ``x`` to the right and ``y`` downward, as in the board image. The rasters
  :attr:`BoardArchive.elevation` and :attr:`BoardArchive.terrain` are numpy arrays shaped
  ``(grid_width, grid_height)`` and indexed ``[x, y]`` (x-major, as stored in ``LOSData`` and as VASL's
  ``Map.terrainGrid[x][y]``); use ``.T`` for an image-like ``[y, x]`` view.
* Hexes: ``(col, row)`` with ``col`` counted from A = 0 (A..Z = 0..25, AA = 26, BB = 27, ...) and ``row``
  the row number as printed (A1, B0). On a geomorphic board even-index columns hold rows 1..10 and
  odd-index columns rows 0..10.
* Hexsides are numbered as VASL numbers them: 0 = N, 1 = NE, 2 = SE, 3 = S, 4 = SW, 5 = NW.
"""

from __future__ import annotations

import copy
import gzip
import math
import os
import re
import struct
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np

from asl_terrain.errors import BadName, MapError, UnknownLocation

if TYPE_CHECKING:
    from asl_terrain.model import Map

__all__ = [
    "HEXSIDE_NAMES",
    "HEX_HEIGHT",
    "HEX_WIDTH",
    "BoardArchive",
    "TurnedBoard",
    "find_board",
    "vasl_board_dirs",
    "BoardGeometry",
    "BoardMetadata",
    "BoardTerrain",
    "HexTerrain",
    "MapConversion",
    "OracleHex",
    "OracleLine",
    "OverlayRule",
    "PaletteColor",
    "TerrainTable",
    "TerrainType",
    "VaslHex",
    "board_to_map_dict",
    "derive_board",
    "load_terrain_table",
    "read_board",
    "read_oracle",
    "read_oracle_hexes",
    "vasl_data_dir",
]

Hex = tuple[int, int]  # (column index, row number as printed)
HexsideKey = tuple[Hex, Hex]  # the two hexes, ordered by column then row

HEX_WIDTH = 56.25  # horizontal distance between the centres of neighbouring columns, in pixels
HEX_HEIGHT = 64.5  # distance between the centres of two hexes of one column, in pixels
HEXSIDE_NAMES = ("N", "NE", "SE", "S", "SW", "NW")

_HALF_HEIGHT = HEX_HEIGHT / 2  # 32.25: centre to the N or S hexside
_SIDE = HEX_WIDTH * 2 / 3  # 37.5: centre to the E or W vertex (VASL's hexes are not quite regular)
# vertices, clockwise from the left end of the N hexside; hexside k runs from vertex k to vertex k + 1
_VERTICES = (
    (-_SIDE / 2, -_HALF_HEIGHT),
    (_SIDE / 2, -_HALF_HEIGHT),
    (_SIDE, 0.0),
    (_SIDE / 2, _HALF_HEIGHT),
    (-_SIDE / 2, _HALF_HEIGHT),
    (-_SIDE, 0.0),
)
# neighbour (dcol, drow) per hexside, for even-index and odd-index columns (rows as printed)
_NEIGHBOURS = (
    ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1)),
    ((0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)),
)

FORMAT = "asl-terrain/1"
_ENV_VAR = "ASL_TERRAIN_VASL"


# --------------------------------------------------------------------------------------------------
# hex names (private: the grid module owns the public ones)


def _column_name(col: int) -> str:
    if col < 0:
        raise BadName(f"column index {col} is negative")
    return chr(ord("A") + col % 26) * (col // 26 + 1)


def _column_index(name: str) -> int:
    if not name or not name.isascii() or not name.isalpha() or not name.isupper() or len(set(name)) != 1:
        raise BadName(f"{name!r} is not a column name (A..Z, AA, BB, ...)")
    return (len(name) - 1) * 26 + ord(name[0]) - ord("A")


_HEX_NAME = re.compile(r"([A-Z]+)(\d+)")


def _parse_hex(name: str) -> Hex:
    m = _HEX_NAME.fullmatch(name.strip())
    if not m:
        raise BadName(f"{name!r} is not a hex name (column letters, then the row number, e.g. A1, BB10)")
    return _column_index(m.group(1)), int(m.group(2))


def _hex_name(hex_: Hex) -> str:
    return f"{_column_name(hex_[0])}{hex_[1]}"


def _hexside_name(key: HexsideKey) -> str:
    return f"{_hex_name(key[0])}-{_hex_name(key[1])}"


def _hexside_key(a: Hex, b: Hex) -> HexsideKey:
    return (a, b) if a <= b else (b, a)


# --------------------------------------------------------------------------------------------------
# where the VASL data lives


def vasl_data_dir() -> Path | None:
    """The directory holding VASL's data (``SharedBoardMetadata.xml``, ``boards/``, ``oracle/``), or None.

    Looked for, in order: the directory named by the environment variable ``ASL_TERRAIN_VASL``;
    ``../shared/vasl`` from the current directory; ``shared/vasl`` beside the repository this module
    was loaded from.
    """
    candidates: list[Path] = []
    env = os.environ.get(_ENV_VAR)
    if env:
        candidates.append(Path(env))
    candidates.append(Path.cwd().parent / "shared" / "vasl")
    here = Path(__file__).resolve()
    if len(here.parents) > 3:
        candidates.append(here.parents[3] / "shared" / "vasl")
    for candidate in candidates:
        if (candidate / "SharedBoardMetadata.xml").is_file() or (candidate / "boards").is_dir():
            return candidate
    return None


def vasl_board_dirs() -> list[Path]:
    """The usual boards folders of an installed VASL. VASL keeps its board archives in the folder of its
    "Board Directory" preference, by default a ``boards`` folder beside the VASL module file
    (``vasl-6.x.vmod``); players usually install that in a ``VASL`` folder in their home or Documents
    folder (Windows, macOS and Linux alike)."""
    home = Path.home()
    return [home / "VASL" / "boards", home / "Documents" / "VASL" / "boards", home / "vasl" / "boards"]


def find_board(archive: str, boards_dir: str | Path | None = None) -> Path:
    """The board archive ``archive`` (``"bd02"``), looked for, in order: in ``boards_dir`` (``--boards``);
    in ``$ASL_TERRAIN_VASL`` (the folder itself, or its ``boards/``); in the usual VASL boards folders
    (:func:`vasl_board_dirs`); in the VASL data directory beside the repository (``../shared/vasl``).

    :raises MapError: not found anywhere, naming every place looked in.
    """
    places: list[Path] = []
    if boards_dir is not None:
        places.append(Path(boards_dir))
    env = os.environ.get(_ENV_VAR)
    if env:
        places += [Path(env), Path(env) / "boards"]
    places += vasl_board_dirs()
    data = vasl_data_dir()
    if data is not None:
        places.append(data / "boards")
    for d in places:
        if (d / archive).is_file():
            return d / archive
    raise MapError(f"board archive {archive} not found: looked in "
                   + ", ".join(str(d) for d in dict.fromkeys(places))
                   + f"; pass --boards DIR (the folder holding {archive}), set {_ENV_VAR}, or install the board in "
                   "VASL's boards folder")


def _require_data_dir(what: str) -> Path:
    found = vasl_data_dir()
    if found is None:
        raise MapError(
            f"cannot find the VASL data for {what}: set {_ENV_VAR} to the directory holding "
            "SharedBoardMetadata.xml, boards/ and oracle/"
        )
    return found


# --------------------------------------------------------------------------------------------------
# terrain table (SharedBoardMetadata.xml)


@dataclass(frozen=True)
class TerrainType:
    """One VASL terrain type, as ``SharedBoardMetadata.xml`` defines it (``<terrainType>``)."""

    code: int
    name: str
    los_category: str  # VASL's LOSCategory: OPEN, WOODS, BUILDING, HEXSIDE, DEPRESSION, ROAD, ...
    height: int  # in levels
    obstacle: bool  # isLOSObstacle
    hindrance: bool  # isLOSHindrance
    half_level: bool  # isHalfLevelHeight
    inherent: bool  # isInherentTerrain
    lower_obstacle: bool  # isLowerLOSObstacle (split terrain: below the split)
    lower_hindrance: bool  # isLowerLOSHindrance
    split: float  # the split level of split terrain (marketplaces, factories), 0.0 when none
    map_color: tuple[int, int, int]

    @property
    def is_building(self) -> bool:
        """VASL's ``Terrain.isBuilding``: building, factory or marketplace."""
        return self.los_category in ("BUILDING", "FACTORY", "MARKETPLACE")

    @property
    def is_hexside(self) -> bool:
        """VASL's ``Terrain.isHexside``: hexside terrain (walls, hedges, cliffs, ...) or rowhouse walls."""
        return self.los_category == "HEXSIDE" or self.name.startswith("Rowhouse Wall")

    @property
    def is_depression(self) -> bool:
        return self.los_category == "DEPRESSION"

    @property
    def is_road(self) -> bool:
        return self.los_category == "ROAD"


@dataclass(frozen=True)
class PaletteColor:
    """A named colour of VASL's board palette (``<colors><color .../>``)."""

    name: str
    rgb: tuple[int, int, int]
    terrain: str | None  # the terrain name it stands for, None for UNKNOWN
    elevation: int | None  # its ground level, None for UNKNOWN


@dataclass(frozen=True)
class TerrainTable:
    """VASL's terrain table: every terrain code with its name, LOS category, height and flags."""

    types: Mapping[int, TerrainType]
    colors: Mapping[str, PaletteColor]
    source: str = ""

    def __getitem__(self, code: int) -> TerrainType:
        try:
            return self.types[code]
        except KeyError:
            raise MapError(f"{self.source}: no terrain type with code {code}") from None

    def __contains__(self, code: object) -> bool:
        return code in self.types

    def __iter__(self) -> Iterator[TerrainType]:
        return iter(self.types.values())

    def __len__(self) -> int:
        return len(self.types)

    def name(self, code: int) -> str:
        """The terrain's name, or ``"terrain code N"`` for a code the table does not define."""
        t = self.types.get(code)
        return t.name if t else f"terrain code {code}"

    def by_name(self, name: str) -> TerrainType:
        """The terrain type with that name (the lowest code, if a name occurs twice)."""
        for t in sorted(self.types.values(), key=lambda t: t.code):
            if t.name == name:
                return t
        raise MapError(f"{self.source}: no terrain type named {name!r}")


def _flag(value: str | None) -> bool:
    return (value or "").strip().upper() == "TRUE"


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _parse_colors(parent: ET.Element | None) -> dict[str, PaletteColor]:
    colors: dict[str, PaletteColor] = {}
    if parent is None:
        return colors
    for c in parent.iter("color"):
        name = c.get("name")
        if not name or c.get("red") is None:
            continue
        terrain = c.get("terrain")
        colors[name] = PaletteColor(
            name=name,
            rgb=(int(c.get("red", 0)), int(c.get("green", 0)), int(c.get("blue", 0))),
            terrain=None if terrain in (None, "UNKNOWN") else terrain,
            elevation=_int_or_none(c.get("elevation")),
        )
    return colors


def load_terrain_table(path: str | Path | None = None) -> TerrainTable:
    """Read VASL's terrain table from ``SharedBoardMetadata.xml``.

    :param path: the file; by default ``SharedBoardMetadata.xml`` in :func:`vasl_data_dir`.
    :raises MapError: the file is missing or not a VASL terrain table.
    """
    file = Path(path) if path is not None else _require_data_dir("the terrain table") / "SharedBoardMetadata.xml"
    try:
        root = ET.parse(file).getroot()
    except (OSError, ET.ParseError) as exc:
        raise MapError(f"{file}: cannot read the VASL terrain table: {exc}", source=str(file)) from None
    types: dict[int, TerrainType] = {}
    problems: list[str] = []
    for t in root.iter("terrainType"):
        try:
            code = int(t.get("typeCode", ""))
            types[code] = TerrainType(
                code=code,
                name=t.get("name", ""),
                los_category=t.get("LOSCategory", "OPEN").strip().upper(),
                height=int(t.get("height", "0")),
                obstacle=_flag(t.get("isLOSObstacle")),
                hindrance=_flag(t.get("isLOSHindrance")),
                half_level=_flag(t.get("isHalfLevelHeight")),
                inherent=_flag(t.get("isInherentTerrain")),
                lower_obstacle=_flag(t.get("isLowerLOSObstacle")),
                lower_hindrance=_flag(t.get("isLowerLOSHindrance")),
                split=float(t.get("split", "0")),
                map_color=(
                    int(t.get("mapColorRed", "0")),
                    int(t.get("mapColorGreen", "0")),
                    int(t.get("mapColorBlue", "0")),
                ),
            )
        except ValueError as exc:
            problems.append(f"terrainType {t.get('name')!r}: {exc}")
    if problems:
        raise MapError(f"{file}: bad terrain types: {'; '.join(problems)}", problems=problems, source=str(file))
    if not types:
        raise MapError(f"{file}: no <terrainType> elements: not a VASL SharedBoardMetadata.xml", source=str(file))
    return TerrainTable(types=types, colors=_parse_colors(root.find("colors")), source=str(file))


# --------------------------------------------------------------------------------------------------
# geometry


@dataclass(frozen=True)
class BoardGeometry:
    """The hex grid of one VASL board in its pixel raster (VASL's "Normal" geomorphic layout).

    Hex centres: ``x = 56.25·col``, ``y = 64.5·row − 32.25·(1 − col % 2)``; as whole pixels (the
    centre VASL uses) they are truncated and pulled in by one pixel on the right and bottom edges.
    """

    width: int  # hexes per row (columns)
    height: int  # hexes in an even-index column
    grid_width: int  # pixels
    grid_height: int  # pixels

    def rows(self, col: int) -> range:
        """The row numbers of column ``col``: 1..height for A, C, E, ...; 0..height for B, D, F, ..."""
        return range(1, self.height + 1) if col % 2 == 0 else range(self.height + 1)

    @cached_property
    def hexes(self) -> tuple[Hex, ...]:
        """Every hex of the board, column by column (the order of :meth:`hex_index_raster`)."""
        return tuple((c, r) for c in range(self.width) for r in self.rows(c))

    @cached_property
    def _index(self) -> dict[Hex, int]:
        return {h: i for i, h in enumerate(self.hexes)}

    def contains(self, col: int, row: int) -> bool:
        return 0 <= col < self.width and row in self.rows(col)

    def parse(self, name: str) -> Hex:
        """``"O2"`` → ``(14, 2)``; :class:`UnknownLocation` if the hex is not on this board."""
        col, row = _parse_hex(name)
        if not self.contains(col, row):
            raise UnknownLocation(f"hex {name} is not on this board (columns A-{_column_name(self.width - 1)})")
        return col, row

    @staticmethod
    def name(hex_: Hex) -> str:
        return _hex_name(hex_)

    def centre_exact(self, col: int, row: int) -> tuple[float, float]:
        return HEX_WIDTH * col, HEX_HEIGHT * row - _HALF_HEIGHT * (1 - col % 2)

    def centre(self, col: int, row: int) -> tuple[int, int]:
        """The centre pixel VASL uses for the hex (truncated, pulled in on the right and bottom edges)."""
        x, y = self.centre_exact(col, row)
        return min(max(int(x), 0), self.grid_width - 1), min(max(int(y), 0), self.grid_height - 1)

    def vertex(self, col: int, row: int, k: int) -> tuple[float, float]:
        """Vertex ``k`` of the hex: 0 = left end of the N hexside, then clockwise."""
        x, y = self.centre_exact(col, row)
        dx, dy = _VERTICES[k % 6]
        return x + dx, y + dy

    def hexside_segment(self, col: int, row: int, side: int) -> tuple[tuple[float, float], tuple[float, float]]:
        """The two end vertices of hexside ``side`` (0 = N ... 5 = NW), clockwise."""
        return self.vertex(col, row, side), self.vertex(col, row, side + 1)

    def neighbour(self, col: int, row: int, side: int) -> Hex | None:
        """The hex across hexside ``side`` (0 = N ... 5 = NW), or None off the board."""
        dc, dr = _NEIGHBOURS[col % 2][side % 6]
        c, r = col + dc, row + dr
        return (c, r) if self.contains(c, r) else None

    def hex_distance(self, a: Hex, b: Hex) -> int:
        """The ASL range between two hexes (odd-q offset → cube coordinates)."""
        qa, ra = a[0], a[1] - (a[0] - (a[0] & 1)) // 2
        qb, rb = b[0], b[1] - (b[0] - (b[0] & 1)) // 2
        dq, dr = qa - qb, ra - rb
        return max(abs(dq), abs(dr), abs(dq + dr))

    def _hex_indices(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Index into :attr:`hexes` of the hex holding each point (vectorised; points must be on the grid)."""
        xs = np.asarray(xs, dtype=np.float64)
        ys = np.asarray(ys, dtype=np.float64)
        best = np.full(xs.shape, np.inf)
        found = np.full(xs.shape, -1, dtype=np.int32)
        base_col = np.rint(xs / HEX_WIDTH).astype(np.int64)
        index = self._index
        lookup = np.full((self.width, self.height + 2), -1, dtype=np.int32)
        for (c, r), i in index.items():
            lookup[c, r] = i
        for dc in (-1, 0, 1):
            col = base_col + dc
            parity = col % 2
            base_row = np.rint((ys + _HALF_HEIGHT * (1 - parity)) / HEX_HEIGHT).astype(np.int64)
            for dr in (-1, 0, 1):
                row = base_row + dr
                ok = (col >= 0) & (col < self.width) & (row >= 0) & (row <= self.height + 1)
                idx = np.where(ok, lookup[np.clip(col, 0, self.width - 1), np.clip(row, 0, self.height + 1)], -1)
                ok &= idx >= 0
                cx = HEX_WIDTH * col
                cy = HEX_HEIGHT * row - _HALF_HEIGHT * (1 - parity)
                ax, ay = np.abs(xs - cx), np.abs(ys - cy)
                norm = np.maximum(ay / _HALF_HEIGHT, ax / _SIDE + ay / HEX_HEIGHT)  # ≤ 1 inside the hex
                better = ok & (norm < best)
                best = np.where(better, norm, best)
                found = np.where(better, idx, found)
        return found

    def hex_at(self, x: float, y: float) -> Hex:
        """The hex holding pixel ``(x, y)``; :class:`UnknownLocation` off the pixel grid."""
        if not (0 <= x < self.grid_width and 0 <= y < self.grid_height):
            raise UnknownLocation(f"pixel ({x}, {y}) is off the board ({self.grid_width} x {self.grid_height})")
        i = int(self._hex_indices(np.array([x]), np.array([y]))[0])
        return self.hexes[i]

    def hex_index_raster(self) -> np.ndarray:
        """For every pixel, the index into :attr:`hexes` of its hex: int16, shaped (grid_width, grid_height)."""
        xs, ys = np.meshgrid(
            np.arange(self.grid_width, dtype=np.float64), np.arange(self.grid_height, dtype=np.float64), indexing="ij"
        )
        return self._hex_indices(xs, ys).astype(np.int16)


# --------------------------------------------------------------------------------------------------
# board archive


@dataclass(frozen=True)
class OverlayRule:
    """An SSR overlay of the board (``<overlaySSRule name image x y>``): an image pasted at (x, y)."""

    name: str
    image: str
    x: int
    y: int


@dataclass(frozen=True)
class BoardMetadata:
    """What ``BoardMetadata.xml`` says about one board."""

    name: str
    version: str
    version_date: str
    author: str
    image_name: str
    has_hills: bool
    width: int | None
    height: int | None
    building_types: Mapping[str, str]  # hex name → VASL building terrain name, e.g. "Stone Building, 2 Level"
    slopes: Mapping[str, tuple[int, ...]]  # hex name → its slope hexsides (0 = N ... 5 = NW)
    overlays: tuple[OverlayRule, ...]
    underlays: tuple[str, ...]  # names of the colour-pattern SSR underlays the board defines
    colors: Mapping[str, PaletteColor]  # the board's palette overrides
    attributes: Mapping[str, str]  # every attribute of <boardMetadata>, as written


def _parse_board_metadata(data: bytes, source: str) -> BoardMetadata:
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise MapError(f"{source}: BoardMetadata.xml is not XML: {exc}", source=source) from None
    problems: list[str] = []
    building_types: dict[str, str] = {}
    for b in root.iter("buildingType"):
        hex_name, type_name = (b.get("hexName") or "").strip(), (b.get("buildingTypeName") or "").strip()
        try:
            _parse_hex(hex_name)
            building_types[hex_name] = type_name
        except BadName as exc:
            problems.append(f"buildingType: {exc}")
    slopes: dict[str, tuple[int, ...]] = {}
    for s in root.iter("slope"):
        hex_name, sides = (s.get("hex") or "").strip(), (s.get("hexsides") or "").strip()
        try:
            _parse_hex(hex_name)
        except BadName as exc:
            problems.append(f"slope: {exc}")
            continue
        if not sides or any(ch not in "012345" for ch in sides):
            problems.append(f"slope {hex_name}: hexsides {sides!r} should be digits 0-5 (0 = N, clockwise)")
            continue
        slopes[hex_name] = tuple(sorted(set(slopes.get(hex_name, ()) + tuple(int(ch) for ch in sides))))
    overlays: list[OverlayRule] = []
    for o in root.iter("overlaySSRule"):
        x, y = _int_or_none(o.get("x")), _int_or_none(o.get("y"))
        if o.get("name") and o.get("image") and x is not None and y is not None:
            overlays.append(OverlayRule(o.get("name", ""), o.get("image", ""), x, y))
    if problems:
        raise MapError(f"{source}: bad BoardMetadata.xml: {'; '.join(problems)}", problems=problems, source=source)
    a = root.attrib
    return BoardMetadata(
        name=a.get("name", ""),
        version=a.get("version", ""),
        version_date=a.get("versionDate", ""),
        author=a.get("author", ""),
        image_name=a.get("boardImageFileName", ""),
        has_hills=_flag(a.get("hasHills")),
        width=_int_or_none(a.get("width")),
        height=_int_or_none(a.get("height")),
        building_types=building_types,
        slopes=slopes,
        overlays=tuple(overlays),
        underlays=tuple(u.get("name", "") for u in root.iter("underlaySSRule")),
        colors=_parse_colors(root.find("colors")),
        attributes=dict(a),
    )


def _unwrap_java_block_data(raw: bytes, source: str) -> bytes:
    """The concatenated payload of a Java serialization stream made only of block-data records."""
    if raw[:4] != b"\xac\xed\x00\x05":
        raise MapError(f"{source}: LOSData is not a Java serialization stream (no AC ED 00 05 magic)", source=source)
    view = memoryview(raw)
    chunks: list[memoryview] = []
    i, n = 4, len(raw)
    while i < n:
        tag = raw[i]
        if tag == 0x77:  # TC_BLOCKDATA: 1-byte length
            if i + 2 > n:
                break
            length, start = raw[i + 1], i + 2
        elif tag == 0x7A:  # TC_BLOCKDATALONG: 4-byte big-endian length
            if i + 5 > n:
                break
            length, start = int.from_bytes(raw[i + 1 : i + 5], "big"), i + 5
        else:
            raise MapError(
                f"{source}: LOSData: unexpected serialization record 0x{tag:02x} at byte {i} "
                "(only block data, 0x77 or 0x7A, is expected)",
                source=source,
            )
        if start + length > n:
            break
        chunks.append(view[start : start + length])
        i = start + length
    if i != n:
        raise MapError(f"{source}: LOSData is truncated (a block-data record runs past the end)", source=source)
    return b"".join(chunks)


@dataclass(frozen=True)
class VaslHex:
    """How VASL itself reads one hex from the board's LOSData (the reading of the oracle's hexes.tsv)."""

    name: str
    column: int
    row: int  # as printed
    centre: tuple[int, int]  # the centre pixel
    base_level: int  # ground elevation at the centre pixel
    terrain: str  # VASL's centre-Location terrain
    hexsides: tuple[str | None, ...]  # hexside terrain (wall, hedge, cliff, ...) on N, NE, SE, S, SW, NW


class BoardArchive:
    """One VASL board archive, read: its LOS rasters, its metadata and the names of its images.

    Use :func:`read_board` to make one.
    """

    def __init__(
        self,
        path: Path,
        metadata: BoardMetadata,
        geometry: BoardGeometry,
        elevation: np.ndarray,
        terrain: np.ndarray,
        stairways: frozenset[str],
        members: tuple[str, ...],
    ) -> None:
        self.path = path
        self.metadata = metadata
        self.geometry = geometry
        self.elevation = elevation  #: int8, shaped (grid_width, grid_height), indexed [x, y]
        self.terrain = terrain  #: uint8 terrain codes, shaped (grid_width, grid_height), indexed [x, y]
        self.stairways = stairways  #: hexes whose LOSData stairway flag is set
        self.members = members  #: every file name in the archive

    def __repr__(self) -> str:
        return f"<BoardArchive {self.archive_name} ({self.width} x {self.height} hexes, {self.path})>"

    @property
    def archive_name(self) -> str:
        """The archive's file name, e.g. ``bd01`` (the oracle files are named after it)."""
        return self.path.name

    @property
    def name(self) -> str:
        """The board's name from its metadata (``01``, ``BFPL``), else the archive name."""
        return self.metadata.name or self.archive_name

    @property
    def width(self) -> int:
        return self.geometry.width

    @property
    def height(self) -> int:
        return self.geometry.height

    @property
    def grid_width(self) -> int:
        return self.geometry.grid_width

    @property
    def grid_height(self) -> int:
        return self.geometry.grid_height

    @property
    def image_name(self) -> str:
        """The board image's name in the archive (e.g. ``bd01.gif``), for rendering."""
        return self.metadata.image_name

    def read(self, member: str) -> bytes:
        """The bytes of one file of the archive."""
        try:
            with zipfile.ZipFile(self.path) as z:
                return z.read(member)
        except KeyError:
            raise MapError(f"{self.path}: no {member!r} in the archive", source=str(self.path)) from None
        except (OSError, zipfile.BadZipFile) as exc:
            raise MapError(f"{self.path}: cannot read {member!r}: {exc}", source=str(self.path)) from None

    def image_bytes(self) -> bytes:
        """The board image file (a GIF on classic boards), as stored."""
        return self.read(self.image_name)

    # the depiction raster ---------------------------------------------------------------------------

    def _check_pixel(self, x: int, y: int) -> None:
        if not (0 <= x < self.grid_width and 0 <= y < self.grid_height):
            raise UnknownLocation(
                f"pixel ({x}, {y}) is off board {self.archive_name} ({self.grid_width} x {self.grid_height})"
            )

    def terrain_at(self, x: int, y: int) -> int:
        """The VASL terrain code at pixel (x, y) (look its name up in a :class:`TerrainTable`)."""
        self._check_pixel(x, y)
        return int(self.terrain[x, y])

    def elevation_at(self, x: int, y: int) -> int:
        """The ground level at pixel (x, y)."""
        self._check_pixel(x, y)
        return int(self.elevation[x, y])

    def hex_centre(self, name: str) -> tuple[int, int]:
        """The centre pixel of a hex, e.g. ``hex_centre("A1") == (0, 32)``."""
        return self.geometry.centre(*self.geometry.parse(name))

    def hex_at(self, x: float, y: float) -> str:
        """The name of the hex holding pixel (x, y)."""
        return _hex_name(self.geometry.hex_at(x, y))

    # VASL's own reading ---------------------------------------------------------------------------

    def _vasl_edge_points(self, col: int, row: int) -> list[tuple[int, int]]:
        """VASL's hexside Location points: each hexside's midpoint moved one pixel toward the centre."""
        x, y = self.geometry.centre_exact(col, row)
        v = _HALF_HEIGHT
        h = math.cos(math.radians(30.0)) * v
        raw = [
            (int(x), int(-v + y + 1.0)),
            (int(h + x - 1), int(-v / 2.0 + y + 1.0)),
            (int(h + x - 1), int(v / 2.0 + y - 1.0)),
            (int(x), int(v + y - 1.0)),
            (int(-h + x + 1), int(v / 2.0 + y - 1.0)),
            (int(-h + x + 1), int(-v / 2.0 + y + 1.0)),
        ]
        gw, gh = self.grid_width, self.grid_height
        return [(min(max(px, 0), gw - 1), min(max(py, 0), gh - 1)) for px, py in raw]

    def _vasl_side_on_map(self, col: int, row: int, side: int) -> bool:
        if col == 0 and side in (4, 5):
            return False
        if col == self.width - 1 and side in (1, 2):
            return False
        if col % 2 == 1 and row == 0 and side in (0, 1, 5):
            return False
        return not (col % 2 == 1 and row == self.height and side in (2, 3, 4))

    def vasl_reading(self, table: TerrainTable) -> dict[str, VaslHex]:
        """Each hex as VASL's ``Hex.resetTerrain`` reads it (VASL 6), keyed by hex name.

        Base level: the elevation at the centre pixel. Terrain: the terrain at the centre pixel; if that
        is not a building but a hexside point is, that building; then, if an inherent-terrain pixel in
        the hex's bounding box is nearer the centre than every hexside point, that inherent terrain.
        Hexside terrain: the hexside terrain at this hex's or the neighbour's hexside point.
        """
        geo = self.geometry
        codes = self.terrain
        out: dict[str, VaslHex] = {}
        inherent = np.array([bool(table.types.get(c) and table.types[c].inherent) for c in range(256)])
        is_building = np.array([bool(table.types.get(c) and table.types[c].is_building) for c in range(256)])
        is_hexside = np.array([bool(table.types.get(c) and table.types[c].is_hexside) for c in range(256)])
        inherent_raster = inherent[codes]
        edge_cache = {h: self._vasl_edge_points(*h) for h in geo.hexes}
        for col, row in geo.hexes:
            cx, cy = geo.centre(col, row)
            edges = edge_cache[(col, row)]
            code = int(codes[cx, cy])
            if not is_building[code]:
                for px, py in edges:
                    if is_building[codes[px, py]]:
                        code = int(codes[px, py])
                        break
            # inherent terrain: the first pixel (x outer, y inner) of the hex's bounding box that is
            # inherent terrain and nearer the centre than every on-map hexside point
            ex, ey = geo.centre_exact(col, row)
            x0, x1 = max(round(ex - _SIDE), 0), min(round(ex + _SIDE), self.grid_width)
            y0, y1 = max(round(ey - _HALF_HEIGHT), 0), min(round(ey + _HALF_HEIGHT), self.grid_height)
            box = inherent_raster[x0:x1, y0:y1]
            if box.any():
                xs, ys = np.nonzero(box)
                xs, ys = xs + x0, ys + y0
                d_centre = np.hypot(xs - cx, ys - cy)
                nearest_is_centre = np.ones(xs.shape, dtype=bool)
                for side, (px, py) in enumerate(edges):
                    if self._vasl_side_on_map(col, row, side):
                        nearest_is_centre &= ~(np.hypot(xs - px, ys - py) < d_centre)
                hits = np.nonzero(nearest_is_centre)[0]
                if hits.size:
                    code = int(codes[xs[hits[0]], ys[hits[0]]])
            sides: list[str | None] = []
            for side in range(6):
                if not self._vasl_side_on_map(col, row, side):
                    sides.append(None)
                    continue
                px, py = edges[side]
                side_code = int(codes[px, py])
                nb = geo.neighbour(col, row, side)
                if not is_hexside[side_code] and nb is not None:
                    qx, qy = edge_cache[nb][(side + 3) % 6]
                    if is_hexside[codes[qx, qy]]:
                        side_code = int(codes[qx, qy])
                sides.append(table.name(side_code) if is_hexside[side_code] else None)
            name = _hex_name((col, row))
            out[name] = VaslHex(
                name=name,
                column=col,
                row=row,
                centre=(cx, cy),
                base_level=int(self.elevation[cx, cy]),
                terrain=table.name(code),
                hexsides=tuple(sides),
            )
        return out

    # SSR overlays -----------------------------------------------------------------------------------

    def overlay_pixels(self, rule: OverlayRule) -> tuple[np.ndarray, np.ndarray]:
        """Board pixel coordinates (xs, ys) of the opaque pixels of an SSR overlay image (GIF only)."""
        indices, _palette, transparent = _decode_gif(self.read(rule.image), f"{self.path}:{rule.image}")
        opaque = indices != transparent if transparent is not None else np.ones(indices.shape, dtype=bool)
        xs, ys = np.nonzero(opaque)
        return xs + rule.x, ys + rule.y


def _turn(h: Hex, width: int, height: int) -> Hex:
    # 180° about the board's centre, as asl_terrain.model.BoardPlacement turns a flipped board's hexes
    c = width - 1 - h[0]
    return c, (2 * height + 2 - 2 * h[1] - h[0] % 2 - c % 2) // 2


class TurnedBoard(BoardArchive):
    """A board rotated 180° in its place (VASL's ``r05``): its rasters and images turned, the hex names of
    its metadata (building types, slopes, stairways) moved to where those hexes now lie, and slope
    hexsides turned with them (side k faces k + 3), so the hash marks stay on their side. Its hexes, on
    its own pixel grid, are where the turned hexes lie; the printed names are
    :class:`asl_terrain.model.BoardPlacement`'s to give (``flipped = true``)."""

    def __init__(self, board: BoardArchive) -> None:
        geo = board.geometry
        w, h = geo.width, geo.height

        def moved(name: str) -> str:
            return _hex_name(_turn(_parse_hex(name), w, h))

        md = board.metadata
        metadata = BoardMetadata(
            name=md.name, version=md.version, version_date=md.version_date, author=md.author,
            image_name=md.image_name, has_hills=md.has_hills, width=md.width, height=md.height,
            building_types={moved(k): v for k, v in md.building_types.items()},
            slopes={moved(k): tuple((x + 3) % 6 for x in v) for k, v in md.slopes.items()},
            overlays=md.overlays, underlays=md.underlays, colors=md.colors, attributes=md.attributes)
        elevation = np.ascontiguousarray(board.elevation[::-1, ::-1])
        terrain = np.ascontiguousarray(board.terrain[::-1, ::-1])
        elevation.setflags(write=False)
        terrain.setflags(write=False)
        super().__init__(board.path, metadata, geo, elevation, terrain,
                         frozenset(moved(n) for n in board.stairways), board.members)
        self.original = board
        self.overlay_placements = getattr(board, "overlay_placements", ())  # laid before the board is turned

    def __repr__(self) -> str:
        return f"<TurnedBoard {self.archive_name} (rotated 180°)>"

    def overlay_pixels(self, rule: OverlayRule) -> tuple[np.ndarray, np.ndarray]:
        xs, ys = self.original.overlay_pixels(rule)
        return self.grid_width - 1 - xs, self.grid_height - 1 - ys


def _resolve_board_path(path: str | Path) -> Path:
    p = Path(path)
    if p.exists():
        return p
    if isinstance(path, str) and os.sep not in path and "/" not in path:
        return find_board(path)  # an archive name: $ASL_TERRAIN_VASL, VASL's boards folder, the data directory
    raise MapError(f"{path}: no such VASL board archive", source=str(path))


def read_board(path: str | Path) -> BoardArchive:
    """Read a VASL board archive: its ``LOSData`` rasters and its ``BoardMetadata.xml``.

    :param path: the archive (a zip file, usually without extension, e.g. ``boards/bd01``), or just a
        board's archive name (``"bd01"``) to look up in :func:`vasl_data_dir`.
    :raises MapError: the archive cannot be read or its LOS data is malformed.
    """
    file = _resolve_board_path(path)
    source = str(file)
    try:
        with zipfile.ZipFile(file) as z:
            members = tuple(z.namelist())
            if "LOSData" not in members:
                # an older board (the KGP maps): its terrain is read from its artwork colours
                from asl_terrain.artwork_colors import read_colour_board

                return read_colour_board(file)
            los_gz = z.read("LOSData")
            meta_xml = z.read("BoardMetadata.xml") if "BoardMetadata.xml" in members else None
    except (OSError, zipfile.BadZipFile) as exc:
        raise MapError(f"{source}: not a readable VASL board archive: {exc}", source=source) from None
    try:
        raw = gzip.decompress(los_gz)
    except (OSError, EOFError) as exc:
        raise MapError(f"{source}: LOSData is not gzip data: {exc}", source=source) from None
    payload = _unwrap_java_block_data(raw, source)
    if len(payload) < 16:
        raise MapError(f"{source}: LOSData payload is too short ({len(payload)} bytes)", source=source)
    width, height, gw, gh = struct.unpack_from(">4i", payload, 0)
    if not (0 < width < 1000 and 0 < height < 1000 and 0 < gw < 100_000 and 0 < gh < 100_000):
        raise MapError(f"{source}: LOSData header is implausible: {width}x{height} hexes, {gw}x{gh} pixels")
    n_hexes = sum(height + col % 2 for col in range(width))
    expected = 16 + 2 * gw * gh + n_hexes
    if len(payload) != expected:
        raise MapError(
            f"{source}: LOSData payload is {len(payload)} bytes, expected {expected} "
            f"(16 + 2·{gw}·{gh} + {n_hexes} hexes)",
            source=source,
        )
    if gw != int((width - 1) * HEX_WIDTH) or gh != int(height * HEX_HEIGHT):
        raise MapError(
            f"{source}: a {width}x{height}-hex board of {gw}x{gh} pixels does not use VASL's standard "
            f"hex size ({HEX_WIDTH} x {HEX_HEIGHT}); only that geometry is supported",
            source=source,
        )
    pixels = np.frombuffer(payload, dtype=np.uint8, count=2 * gw * gh, offset=16).reshape(gw, gh, 2)
    elevation = np.ascontiguousarray(pixels[:, :, 0]).view(np.int8)
    terrain = np.ascontiguousarray(pixels[:, :, 1])
    elevation.setflags(write=False)
    terrain.setflags(write=False)
    stair_bytes = payload[16 + 2 * gw * gh :]
    stairways: set[str] = set()
    i = 0
    for col in range(width):
        for row_index in range(height + col % 2):
            if stair_bytes[i]:
                stairways.add(_hex_name((col, row_index + 1 if col % 2 == 0 else row_index)))
            i += 1
    if meta_xml is not None:
        metadata = _parse_board_metadata(meta_xml, f"{source}:BoardMetadata.xml")
    else:
        metadata = BoardMetadata("", "", "", "", "", False, None, None, {}, {}, (), (), {}, {})
    geometry = BoardGeometry(width=width, height=height, grid_width=gw, grid_height=gh)
    return BoardArchive(file, metadata, geometry, elevation, terrain, frozenset(stairways), members)


# --------------------------------------------------------------------------------------------------
# a minimal GIF decoder (first frame), for the small SSR overlay images


def _lzw_decode(data: bytes, min_size: int, limit: int, source: str) -> bytes:
    clear, end = 1 << min_size, (1 << min_size) + 1
    size = min_size + 1
    table: list[bytes] = [bytes([i]) for i in range(clear)] + [b"", b""]
    out = bytearray()
    prev: bytes | None = None
    buf = nbits = pos = 0
    n = len(data)
    while len(out) < limit:
        while nbits < size:
            if pos >= n:
                return bytes(out)
            buf |= data[pos] << nbits
            nbits += 8
            pos += 1
        code = buf & ((1 << size) - 1)
        buf >>= size
        nbits -= size
        if code == clear:
            del table[clear + 2 :]
            size, prev = min_size + 1, None
            continue
        if code == end:
            break
        if prev is None:
            if code >= len(table):
                raise MapError(f"{source}: corrupt GIF data (code {code} before any table entry)")
            entry = table[code]
        elif code < len(table):
            entry = table[code]
            if len(table) < 4096:
                table.append(prev + entry[:1])
        elif code == len(table):
            entry = prev + prev[:1]
            if len(table) < 4096:
                table.append(entry)
        else:
            raise MapError(f"{source}: corrupt GIF data (code {code} beyond the table)")
        out += entry
        prev = entry
        if len(table) == (1 << size) and size < 12:
            size += 1
    return bytes(out[:limit])


def _decode_gif(data: bytes, source: str) -> tuple[np.ndarray, np.ndarray, int | None]:
    """First frame of a GIF on its logical screen: (palette indices shaped (w, h) x-major, palette, transparent)."""
    if data[:6] not in (b"GIF87a", b"GIF89a"):
        raise MapError(f"{source}: not a GIF image")
    sw, sh, packed = struct.unpack_from("<HHB", data, 6)
    pos = 13
    palette = np.zeros((0, 3), dtype=np.uint8)
    if packed & 0x80:
        count = 2 << (packed & 7)
        palette = np.frombuffer(data, dtype=np.uint8, count=3 * count, offset=pos).reshape(count, 3)
        pos += 3 * count
    transparent: int | None = None
    while pos < len(data):
        block = data[pos]
        pos += 1
        if block == 0x21:  # extension
            label = data[pos]
            pos += 1
            if label == 0xF9 and data[pos] >= 4 and data[pos + 1] & 1:
                transparent = data[pos + 4]
            while data[pos]:
                pos += data[pos] + 1
            pos += 1
        elif block == 0x2C:  # image descriptor
            left, top, w, h, flags = struct.unpack_from("<HHHHB", data, pos)
            pos += 9
            if flags & 0x80:
                count = 2 << (flags & 7)
                palette = np.frombuffer(data, dtype=np.uint8, count=3 * count, offset=pos).reshape(count, 3)
                pos += 3 * count
            min_size = data[pos]
            pos += 1
            chunks = []
            while data[pos]:
                chunks.append(data[pos + 1 : pos + 1 + data[pos]])
                pos += data[pos] + 1
            pixels = _lzw_decode(b"".join(chunks), min_size, w * h, source)
            frame = np.zeros(w * h, dtype=np.uint8)
            frame[: len(pixels)] = np.frombuffer(pixels, dtype=np.uint8)
            frame = frame.reshape(h, w)
            if flags & 0x40:  # interlaced: rows were stored in four passes
                order = [*range(0, h, 8), *range(4, h, 8), *range(2, h, 4), *range(1, h, 2)]
                unshuffled = np.empty_like(frame)
                unshuffled[order] = frame
                frame = unshuffled
            fill = transparent if transparent is not None else 0
            canvas = np.full((max(sh, top + h), max(sw, left + w)), fill, dtype=np.uint8)
            canvas[top : top + h, left : left + w] = frame
            return canvas.T.copy(), palette, transparent
        elif block == 0x3B:
            break
        else:
            raise MapError(f"{source}: malformed GIF (block 0x{block:02x} at byte {pos - 1})")
    raise MapError(f"{source}: GIF without an image")


# --------------------------------------------------------------------------------------------------
# oracle files


class OracleLine(NamedTuple):
    """One line of ``BOARD.los.gz``: VASL's LOS verdict between two hex centres at ground level."""

    from_hex: str
    to_hex: str
    blocked: bool | None  # None where VASL crashed (ERROR): no answer
    hindrance: int  # VASL's summed hindrance; 0 on ERROR lines
    range: int  # ASL range; computed from the hex names on ERROR lines
    reason: str  # VASL's text, underscores turned back into spaces; the error text on ERROR lines


class OracleHex(NamedTuple):
    """One line of ``BOARD.hexes.tsv``: how VASL reads a hex."""

    name: str
    column: int
    row_index: int  # VASL's row index within the column (A1 is 0, B0 is 0)
    centre: tuple[int, int]
    base_level: int
    terrain: str
    hexsides: tuple[str | None, ...]  # N, NE, SE, S, SW, NW; None for none


def _oracle_file(board: str | Path | BoardArchive, suffix: str, oracle_dir: str | Path | None) -> Path:
    if isinstance(board, BoardArchive):
        stem = board.archive_name
    else:
        p = Path(board)
        if p.name.endswith(suffix) and p.exists():
            return p
        stem = p.name
    directory = Path(oracle_dir) if oracle_dir is not None else _require_data_dir("the oracle") / "oracle"
    file = directory / f"{stem}{suffix}"
    if not file.exists():
        raise MapError(f"{file}: no such oracle file", source=str(file))
    return file


_GEO = BoardGeometry(33, 10, 1800, 645)


def read_oracle(board: str | Path | BoardArchive, oracle_dir: str | Path | None = None) -> Iterator[OracleLine]:
    """Iterate over ``BOARD.los.gz``: one :class:`OracleLine` per ordered pair of hexes.

    :param board: a board archive name (``"bd01"``), a :class:`BoardArchive`, or the ``.los.gz`` file.
    :param oracle_dir: where the oracle files are; by default ``oracle/`` in :func:`vasl_data_dir`.
    """
    file = _oracle_file(board, ".los.gz", oracle_dir)
    with gzip.open(file, "rt", encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            parts = line.split(" ", 3)
            if len(parts) < 3:
                raise MapError(f"{file}:{number}: expected FROM TO BLOCKED HINDRANCE RANGE REASON, got {line!r}")
            src, dst, verdict = parts[0], parts[1], parts[2]
            if verdict == "ERROR":
                a, b = _parse_hex(src), _parse_hex(dst)
                yield OracleLine(src, dst, None, 0, _GEO.hex_distance(a, b), parts[3] if len(parts) > 3 else "")
                continue
            rest = line.split(" ", 5)
            if len(rest) < 5 or verdict not in ("true", "false"):
                raise MapError(f"{file}:{number}: expected FROM TO BLOCKED HINDRANCE RANGE REASON, got {line!r}")
            try:
                hindrance, rng = int(rest[3]), int(rest[4])
            except ValueError:
                raise MapError(f"{file}:{number}: HINDRANCE and RANGE must be integers: {line!r}") from None
            reason = rest[5].replace("_", " ").strip() if len(rest) > 5 else ""
            yield OracleLine(src, dst, verdict == "true", hindrance, rng, reason)


def read_oracle_hexes(board: str | Path | BoardArchive, oracle_dir: str | Path | None = None) -> list[OracleHex]:
    """Read ``BOARD.hexes.tsv``: how VASL reads each hex (base level, centre terrain, six hexsides)."""
    file = _oracle_file(board, ".hexes.tsv", oracle_dir)
    out: list[OracleHex] = []
    with open(file, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.rstrip("\n").split("\t")
            if fields == [""]:
                continue
            if len(fields) != 12:
                raise MapError(f"{file}:{number}: expected 12 tab-separated fields, got {len(fields)}")
            try:
                x, y = (int(v) for v in fields[3].split(","))
                out.append(
                    OracleHex(
                        name=fields[0],
                        column=int(fields[1]),
                        row_index=int(fields[2]),
                        centre=(x, y),
                        base_level=int(fields[4]),
                        terrain=fields[5],
                        hexsides=tuple(None if v == "-" else v for v in fields[6:12]),
                    )
                )
            except ValueError:
                raise MapError(f"{file}:{number}: malformed line {line.rstrip()!r}") from None
    return out


# --------------------------------------------------------------------------------------------------
# from a board to a map (format asl-terrain/1)

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
_BUILDING_NAME = re.compile(r"(Stone|Wooden) Building(?:, (\d) Level)?")
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

    def map_keys(self) -> dict[str, Any]:
        """The hex's keys for a ``[[hex]]`` block, defaults left out."""
        keys: dict[str, Any] = {}
        if self.offboard:
            keys["offboard"] = True
        if self.bridge:
            keys["bridge"] = self.bridge
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
            elif t.name == "Open Ground":
                klass = "open"
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


def derive_board(
    board: BoardArchive, table: TerrainTable | None = None, *, gully_as_dry_stream: bool = True
) -> BoardTerrain:
    """Read a board's hexes and hexsides into the map format's terms (see ``docs/vasl.md``).

    :param gully_as_dry_stream: write gully hexes as ``stream = "dry"`` (B20.41: a Dry stream is
        treated as a gully for all purposes); when False they are listed as unsupported instead and
        written as open ground at VASL's base level (the gully's bottom).
    """
    table = table if table is not None else load_terrain_table()
    geo = board.geometry
    codes = board.terrain
    elev = board.elevation
    classes = _Classes(table)
    pixel_class = classes.of_code[codes]
    unsupported: dict[str, list[str]] = {}

    def note(feature: str, name: str) -> None:
        names = unsupported.setdefault(feature, [])
        if name not in names:
            names.append(name)

    overrides: dict[Hex, str] = {}
    for hex_name, type_name in board.metadata.building_types.items():
        try:
            overrides[geo.parse(hex_name)] = type_name
        except UnknownLocation:
            note("Building type for a hex off the board (BoardMetadata.xml)", hex_name)

    building_labels: np.ndarray | None = None
    if (pixel_class == _BUILDING).any():
        building_labels = _label_components(pixel_class == _BUILDING)

    # --- hexes -------------------------------------------------------------------------------------
    raw: dict[Hex, dict[str, Any]] = {}
    for col, row in geo.hexes:
        cx, cy = geo.centre(col, row)
        xs, ys = _disc_pixels(geo, cx, cy, _DISC_OFFSETS)
        cls = pixel_class[xs, ys]
        depression = pixel_class[cx, cy] == _DEPRESSION or (cls == _DEPRESSION).mean() >= _MAJORITY
        keep = (cls != _ROAD) & (cls != _HEXSIDE) & (cls != _DEPRESSION)
        if keep.sum() < _MAJORITY * len(cls):  # a road or depression covers the centre dot: look wider
            xs, ys = _disc_pixels(geo, cx, cy, _WIDE_OFFSETS)
            cls = pixel_class[xs, ys]
            keep = (cls != _ROAD) & (cls != _HEXSIDE) & (cls != _DEPRESSION)
        counts = np.bincount(cls[keep], minlength=len(classes.names))
        counts[_OPEN] = 0
        best = int(counts.argmax())
        klass = best if counts[best] > 0 and counts[best] >= _MAJORITY * keep.sum() else _OPEN
        code = int(codes[cx, cy])
        if klass != _OPEN:
            sel = keep & (cls == klass)
            code = int(np.bincount(codes[xs[sel], ys[sel]]).argmax())
        if not depression and any(
            c in table.types and table[c].los_category == "BRIDGE" for c in (code, int(codes[cx, cy]))
        ):
            # a bridge over the centre dot: is there a gully or stream under it?
            wx, wy = _disc_pixels(geo, cx, cy, _WIDE_OFFSETS)
            depression = bool((pixel_class[wx, wy] == _DEPRESSION).mean() >= 0.1)
        info: dict[str, Any] = {"class": classes.names[klass], "code": code, "level": int(elev[cx, cy])}
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
        raw[(col, row)] = info

    components: dict[int, list[Hex]] = {}
    for h, info in raw.items():
        if "component" in info:
            components.setdefault(info["component"], []).append(h)

    hexes: dict[Hex, HexTerrain] = {}
    for h, info in raw.items():
        name = _hex_name(h)
        class_name: str = info["class"]
        vasl_name = table.name(info["code"])
        level = info["level"]
        terrain, building, upper, building_id, stairwell, stream = "open", None, None, None, False, None
        bridge: str | None = None
        if class_name == "building":
            type_name = overrides.get(h, vasl_name)
            m = _BUILDING_NAME.fullmatch(type_name)
            if m is None:
                note(f"{type_name} (building type override)", name)
                m = _BUILDING_NAME.fullmatch(vasl_name)
                type_name = vasl_name
            assert m is not None
            vasl_name = type_name
            terrain, building = "building", m.group(1).lower()
            if m.group(2):
                upper = table.by_name(type_name).height or int(m.group(2))
                stairwell = name in board.stairways
            members = components.get(info.get("component", -1), [])
            if len(members) > 1:
                building_id = f"building-{_hex_name(min(members))}"
        elif class_name.startswith("unsupported:"):
            what = class_name.split(":", 1)[1]
            if what in _BRIDGES and "depression" in info:
                bridge = _BRIDGES[what]  # kept if a stream or gully is carried under it (below)
            else:
                note(what, name)
        elif class_name != "open":
            terrain = class_name
            if class_name == "rubble":
                building = "stone" if vasl_name.startswith("Stone") else "wooden"
        if "depression" in info:
            dep_name = table.name(info["depression"])
            if dep_name in _STREAMS:
                stream = _STREAMS[dep_name]
                level = info["floor"] + (0 if stream == "flooded" else 1)
            elif dep_name == "Gully" and gully_as_dry_stream:
                stream = "dry"
                level = info["floor"] + 1
            else:
                note(dep_name, name)
                level = info["floor"]
            if stream and terrain not in ("open", "woods", "pine-woods", "brush", "orchard"):
                note(f"{dep_name} in a {terrain} hex (P4.1: a stream runs only with open ground, woods, brush or "
                     "orchard; the stream is left out)", name)
                stream = None
        if bridge is not None and stream is None:
            note(vasl_name, name)
            bridge = None
        hexes[h] = HexTerrain(
            level=level,
            bridge=bridge,
            terrain=terrain,
            building=building,
            upper_levels=upper,
            building_id=building_id,
            stairwell=stairwell,
            stream=stream,
            vasl_terrain=vasl_name,
        )

    # --- hexsides ----------------------------------------------------------------------------------
    pairs: list[tuple[Hex, int, Hex]] = []
    for col, row in geo.hexes:
        for side in (1, 2, 3):
            nb = geo.neighbour(col, row, side)
            if nb is not None:
                pairs.append(((col, row), side, nb))
    hexsides: dict[HexsideKey, dict[str, Any]] = {}
    if pairs:
        starts = np.array([geo.vertex(c, r, s) for (c, r), s, _ in pairs])
        ends = np.array([geo.vertex(c, r, s + 1) for (c, r), s, _ in pairs])
        centres = np.array([geo.centre_exact(c, r) for (c, r), _, _ in pairs])
        mids = (starts + ends) / 2
        outward = (mids - centres) / np.linalg.norm(mids - centres, axis=1)[:, None]
        across = np.array(_SIDE_OFFSETS, dtype=np.float64)
        # points shaped (hexsides, offsets, positions)
        along_pts = starts[:, None, :] + (ends - starts)[:, None, :] * _SIDE_TS[None, :, None]
        pts = along_pts[:, None, :, :] + across[None, :, None, None] * outward[:, None, None, :]
        sampled, valid = _sample(codes, pts[..., 0], pts[..., 1])
        present = {int(c) for c in np.unique(codes)}
        k = {o: i for i, o in enumerate(_SIDE_OFFSETS)}
        narrow = [k[o] for o in (-2, -1, 0, 1, 2)]
        centre_ts = (_SIDE_TS >= 1 / 3) & (_SIDE_TS <= 2 / 3)

        def put(i: int, key: str, value: Any) -> None:
            a, _, b = pairs[i]
            hexsides.setdefault(_hexside_key(a, b), {})[key] = value

        # roads: the road (and what is drawn over it) crosses the hexside
        overprint = np.isin(sampled, [table.by_name(n).code for n in _ROAD_OVERPRINTS if _has_name(table, n)])
        best_cross = [0] * len(pairs)
        for road_name, road_kind in _ROADS.items():
            if not _has_name(table, road_name) or table.by_name(road_name).code not in present:
                continue
            road = sampled == table.by_name(road_name).code
            crossed, along = _crossing(road | overprint, road, valid)
            strength = (road | overprint)[:, k[0]].sum(axis=1)
            for i in np.nonzero(crossed)[0].tolist():
                if int(strength[i]) > best_cross[i]:
                    best_cross[i] = int(strength[i])
                    put(i, "road", road_kind)
            for j in np.nonzero(along)[0].tolist():
                a, _, b = pairs[j]
                note("Road along a hexside (a Narrow Street only under KGP P5.1)", _hexside_name(_hexside_key(a, b)))

        # hexside terrain: walls, hedges; anything else is unsupported
        for code in sorted(present):
            t = table.types.get(code)
            if t is None or not t.is_hexside:
                continue
            on = (sampled[:, narrow] == code) & valid[:, narrow]
            cover = on.any(axis=1)
            line_valid = valid[:, k[0]]
            frac = cover.sum(axis=1) / np.maximum(line_valid.sum(axis=1), 1)
            central = (cover & centre_ts).sum(axis=1) / np.maximum((line_valid & centre_ts).sum(axis=1), 1)
            for j in np.nonzero((frac >= 0.5) & (central >= 0.5))[0].tolist():
                if t.name in _HEXSIDE_FLAGS:
                    put(j, _HEXSIDE_FLAGS[t.name], True)
                else:
                    a, _, b = pairs[j]
                    note(f"{t.name} (hexside)", _hexside_name(_hexside_key(a, b)))

        # streams: between two stream hexes the format assumes the stream crosses; say where it does not
        dep = classes.of_code[sampled] == _DEPRESSION
        crossed, _along = _crossing(dep, dep, valid)
        for i, (a, _, b) in enumerate(pairs):
            if hexes[a].stream and hexes[b].stream and not crossed[i]:
                put(i, "stream", False)

    # slopes (BoardMetadata.xml)
    slope_sources: dict[HexsideKey, str] = {}
    for key, (down, source) in _slope_hexsides(board, hexes, note).items():
        hexsides.setdefault(key, {})["slope"] = _hex_name(down)
        slope_sources[key] = source

    ordered = {key: hexsides[key] for key in sorted(hexsides) if hexsides[key]}
    for names in unsupported.values():
        names.sort(key=_name_sort_key)
    return BoardTerrain(
        board=board.archive_name,
        geometry=geo,
        hexes=hexes,
        hexsides=ordered,
        unsupported=unsupported,
        slope_sources=slope_sources,
    )


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


# --------------------------------------------------------------------------------------------------
# the artwork as the hexes' depiction (A6.1): what a thread meets, pixel by pixel

# VASL terrain → the map terrain keys of the depiction feature it draws. Terrain without an LOS effect
# of its own (open ground, roads, shellholes, depressions, hexside terrain, bridges, cliffs) is no
# feature: walls and hedges are hexside features of the map, depressions its stream hexes.
_FEATURE_TERRAIN: dict[str, str] = {
    "Woods": "woods",
    "Pine Woods": "pine-woods",
    "Brush": "brush",
    "Grain": "grain",
    "Orchard": "orchard",
    "Orchard, Out of Season": "orchard",
    "Graveyard": "graveyard",
    "Marsh": "marsh",
    "Stone Rubble": "rubble",
    "Wooden Rubble": "rubble",
    "Stone Rubble Ground Level": "rubble",
    "Wooden Rubble Ground Level": "rubble",
}
_ELEV_BIAS = 8  # a depiction code is feature * 32 + elevation + 8 (elevations -8 .. 23)
_CODE_STEP = 32
_GRID_X = HEX_WIDTH / 3  # pixels per unit of grid.py's scaled x (18.75)
_GRID_Y = _HALF_HEIGHT  # pixels per unit of grid.py's scaled y (32.25)


def _feature_keys(t: TerrainType) -> dict[str, Any] | None:
    """The map terrain keys of the depiction feature a VASL terrain draws, or None (no LOS feature)."""
    m = _BUILDING_NAME.fullmatch(t.name)
    if m is not None:
        keys: dict[str, Any] = {"terrain": "building", "building": m.group(1).lower()}
        if m.group(2):
            keys["building_type"] = "multi-level"
            keys["upper_levels"] = t.height or int(m.group(2))
        else:
            keys["building_type"] = "single-story-house"
        return keys
    terrain = _FEATURE_TERRAIN.get(t.name)
    if terrain is None:
        return None
    keys = {"terrain": terrain}
    if terrain == "rubble":
        keys["building"] = "stone" if t.name.startswith("Stone") else "wooden"
    return keys


def _ground_under_bridges(board: BoardArchive, table: TerrainTable) -> np.ndarray:
    """The board's ground elevations (int16) with each bridge pixel lowered to the lowest ground drawn in its
    hex: a bridge's deck is drawn at the level of the road it carries (bd13's elevated road crosses its
    stream on bridges drawn at level 1), but a bridge is no hill a thread can be blocked by (B6: at most a
    Hindrance to Locations beneath it)."""
    ground = board.elevation.astype(np.int16)
    codes = [c for c, t in table.types.items() if t.los_category == "BRIDGE"]
    deck = np.isin(board.terrain, codes)
    if not deck.any():
        return ground
    idx = board.geometry.hex_index_raster().astype(np.int64)
    lowest = np.full(int(idx.max()) + 2, np.iinfo(np.int16).max, dtype=np.int16)
    np.minimum.at(lowest, idx[~deck] + 1, ground[~deck])  # index -1 (no hex) goes to slot 0
    under = lowest[idx[deck] + 1]
    ground[deck] = np.where(under == np.iinfo(np.int16).max, ground[deck], np.minimum(ground[deck], under))
    return ground


class ThreadSample:
    """The depiction codes under one thread, one sample per pixel step (see :meth:`ArtworkRaster.sample`).

    ``between(t0, t1)`` gives the codes met between two parameters of the thread (0 at its start, 1 at
    its end), both ends included.
    """

    __slots__ = ("codes", "n")

    def __init__(self, codes: list[int], n: int) -> None:
        self.codes = codes
        self.n = n

    def between(self, t0: float, t1: float) -> frozenset[int]:
        """The codes met strictly inside [t0, t1]: the samples within one pixel step of either end are
        left out, because the pixel holding a hexside or vertex point may be the neighbouring hex's
        artwork; a stretch shorter than three steps gives its middle sample."""
        n = self.n
        a = math.ceil(t0 * n - 1e-9) + 1
        b = math.floor(t1 * n + 1e-9) - 1
        if b < a:
            a = b = min(max(round((t0 + t1) * n / 2), 0), n)
        return frozenset(self.codes[a : b + 1])


class ArtworkRaster:
    """The terrain artwork of VASL boards placed on a map grid: what a thread meets where it is drawn.

    A6.1 traces LOS over the terrain *as depicted*; VASL does this by walking the thread pixel by
    pixel over the board's LOS raster. This class holds the rasters of one or more boards pasted into
    one frame, each pixel reduced to a *depiction code*: a feature (woods, a building of a given type,
    brush, grain, marsh, orchard, graveyard, rubble, or none) and the ground elevation under it. The LOS
    engine asks it which features a stretch of thread meets; the rules (heights, Hindrances, Blind
    Hexes) stay the engine's.

    :param boards: ``(archive, column offset, row offset)`` per board, as the map places them; offsets
        must be even, so that a board keeps its column parity and whole-pixel position (a board to the
        right of a 33-column board is at column offset 32: its column A is the first board's GG).
    :param table: VASL's terrain table (default: the one in :func:`vasl_data_dir`).

    Coordinates: a point of :mod:`asl_terrain.grid`'s scaled integer frame ``(X, Y)`` (a hex centre
    is ``(3·col, 2·row + col % 2)``) is the pixel ``(18.75·X, 32.25·(Y − 1))``. This maps grid.py's
    regular hexes exactly onto VASL's slightly wider ones, so a thread's parameter ``t`` is the same in
    both frames.
    """

    def __init__(self, boards: Sequence[tuple[BoardArchive, int, int]], table: TerrainTable | None = None) -> None:
        if not boards:
            raise MapError("an artwork depiction needs at least one board")
        table = table if table is not None else load_terrain_table()
        self.table = table
        features: list[dict[str, Any]] = [{}]
        fid_of = np.zeros(256, dtype=np.uint16)
        for code in range(256):
            t = table.types.get(code)
            keys = _feature_keys(t) if t is not None else None
            if keys is None:
                continue
            if keys not in features:
                features.append(keys)
            fid_of[code] = features.index(keys)
        self.features: tuple[dict[str, Any], ...] = tuple(features)
        width = max(int(dc * HEX_WIDTH) + b.grid_width for b, dc, _ in boards)
        height = max(int(dr * HEX_HEIGHT) + b.grid_height for b, _, dr in boards)
        comb = np.full((width, height), _ELEV_BIAS, dtype=np.uint16)
        self.placements: tuple[tuple[str, int, int], ...] = ()
        self.archives: tuple[tuple[BoardArchive, int, int], ...] = tuple(boards)
        placed = []
        for b, dc, dr in boards:
            if dc % 2 or dr % 2 or dc < 0 or dr < 0:
                raise MapError(f"board {b.archive_name} at column offset {dc}, row offset {dr}: offsets must be "
                               "even and not negative")
            x0, y0 = int(dc * HEX_WIDTH), int(dr * HEX_HEIGHT)
            ground = _ground_under_bridges(b, table)
            codes = fid_of[b.terrain] * _CODE_STEP + (ground + _ELEV_BIAS).astype(np.uint16)
            comb[x0 : x0 + b.grid_width, y0 : y0 + b.grid_height] = codes
            placed.append((b.archive_name, dc, dr))
        self.placements = tuple(placed)
        self.width, self.height = width, height
        cols = max(dc + b.width for b, dc, _ in boards)
        rows = max(dr + b.height for b, _, dr in boards)
        self.geometry = BoardGeometry(cols, rows, width, height)
        self._flat: np.ndarray = comb.reshape(-1)
        self._raster = comb
        self._los_points: dict[tuple[float, float], tuple[float, float]] = {}
        self._offsets: dict[tuple[int, int], np.ndarray] = {}
        # a hex's codes are read from the combined raster when first asked for (one LOS reads few hexes)
        self._hex_codes: dict[Hex, frozenset[int]] = {}
        self._on_boards: set[Hex] = {(col + dc, row + dr) for b, dc, dr in boards for col, row in b.geometry.hexes}
        # a board turned 180°: a thread between two of its points is walked on the board as printed, in
        # its own frame, as VASL does (it turns the coordinates, not the board), so that LOS between two
        # of its hexes is the printed board's to the pixel
        self._turned: list[tuple[float, float, float, float, int, int, int, int, ArtworkRaster]] = []
        for b, dc, dr in boards:
            if isinstance(b, TurnedBoard):
                x0, y0 = int(dc * HEX_WIDTH), int(dr * HEX_HEIGHT)
                self._turned.append((x0, y0, x0 + b.grid_width, y0 + b.grid_height, dc, dr, b.width, b.height,
                                     ArtworkRaster([(b.original, 0, 0)], table)))

    # -- codes
    @staticmethod
    def decode(code: int) -> tuple[int, int]:
        """``(feature id, ground elevation)`` of a depiction code."""
        return code // _CODE_STEP, code % _CODE_STEP - _ELEV_BIAS

    def code_at(self, x: int, y: int) -> int:
        """The depiction code of pixel (x, y) of the combined frame (open ground at level 0 off it)."""
        if 0 <= x < self.width and 0 <= y < self.height:
            return int(self._raster[x, y])
        return _ELEV_BIAS

    @staticmethod
    def pixel(point: tuple[float, float]) -> tuple[float, float]:
        """The pixel position of a point of grid.py's scaled frame."""
        return point[0] * _GRID_X, (point[1] - 1) * _GRID_Y

    def los_point(self, point: tuple[float, float]) -> tuple[float, float]:
        """Where a thread starts or ends in the raster: a hex's centre dot is its centre *pixel*, as VASL
        takes it (truncated, and pulled in by one pixel on the right and bottom edges); any other point
        (a Bypass vertex) is exact. A pixel (x, y) covers [x, x + 1) x [y, y + 1)."""
        x, y = self.pixel(point)
        gx, gy = point
        if gx % 3 == 0 and (gy - (gx // 3) % 2) % 2 == 0:
            return float(min(max(int(x), 0), self.width - 1)), float(min(max(int(y), 0), self.height - 1))
        return x, y

    def _codes_in_hex(self, col: int, row: int) -> frozenset[int]:
        """Every code of the pixels touching the hex (its hexagon grown by 1.5 px)."""
        cx, cy = col * HEX_WIDTH, row * HEX_HEIGHT - _HALF_HEIGHT * (1 - col % 2)
        x0, x1 = max(int(cx - _SIDE - 2), 0), min(int(cx + _SIDE + 2) + 1, self.width)
        y0, y1 = max(int(cy - _HALF_HEIGHT - 2), 0), min(int(cy + _HALF_HEIGHT + 2) + 1, self.height)
        if x0 >= x1 or y0 >= y1:
            return frozenset()
        xs = np.arange(x0, x1, dtype=np.float64)[:, None] + 0.5
        ys = np.arange(y0, y1, dtype=np.float64)[None, :] + 0.5
        ax, ay = np.abs(xs - cx), np.abs(ys - cy)
        grow = 1.5
        inside = (ay <= _HALF_HEIGHT + grow) & (ax / (_SIDE + grow) + ay / (HEX_HEIGHT + 2 * grow) <= 1)
        return frozenset(np.unique(self._raster[x0:x1, y0:y1][inside]).tolist())

    def thread_pixels(self, p: tuple[float, float], q: tuple[float, float]) -> list[tuple[int, int]]:
        """The pixels :meth:`sample` reads for the thread from ``p`` to ``q``, in order."""
        x0, y0 = self.los_point(p)
        x1, y1 = self.los_point(q)
        n = max(int(math.ceil(max(abs(x1 - x0), abs(y1 - y0)))), 1)
        out = []
        for k in range(n + 1):
            if float(x1 - x0).is_integer() and float(y1 - y0).is_integer():
                x = int(x0) + (k * int(x1 - x0)) // n
                y = int(y0) + (k * int(y1 - y0)) // n
            else:
                x, y = math.floor(x0 + k * (x1 - x0) / n), math.floor(y0 + k * (y1 - y0) / n)
            out.append((x, y))
        return out

    def hexes_of_pixels(self, pixels: Sequence[tuple[int, int]]) -> list[Hex | None]:
        """The map hex (col, row) holding each pixel (None off the raster), in one vectorised pass."""
        xs = np.array([p[0] for p in pixels], dtype=np.float64)
        ys = np.array([p[1] for p in pixels], dtype=np.float64)
        ok = (xs >= 0) & (xs < self.width) & (ys >= 0) & (ys < self.height)
        idx = self.geometry._hex_indices(np.where(ok, xs, 0), np.where(ok, ys, 0))
        hexes = self.geometry.hexes
        return [hexes[int(i)] if good and i >= 0 else None for i, good in zip(idx.tolist(), ok.tolist())]

    def hex_of_pixel(self, x: int, y: int) -> Hex | None:
        """The map hex (col, row) holding pixel (x, y), or None off the raster."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            return None
        return self.geometry.hexes[int(self.geometry._hex_indices(np.array([x]), np.array([y]))[0])]

    def hex_codes(self, col: int, row: int) -> frozenset[int]:
        """The depiction codes drawn in a hex (empty for a hex on no board)."""
        got = self._hex_codes.get((col, row))
        if got is None:
            got = self._codes_in_hex(col, row) if (col, row) in self._on_boards else frozenset()
            self._hex_codes[(col, row)] = got
        return got

    def sample(self, p: tuple[float, float], q: tuple[float, float], shift: float = 0.0) -> ThreadSample:
        """The codes under the thread from grid point ``p`` to ``q``: one sample per pixel step.

        Like VASL's walk, the thread is followed one pixel at a time along its longer axis; each
        sample takes the pixel it falls in. Between two centre pixels the pixel offsets depend only on
        the difference of the two pixels, so they are computed once per difference and reused.
        ``shift`` moves the whole thread that many pixels to its left (negative: right), for the A6.1
        borderline test.
        """
        if self._turned:
            for x0, y0, x1, y1, dc, dr, w, h, view in self._turned:
                (px, py), (qx, qy) = self.pixel(p), self.pixel(q)
                if x0 <= px <= x1 and y0 <= py <= y1 and x0 <= qx <= x1 and y0 <= qy <= y1:
                    # grid.py's scaled frame turned about the board's centre: X -> 3(w - 1) - X, Y -> 2h + 2 - Y
                    def turn(g: tuple[float, float]) -> tuple[float, float]:
                        return 3 * (w - 1) - (g[0] - 3 * dc), 2 * h + 2 - (g[1] - 2 * dr)
                    return view.sample(turn(p), turn(q), shift)
        a = self._los_points.get(p)
        if a is None:
            a = self._los_points[p] = self.los_point(p)
        b = self._los_points.get(q)
        if b is None:
            b = self._los_points[q] = self.los_point(q)
        x0, y0 = a
        x1, y1 = b
        dx, dy = x1 - x0, y1 - y0
        if shift:
            length = math.hypot(dx, dy) or 1.0
            nx, ny = dy / length * shift, -dx / length * shift
            x0, y0, x1, y1 = x0 + nx, y0 + ny, x1 + nx, y1 + ny
        if not shift and dx.is_integer() and dy.is_integer():
            key = (int(dx), int(dy))
            offsets = self._offsets.get(key)
            if offsets is None:
                n = max(abs(key[0]), abs(key[1]), 1)
                ks = np.arange(n + 1, dtype=np.int64)
                ox = np.floor_divide(ks * key[0], n)
                oy = np.floor_divide(ks * key[1], n)
                offsets = self._offsets[key] = (ox * self.height + oy).astype(np.intp)
            start = int(x0) * self.height + int(y0)
            return ThreadSample(self._flat[start + offsets].tolist(), len(offsets) - 1)
        n = max(int(math.ceil(max(abs(dx), abs(dy)))), 1)
        steps = np.arange(n + 1, dtype=np.float64)
        xs = np.floor(x0 + steps * (dx / n)).astype(np.intp)
        ys = np.floor(y0 + steps * (dy / n)).astype(np.intp)
        ok = (xs >= 0) & (xs < self.width) & (ys >= 0) & (ys < self.height)
        codes = np.full(xs.shape, _ELEV_BIAS, dtype=np.uint16)
        codes[ok] = self._flat[xs[ok] * self.height + ys[ok]]
        return ThreadSample(cast("list[int]", codes.tolist()), n)


# --------------------------------------------------------------------------------------------------
# layouts of several boards, and the import of one or more boards into a map


class _ComposedBoard(BoardArchive):
    """Several board archives pasted into one frame, read as if they were one board.

    The rasters are pasted at each board's pixel offset, hex names in the metadata (building types,
    slopes, stairways) are translated to the composed grid, and the SSR overlays of board *i* are read
    from it under the name ``"<i>:<image>"``. Where two boards meet, their half hexes become one hex
    whose pixels come from both halves (A2.2).
    """

    def __init__(self, boards: Sequence[tuple[BoardArchive, int, int]]) -> None:
        width = max(dc + b.width for b, dc, _ in boards)
        height = max(dr + b.height for b, _, dr in boards)
        geo = BoardGeometry(width, height, int((width - 1) * HEX_WIDTH), int(height * HEX_HEIGHT))
        elevation = np.zeros((geo.grid_width, geo.grid_height), dtype=np.int8)
        terrain = np.zeros((geo.grid_width, geo.grid_height), dtype=np.uint8)
        building_types: dict[str, str] = {}
        slopes: dict[str, tuple[int, ...]] = {}
        overlays: list[OverlayRule] = []
        stairways: set[str] = set()
        members: list[str] = []
        covered: set[Hex] = set()
        for i, (b, dc, dr) in enumerate(boards):
            if dc % 2 or dr % 2 or dc < 0 or dr < 0:
                raise MapError(f"board {b.archive_name} at column offset {dc}, row offset {dr}: offsets must be "
                               "even and not negative")
            x0, y0 = int(dc * HEX_WIDTH), int(dr * HEX_HEIGHT)
            w, h = min(b.grid_width, geo.grid_width - x0), min(b.grid_height, geo.grid_height - y0)
            elevation[x0 : x0 + w, y0 : y0 + h] = b.elevation[:w, :h]
            terrain[x0 : x0 + w, y0 : y0 + h] = b.terrain[:w, :h]

            def moved(name: str, dc: int = dc, dr: int = dr) -> str:
                c, r = _parse_hex(name)
                return _hex_name((c + dc, r + dr))

            for hex_name, type_name in b.metadata.building_types.items():
                building_types[moved(hex_name)] = type_name
            for hex_name, sides in b.metadata.slopes.items():
                slopes[moved(hex_name)] = sides
            stairways.update(moved(n) for n in b.stairways)
            for rule in b.metadata.overlays:
                overlays.append(OverlayRule(rule.name, f"{i}:{rule.image}", rule.x + x0, rule.y + y0))
            members.extend(f"{i}:{m}" for m in b.members)
            covered.update((c + dc, r + dr) for c, r in b.geometry.hexes)
        elevation.setflags(write=False)
        terrain.setflags(write=False)
        first = boards[0][0]
        metadata = BoardMetadata(
            name="+".join(b.name for b, _, _ in boards),
            version="",
            version_date="",
            author="",
            image_name="",
            has_hills=any(b.metadata.has_hills for b, _, _ in boards),
            width=width,
            height=height,
            building_types=building_types,
            slopes=slopes,
            overlays=tuple(overlays),
            underlays=(),
            colors={},
            attributes={},
        )
        super().__init__(first.path, metadata, geo, elevation, terrain, frozenset(stairways), tuple(members))
        self.boards = tuple(boards)
        self.covered = frozenset(covered)

    @property
    def archive_name(self) -> str:
        return "+".join(b.archive_name for b, _, _ in self.boards)

    def overlay_pixels(self, rule: OverlayRule) -> tuple[np.ndarray, np.ndarray]:
        # board i's own overlay, read (and turned) by that board, then moved to where the board lies
        i, _, image = rule.image.partition(":")
        b, dc, dr = self.boards[int(i)]
        x0, y0 = int(dc * HEX_WIDTH), int(dr * HEX_HEIGHT)
        xs, ys = b.overlay_pixels(OverlayRule(rule.name, image, rule.x - x0, rule.y - y0))
        return xs + x0, ys + y0

    def read(self, member: str) -> bytes:
        i, _, name = member.partition(":")
        if not i.isdigit() or int(i) >= len(self.boards):
            raise MapError(f"{self.archive_name}: no {member!r} in the composed boards")
        return self.boards[int(i)][0].read(name)


def parse_layout(text: str) -> list[list[str]]:
    """``"bd01,bd02;bd03,bd04"`` → rows of board names, top to bottom, each left to right."""
    rows = [[name.strip() for name in row.split(",")] for row in text.split(";")]
    if not rows or any(not name for row in rows for name in row):
        raise MapError(f"layout {text!r}: expected board names separated by ',' (left to right) and ';' (rows, top "
                       'to bottom), e.g. "bd01,bd02;bd03,bd04"')
    return rows


def board_prefix(board: BoardArchive) -> str:
    """A board's hex prefix, from its name: ``"01"`` → ``"1"`` (so ``1Y10``), ``"BFPL"`` → ``"Bfpl"``
    (the map format's prefixes are digits, or a capital and lower-case letters)."""
    name = board.name.strip()
    if name.isdigit():
        return str(int(name))
    letters = "".join(ch for ch in name if ch.isalpha())
    return letters[:1].upper() + letters[1:].lower() if letters else ""


class BoardImport(NamedTuple):
    """The result of :func:`import_boards`: the map dict (with its ``[depiction]``), what could not be
    carried, and the boards as placed (archive, column offset, row offset, prefix)."""

    map: dict[str, Any]
    unsupported: list[str]
    placements: list[tuple[BoardArchive, int, int, str]]
    annotations: list[str] = []  # what was added from a board's artwork reading and annotation file


def import_boards(
    archives: Sequence[BoardArchive | str | Path],
    table: TerrainTable | None = None,
    *,
    layout: str | None = None,
    name: str | None = None,
    archive_refs: Mapping[str, str] | None = None,
    terrain_table_ref: str | None = None,
) -> BoardImport:
    """A map of one board, or of several boards in a layout, with the artwork as its depiction.

    :param archives: the board archives (paths, archive names, or read archives).
    :param layout: ``"bd01,bd02;bd03,bd04"``: rows of boards, top to bottom, left to right, each named
        by its archive name (or file name); default: the archives side by side, in order. Boards in a
        row overlap by a column (the right board's column A is the left board's GG column), rows by a
        row; the half hexes where they meet become whole hexes (A2.2).
    :param archive_refs: how the map file should name each archive (archive name → text written to
        ``[[depiction.board]].archive``); default: the archive name.
    :returns: the map dict: a single board keeps its number as the map's prefix (``1Y10``); a layout's
        hexes are named on the whole map's grid, and each board's own names are accepted through its
        prefix (``[[depiction.board]].prefix``).
    :raises MapError: an archive that cannot be read, a layout naming an archive not given.
    """
    boards = [a if isinstance(a, BoardArchive) else read_board(a) for a in archives]
    if not boards:
        raise MapError("no board archive to import")
    table = table if table is not None else load_terrain_table()
    by_name: dict[str, BoardArchive] = {}
    for b in boards:
        by_name.setdefault(b.archive_name, b)
        by_name.setdefault(b.path.name, b)
    rows = parse_layout(layout) if layout else [[b.archive_name for b in boards]]
    placed: list[tuple[BoardArchive, int, int]] = []
    dr = 0
    for row in rows:
        dc = 0
        row_height = 0
        for board_name in row:
            found = by_name.get(board_name)
            turned = False
            if found is None and board_name.startswith("r") and board_name[1:] in by_name:
                found, turned = by_name[board_name[1:]], True  # "rbd05": board 5 rotated 180° (VASL's r05)
            if found is None:
                raise MapError(f"layout names board {board_name!r}, but the archives given are "
                               f"{', '.join(x.archive_name for x in boards)} (an 'r' before one turns it 180°)")
            b = TurnedBoard(found) if turned else found
            placed.append((b, dc, dr))
            dc += b.width - 1 if (b.width - 1) % 2 == 0 else b.width
            row_height = max(row_height, b.height)
        dr += row_height if row_height % 2 == 0 else row_height + 1
    prefixes: list[str] = []
    for b, _, _ in placed:
        p = board_prefix(b)
        prefixes.append(p if p and p not in prefixes else "")
    if len(placed) == 1:
        board, _, _ = placed[0]
        derived = derive_board(board, table)
        covered: frozenset[Hex] = frozenset(board.geometry.hexes)
    else:
        composed = _ComposedBoard(placed)
        derived = derive_board(composed, table)
        covered = composed.covered
        derived.hexes = {h: t for h, t in derived.hexes.items() if h in covered}
        derived.hexsides = {k: v for k, v in derived.hexsides.items() if k[0] in covered and k[1] in covered}
    title = name if name is not None else (
        f"VASL board {placed[0][0].name}" if len(placed) == 1 else
        "VASL boards " + "; ".join(", ".join(n for n in row) for row in rows))
    # a single board keeps its number as the map's prefix (1Y10); a turned one is named by board instead,
    # since its hexes are no longer where its printed names would put them on the map's grid
    map_prefix = prefixes[0] if len(placed) == 1 and not isinstance(placed[0][0], TurnedBoard) else ""
    out = _emit_map([(derived, 0, 0)], name=title, prefix=map_prefix)
    refs = archive_refs or {}
    depiction: dict[str, Any] = {"kind": "vasl"}
    if terrain_table_ref:
        depiction["terrain_table"] = terrain_table_ref
    depiction["board"] = [
        {"archive": refs.get(b.archive_name, b.archive_name), "prefix": p, "column": dc, "row": dr,
         "columns": b.width, "rows": b.height, **({"flipped": True} if isinstance(b, TurnedBoard) else {}),
         **({"overlays": [str(o) for o in getattr(b, "overlay_placements", ())]}
            if getattr(b, "overlay_placements", None) else {})}
        for (b, dc, dr), p in zip(placed, prefixes)
    ]
    out["depiction"] = depiction
    unsupported = derived.unsupported_lines()
    annotations: list[str] = []
    for b, dc, dr in placed:  # boards read from their artwork colours: Narrow Streets, annotation files
        blocks = getattr(b, "map_blocks", None)
        if blocks is not None:
            more_hexes, more_sides, notes = blocks(dc, dr, table)
            out.setdefault("hex", []).extend(more_hexes)
            out.setdefault("hexside", []).extend(more_sides)
            annotations.extend(f"{b.archive_name}: {n}" for n in notes)
            unsupported = [u for u in unsupported if not u.startswith("Road along a hexside")]
    for (b, _, _), p in zip(placed, prefixes):
        if not p:
            unsupported.append(f"board prefix: {b.archive_name} has no prefix of its own (its name {b.name!r} "
                               "is used by another board or gives none); name its hexes on the map's grid")
    if unsupported:  # the map file says what it leaves out, not only its comment block (issue 11)
        out["not_carried"] = list(unsupported)
    return BoardImport(out, unsupported, [(b, dc, dr, p) for (b, dc, dr), p in zip(placed, prefixes)],
                       annotations)


# --------------------------------------------------------------------------------------------------
# the board artwork as a picture, aligned with asl_terrain.render's drawing of the map


def _png(rgba: np.ndarray) -> bytes:
    """A PNG file of an RGBA image shaped (height, width, 4), uint8."""
    import zlib

    h, w, _ = rgba.shape
    raw = np.zeros((h, 1 + 4 * w), dtype=np.uint8)  # filter byte 0 (None) per row
    raw[:, 1:] = rgba.reshape(h, 4 * w)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6))
            + chunk(b"IEND", b""))


def artwork_png(
    boards: Sequence[tuple[BoardArchive, int, int]],
    columns: tuple[int, int],
    rows: tuple[int, int],
    scale: float = 1.0,
) -> bytes:
    """The boards' images as one PNG covering exactly the extent :func:`asl_terrain.render.map_svg`
    draws for a map of these columns and rows (from the W vertex of the first column to the E vertex
    of the last, from the top of the highest hex to the bottom of the lowest), so that it can be passed
    as ``board_image``. Outside the boards the picture is transparent.

    :param boards: ``(archive, column offset, row offset)`` per board, as placed on the map.
    :param columns: the map's first and last column index; ``rows``: its first and last row.
    :param scale: the picture's size relative to the boards' own pixels (0.5 halves it).
    """
    c0, c1 = columns
    r0, r1 = rows
    parities = {c % 2 for c in range(c0, c1 + 1)}
    gx0, gx1 = 3 * c0 - 2, 3 * c1 + 2
    gy0 = 2 * r0 + min(parities) - 1
    gy1 = 2 * r1 + max(parities) + 1
    px0, py0 = gx0 * _GRID_X, (gy0 - 1) * _GRID_Y
    px1, py1 = gx1 * _GRID_X, (gy1 - 1) * _GRID_Y
    out_w = max(int(round((px1 - px0) * scale)), 1)
    out_h = max(int(round((py1 - py0) * scale)), 1)
    canvas = np.zeros((out_h, out_w, 4), dtype=np.uint8)
    # source pixel of each output pixel (nearest), in the combined boards' frame
    sx = np.floor(px0 + (np.arange(out_w) + 0.5) / scale).astype(np.int64)
    sy = np.floor(py0 + (np.arange(out_h) + 0.5) / scale).astype(np.int64)
    for b, dc, dr in boards:
        indices, palette, transparent = _decode_gif(b.image_bytes(), f"{b.path}:{b.image_name}")
        if isinstance(b, TurnedBoard):  # the image of a board rotated 180° (its raster is turned already)
            indices = indices[: b.grid_width, : b.grid_height][::-1, ::-1]
        x0, y0 = int(dc * HEX_WIDTH), int(dr * HEX_HEIGHT)
        lx, ly = sx - x0, sy - y0
        okx = (lx >= 0) & (lx < indices.shape[0])
        oky = (ly >= 0) & (ly < indices.shape[1])
        if not okx.any() or not oky.any():
            continue
        cols, rws = np.nonzero(okx)[0], np.nonzero(oky)[0]
        idx = indices[np.ix_(lx[cols], ly[rws])].T  # (rows, cols)
        rgb = palette[np.minimum(idx, len(palette) - 1)] if len(palette) else np.zeros(idx.shape + (3,), np.uint8)
        alpha = np.where(idx == transparent, 0, 255).astype(np.uint8) if transparent is not None else \
            np.full(idx.shape, 255, np.uint8)
        block = canvas[rws[0] : rws[-1] + 1, cols[0] : cols[-1] + 1]
        block[..., :3] = np.where(alpha[..., None] > 0, rgb, block[..., :3])
        block[..., 3] = np.maximum(block[..., 3], alpha)
    return _png(canvas)


# --------------------------------------------------------------------------------------------------
# loading a map's artwork depiction ([depiction] of a map file)

def _resolve_archive(ref: str, base: str) -> Path | str:
    p = Path(ref)
    if not p.is_absolute() and base and (Path(base) / p).exists():
        return Path(base) / p
    if p.exists():
        return p
    return ref  # an archive name, looked up in the VASL data directory by read_board


def load_artwork(depiction: Any) -> ArtworkRaster:
    """The :class:`ArtworkRaster` of a map's ``[depiction]`` (a :class:`asl_terrain.model.Depiction`):
    its boards' archives read (paths relative to the map file, or archive names in the VASL data
    directory) and placed. Read anew on each call: :func:`map_artwork` keeps it with its map.

    :raises MapError: an archive or the terrain table cannot be found or read.
    """
    table = None
    if depiction.terrain_table:
        table = load_terrain_table(_resolve_archive(depiction.terrain_table, depiction.base))
    boards = []
    for b in depiction.boards:
        try:
            archive = read_board(_resolve_archive(b.archive, depiction.base))
        except MapError as exc:
            raise MapError(f"the map's artwork depiction needs board archive {b.archive!r}: {exc} "
                           f"(paths are relative to the map file; archive names are looked up in the VASL "
                           f"data directory, ${_ENV_VAR})") from None
        if getattr(b, "overlays", ()):
            from asl_terrain.overlays import lay_overlays  # overlays laid on the board (VASL's ovr archives)

            archive = lay_overlays(archive, b.overlays, depiction.base, table)
        boards.append((TurnedBoard(archive) if getattr(b, "flipped", False) else archive, b.column, b.row))
    return _with_ssr(ArtworkRaster(boards, table), tuple(getattr(depiction, "ssr", ())))


def _with_ssr(raster: ArtworkRaster, switches: tuple[str, ...]) -> ArtworkRaster:
    # SSR switches change what the artwork's features count as (asl_terrain.ssr); the pixels stay shared
    if not switches:
        return raster
    from . import ssr

    out = copy.copy(raster)
    out.features = tuple(ssr.apply_feature(f, switches) for f in raster.features)
    return out


def map_artwork(m: Map) -> ArtworkRaster:
    """The :class:`ArtworkRaster` of map ``m``'s ``[depiction]``, read once and kept with the map
    (:meth:`asl_terrain.model.Map.derived`)."""
    parent = m.ssr_parent
    if parent is not None and m.depiction.ssr:  # the map before its SSR switches holds the pixels
        return m.derived(("vasl.artwork",), lambda: _with_ssr(map_artwork(parent), m.depiction.ssr))
    return m.derived(("vasl.artwork",), lambda: load_artwork(m.depiction))


def vasl_walk(start: tuple[int, int], end: tuple[int, int]) -> list[tuple[int, int]]:
    """The pixels VASL 6's LOS walk visits from one integer pixel to another, in order (for diagnosis:
    the cross-check uses it to see what VASL's thread touched).

    VASL steps column by column from the start's column to the end's; in each column it takes every
    row from where the thread enters the column to where it leaves it, truncated to whole pixels. Its
    rise per column is the height difference divided by the number of columns *plus one*, and the last
    column leaves at the end's row. On steep threads this walk is two pixels wide.
    """
    sx, sy = start
    tx, ty = end
    col_dir = -1 if tx < sx else 1
    row_dir = -1 if ty < sy else 1
    n_cols = abs(tx - sx) + 1
    rise = (ty - sy) / n_cols
    enter = float(sy)
    leave = enter + rise
    x = sx
    out: list[tuple[int, int]] = []
    for col in range(n_cols):
        y = int(enter)
        for _ in range(abs(int(leave) - int(enter)) + 1):
            out.append((x, y))
            y += row_dir
        enter = leave
        x += col_dir
        leave = float(ty) if col + 2 == n_cols else leave + rise
    return out
