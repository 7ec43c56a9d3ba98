"""VASL's terrain table (``SharedBoardMetadata.xml``): every terrain code of the boards' ``LOSData``
rasters with its name, LOS category, height and flags, and the named colours of VASL's board palette."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from asl_terrain import cache
from asl_terrain.errors import MapError

from .data import _require_data_dir

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET



# VASL's building terrain names: material, and the number of levels of a multi-level building
_BUILDING_NAME = re.compile(r"(Stone|Wooden) Building(?:, (\d) Level)?")


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


def terrain_table_file(path: str | Path | None = None) -> Path:
    """The terrain table :func:`load_terrain_table` reads for ``path``. :raises MapError: no data directory."""
    return Path(path) if path is not None else _require_data_dir("the terrain table") / "SharedBoardMetadata.xml"


def load_terrain_table(path: str | Path | None = None) -> TerrainTable:
    """Read VASL's terrain table from ``SharedBoardMetadata.xml``.

    :param path: the file; by default ``SharedBoardMetadata.xml`` in :func:`vasl_data_dir`.
    :raises MapError: the file is missing or not a VASL terrain table.
    """
    file = terrain_table_file(path)
    # a table parsed before (the same bytes, by the same code) is read back from the user's cache: parsing the
    # XML is a tenth of a command on an imported board (start-up, issue 13); its hash is remembered for the file
    try:
        k = cache.file_key(file, "vasl terrain table") if cache.cache_dir() is not None else None
        got = cache.read_object("terrain-tables", k, TerrainTable) if k is not None else None
        if got is not None:
            return replace(got, source=str(file))
        raw = file.read_bytes()
    except OSError as exc:
        raise MapError(f"{file}: cannot read the VASL terrain table: {exc}", source=str(file)) from None
    table = _parse_terrain_table(raw, file)
    if k is not None:
        cache.write_object("terrain-tables", k, table)
    return table


def _parse_terrain_table(raw: bytes, file: Path) -> TerrainTable:
    import xml.etree.ElementTree as ET  # only a table read anew (a cached one is not): start-up, issue 13

    try:
        root = ET.fromstring(raw)
    except ET.ParseError as exc:
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
