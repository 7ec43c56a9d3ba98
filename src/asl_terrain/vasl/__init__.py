"""VASL board archives, VASL's terrain table and the VASL LOS oracle files.

VASL (the Virtual ASL module for VASSAL) ships each board as a zip archive holding the board image, a
``BoardMetadata.xml`` and ``LOSData``: a raster of the board, one ground elevation and one terrain code
per pixel, from which VASL's LOS engine works. This package reads those archives and VASL's shared terrain
table, reads the oracle files VASL's own LOS engine produced on each board, and derives from a board a
map in the structure of ``docs/map-format.md`` (format ``asl-terrain/1``).

Nothing here copies VASL data into the project: everything is read at run time from a VASL data
directory (see :func:`vasl_data_dir`).

Modules, by topic (every public name is importable from ``asl_terrain.vasl`` itself):

* ``data``: where the VASL data and an installed VASL's boards live;
* ``geometry``: VASL's pixels on :mod:`asl_terrain.grid`'s hex grid (:class:`BoardGeometry`);
* ``terrain``: VASL's terrain table (``SharedBoardMetadata.xml``);
* ``archive``: a board archive read (``LOSData``, ``BoardMetadata.xml``), a board turned 180°;
* ``images``: GIFs read and PNGs written (Pillow), the boards' artwork as one picture;
* ``oracle``: VASL's own LOS answers and hex readings;
* ``derive``: a board's hexes and hexsides in the map format's terms, and the map dict;
* ``artwork``: the artwork as the hexes' depiction for LOS (A6.1), a map's ``[depiction]`` loaded;
* ``kept``: arrays kept in the user cache (a map's combined raster, its pixel ids), read back mapped;
* ``layout``: layouts of several boards, and the import of boards into one map.

The cross-check against the oracle runs the LOS engine, so it sits above the engines, in
:mod:`asl_terrain.crosscheck`.

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

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .archive import (
        BoardArchive,
        BoardMetadata,
        OverlayRule,
        TurnedBoard,
        VaslHex,
        read_board,
    )
    from .artwork import ArtworkRaster, ThreadSample, load_artwork, map_artwork, vasl_walk
    from .data import find_board, vasl_board_dirs, vasl_data_dir
    from .derive import FORMAT, BoardTerrain, HexTerrain, MapConversion, board_to_map_dict, derive_board
    from .geometry import (
        HEX_HEIGHT,
        HEX_WIDTH,
        HEXSIDE_NAMES,
        BoardGeometry,
        Hex,
        HexsideKey,
        grid_pixel,
    )
    from .images import artwork_png
    from .layout import BoardImport, board_prefix, import_boards, parse_layout
    from .oracle import OracleHex, OracleLine, read_oracle, read_oracle_hexes
    from .terrain import PaletteColor, TerrainTable, TerrainType, load_terrain_table
    from .archive import _parse_board_metadata as _parse_board_metadata
    from .geometry import _column_index as _column_index, _column_name as _column_name
    from .geometry import _hex_name as _hex_name, _hexside_key as _hexside_key
    from .geometry import _hexside_name as _hexside_name, _parse_hex as _parse_hex
    from .images import _decode_gif as _decode_gif, _png as _png

__all__ = [
    "FORMAT",
    "HEXSIDE_NAMES",
    "HEX_HEIGHT",
    "HEX_WIDTH",
    "ArtworkRaster",
    "BoardArchive",
    "BoardGeometry",
    "BoardImport",
    "BoardMetadata",
    "BoardTerrain",
    "Hex",
    "HexTerrain",
    "HexsideKey",
    "MapConversion",
    "OracleHex",
    "OracleLine",
    "OverlayRule",
    "PaletteColor",
    "TerrainTable",
    "TerrainType",
    "ThreadSample",
    "TurnedBoard",
    "VaslHex",
    "artwork_png",
    "board_prefix",
    "board_to_map_dict",
    "derive_board",
    "find_board",
    "grid_pixel",
    "import_boards",
    "load_artwork",
    "load_terrain_table",
    "map_artwork",
    "parse_layout",
    "read_board",
    "read_oracle",
    "read_oracle_hexes",
    "vasl_board_dirs",
    "vasl_data_dir",
    "vasl_walk",
]

# where each name lives: a submodule is imported when one of its names is first asked for, so that the LOS
# engine's `from asl_terrain.vasl import map_artwork` loads the artwork depiction, not the importer
# (private helpers other modules and the tests use are here too)
_HOMES = {
    **dict.fromkeys(("BoardArchive", "BoardMetadata", "OverlayRule", "TurnedBoard", "VaslHex", "_parse_board_metadata",
                     "read_board"), "archive"),
    **dict.fromkeys(("ArtworkRaster", "ThreadSample", "load_artwork", "map_artwork", "vasl_walk"), "artwork"),
    **dict.fromkeys(("find_board", "vasl_board_dirs", "vasl_data_dir"), "data"),
    **dict.fromkeys(("BoardTerrain", "FORMAT", "HexTerrain", "MapConversion", "board_to_map_dict", "derive_board"), "derive"),
    **dict.fromkeys(("BoardGeometry", "HEXSIDE_NAMES", "HEX_HEIGHT", "HEX_WIDTH", "Hex", "HexsideKey", "_column_index",
                     "_column_name", "_hex_name", "_hexside_key", "_hexside_name", "_parse_hex", "grid_pixel"), "geometry"),
    **dict.fromkeys(("_decode_gif", "_png", "artwork_png"), "images"),
    **dict.fromkeys(("BoardImport", "board_prefix", "import_boards", "parse_layout"), "layout"),
    **dict.fromkeys(("OracleHex", "OracleLine", "read_oracle", "read_oracle_hexes"), "oracle"),
    **dict.fromkeys(("PaletteColor", "TerrainTable", "TerrainType", "load_terrain_table"), "terrain"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
