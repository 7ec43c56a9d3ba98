"""A VASL board archive read: its ``LOSData`` rasters (one ground elevation and one terrain code per
pixel), its ``BoardMetadata.xml``, the names of its images, and VASL's own reading of each hex.

A board rotated 180° in its place (VASL's ``r05``) is a :class:`TurnedBoard`.
"""

from __future__ import annotations

import math
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from asl_terrain import cache
from asl_terrain.errors import BadName, MapError, UnknownLocation

from .data import find_board
from .geometry import HEX_HEIGHT, HEX_WIDTH, _HALF_HEIGHT, _SIDE, BoardGeometry, Hex, _hex_name, _parse_hex
from .images import _decode_gif
from .terrain import PaletteColor, TerrainTable, _flag, _int_or_none, _parse_colors



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
    import xml.etree.ElementTree as ET  # only an archive read anew: a command on a cached board never parses XML

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
        import zipfile

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

    An archive read before (the same bytes, by the same code) is read back from the user's cache
    (:mod:`asl_terrain.cache`): decoding a board's rasters is most of what a command on it costs.

    :param path: the archive (a zip file, usually without extension, e.g. ``boards/bd01``), or just a
        board's archive name (``"bd01"``) to look up in :func:`vasl_data_dir`.
    :raises MapError: the archive cannot be read or its LOS data is malformed.
    """
    file = _resolve_board_path(path)
    try:
        # the archive's hash, remembered for the file as it is (an unchanged archive is not hashed again)
        k: str | None = cache.file_key(file, "vasl board") if cache.cache_dir() is not None else None
    except OSError:
        k = None  # _read_board_file says what is wrong
    if k is not None:
        kept = cache.read_object("boards", k, BoardArchive)
        if kept is not None:
            kept.path = file
            return kept
    board = _read_board_file(file)
    # a board read from its artwork colours (the KGP maps) has its own cache, keyed by its annotations too
    if k is not None and type(board) is BoardArchive:
        cache.write_object("boards", k, board)
    return board


def _read_board_file(file: Path) -> BoardArchive:
    import gzip  # only an archive read anew (a cached board is not): start-up, issue 13
    import zipfile

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
