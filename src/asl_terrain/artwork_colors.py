"""Terrain read from a board's artwork colours: VASL boards with a picture and a colour table but no LOSData.

VASL's older boards (the Kampfgruppe Peiper maps ``bdST``, ``bdLG``, ``bdCH``) and its overlays carry only
an image and a ``colors`` table naming what each colour of the artwork stands for (``Level1 72,85,50``,
``OrchL2 32,92,32``). VASL's own LOSData was made from such pictures the same way: every colour names a
terrain type and, for ground colours, a level (``SharedBoardMetadata.xml``'s ``<colors>`` list). This
module does that reading:

1. each colour of the picture gets a meaning: the board's own table names it (its names looked up in
   VASL's shared colour list, or read from the name's pattern, ``PavedRdL7`` = paved road at level 7),
   VASL's shared list names it, or the map's annotation file (``data/kgp/<map>.toml``, ``[[color]]``)
   names it, with the reason;
2. every pixel is classified by its colour; what has no terrain (hex-grid lines, hex labels, centre
   dots, printed counters, anti-aliased edges) takes the terrain of its neighbours, and what has no level
   (woods, buildings, roads drawn at no level) the level of the ground around it; a depression's floor
   is a level below the ground around it, as VASL's LOSData has it;
3. the result is a :class:`asl_terrain.vasl.BoardArchive` whose rasters are those pixels, so everything
   that reads a VASL board (the import, the artwork depiction LOS follows, the pictures) reads it.

The hex grid of such a board is found from its picture (the printed centre dots) and its ``data`` file
(``x0``/``y0``: the origin offsets VASL's hex grid takes), and checked: :func:`find_grid`.
"""

from __future__ import annotations

import io
import json
import re
import tomllib
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

from asl_terrain import cache
from asl_terrain.errors import MapError
from asl_terrain.vasl import (
    HEX_HEIGHT,
    HEX_WIDTH,
    BoardArchive,
    BoardGeometry,
    BoardMetadata,
    Hex,
    TerrainTable,
    load_terrain_table,
)

__all__ = [
    "ColourBoard",
    "ColourMeaning",
    "ColourReading",
    "GridFit",
    "annotation_file",
    "classify",
    "find_grid",
    "load_annotation",
    "meaning_of_name",
    "parse_colors_table",
    "read_colour_board",
    "wall_hexsides",
]

RGB = tuple[int, int, int]

# --------------------------------------------------------------------------------------------------
# colour names


@dataclass(frozen=True)
class ColourMeaning:
    """What one colour of the artwork stands for."""

    name: str
    rgb: RGB
    terrain: str | None  # a VASL terrain type name; None: no terrain (grid lines, labels): take the neighbours'
    elevation: int | None  # its ground level; None: the level of the ground around it
    role: str | None = None  # a hexside mark the terrain rasters do not hold: "slope", "fence"
    source: str = ""


_COLOURS_LINE = re.compile(r"(\S+)\s+(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})")


def parse_colors_table(text: str) -> dict[str, RGB]:
    """A VASL ``colors`` table (``NAME R,G,B`` a line; ``//`` comments) as name → RGB, in file order."""
    out: dict[str, RGB] = {}
    for line in text.splitlines():
        line = line.split("//", 1)[0].strip()
        m = _COLOURS_LINE.fullmatch(line)
        if m:
            r, g, b = (int(v) for v in m.groups()[1:])
            out[m.group(1)] = (r, g, b)
    return out


# name stems VASL uses, with the terrain each stands for; a level follows as L<n> or L_<n> (negative)
_STEMS: tuple[tuple[str, str | None], ...] = (
    ("Level", "Open Ground"),
    ("L", "Open Ground"),  # L5Crestline, L3Shadow
    ("PavedRd", "Paved Road"),
    ("DirtRd", "Dirt Road"),
    ("MudOrch", "Orchard"),
    ("Orch", "Orchard"),
    ("BrushBlack", "Brush"),
    ("Brush", "Brush"),
    ("Grain", "Grain"),
    ("Shadow1", "Open Ground"),
    ("Shadow2", "Open Ground"),
    ("Shadow3", "Open Ground"),
    ("Highlight", "Open Ground"),
    ("MarshGreen", "Marsh"),
    ("MarshBrown", "Marsh"),
    ("MarshBlue", "Marsh"),
    ("SeparatedMarshGreen", "Marsh"),
    ("SeparatedMarshBrown", "Marsh"),
    ("SeparatedMarshWater", "Marsh"),
)
_LEVELLED = re.compile(r"(?P<stem>[A-Za-z]+?\d?)(?:L|Level)?(?P<neg>_)?(?P<n>\d)(?P<rest>[A-Za-z]*)")
# names without a level (the terrain is what the name says; its level is the ground's around it)
_PLAIN: tuple[tuple[str, str | None, str | None], ...] = (
    (r"(Map)?Note.*|Black|White|.*HexNumbers?|.*HexDots?|BoardNum|ManHoles", None, None),
    (r"PineWoods.*", "Pine Woods", None),
    (r"Woods.*", "Woods", None),
    (r"OrchTrees|OrchPavedRd|OrchDirtRd", "Orchard", None),
    (r"Hedge.*", "Hedge", None),
    (r"Wall.*", "Wall", None),
    (r"StoneBldg.*|BuildingChimney", "Stone Building", None),
    (r"WoodBldg.*", "Wooden Building", None),
    (r"Graveyard.*", "Graveyard", None),
    (r"Gully.*", "Gully", None),
    (r"(Stream|River)(Blue|Brown|Green|White|Water).*", "Shallow Stream", None),
    (r"FordBrown.*", "Shallow Stream", None),
    (r"Crag.*", "Crags", None),
    (r"Cliff.*", "Cliff", None),
    (r"PathBrown.*", "Open Ground", None),
    (r"Slope", None, "slope"),
    (r"BarbedWire", None, "fence"),
)


def meaning_of_name(name: str, rgb: RGB, table: TerrainTable, source: str = "") -> ColourMeaning:
    """What a VASL colour name stands for: VASL's shared colour list first, then the name's pattern.

    ``Level7``, ``L7Crestline``, ``PavedRdL7``, ``OrchL_1`` name a terrain and a level; ``StoneBldg7`` or
    ``WoodsBlack`` a terrain on the ground around it; ``MapNoteBlack`` nothing (a label).
    Winter and mist variants (``...Winter``, ``...Mist``) are SSR recolourings, read like the rest.
    """
    shared = table.colors.get(name)
    if shared is not None and (shared.terrain is not None or shared.elevation is not None):
        return ColourMeaning(name, rgb, shared.terrain, shared.elevation, None, source or "VASL's shared colour list")
    for pattern, terrain, role in _PLAIN:
        if re.fullmatch(pattern, name):
            return ColourMeaning(name, rgb, terrain, None, role, source or f"the name {name!r}")
    m = _LEVELLED.fullmatch(name)
    if m:
        stem = m.group("stem")
        for s, terrain in _STEMS:
            if stem == s or stem == s + "L":
                level = -int(m.group("n")) if m.group("neg") else int(m.group("n"))
                return ColourMeaning(name, rgb, terrain, level, None, source or f"the name {name!r}")
    return ColourMeaning(name, rgb, None, None, None, f"the name {name!r} is not one this reader knows")


# --------------------------------------------------------------------------------------------------
# the map annotation files shipped in the package (data/kgp/<map>.toml)


def annotation_file(board_name: str) -> Path | None:
    """The annotation file of a board (``bdST`` → ``st.toml``): the user's, in the directory named by
    ``$ASL_TERRAIN_ANNOTATIONS``, else the bundled one (``data/kgp/st.toml``), else None. A user's copy
    replaces the bundled file for the import and for the artwork LOS follows alike."""
    import os

    stem = board_name.lower()
    if stem.startswith("bd"):
        stem = stem[2:]
    user = os.environ.get("ASL_TERRAIN_ANNOTATIONS")
    if user and (Path(user) / f"{stem}.toml").is_file():
        return Path(user) / f"{stem}.toml"
    p = files("asl_terrain").joinpath("data", "kgp", f"{stem}.toml")
    return Path(str(p)) if p.is_file() else None


def load_annotation(path: str | Path) -> dict[str, Any]:
    """An annotation file: ``[[color]]`` meanings, ``[[hex]]``/``[[hexside]]`` blocks (map-format keys,
    each with its ``source``), ``[grid]``, ``[building_types]``, ``[[terrain_fix]]`` (pixels of a hex read
    as one terrain that are another: ``at``, ``from``, ``to``), and ``[[not_carried]]``: what the artwork
    shows but the map format cannot say (``at``, ``what``, ``source``), listed in the import's notes."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise MapError(f"{p}: cannot read the map annotation file: {exc}", source=str(p)) from None
    for kind in ("hex", "hexside", "color", "not_carried", "terrain_fix"):
        for i, block in enumerate(data.get(kind, [])):
            if not isinstance(block, dict) or not block.get("source"):
                raise MapError(f"{p}: [[{kind}]] number {i + 1} has no source (say where the entry was read)",
                               source=str(p))
    return data


def _annotation_meanings(data: Mapping[str, Any], table: TerrainTable, source: str) -> dict[RGB, ColourMeaning]:
    out: dict[RGB, ColourMeaning] = {}
    for block in data.get("color", []):
        rgb_list = block.get("rgb")
        if not (isinstance(rgb_list, list) and len(rgb_list) == 3):
            raise MapError(f"{source}: [[color]] {block.get('name', '?')}: rgb should be [R, G, B]")
        rgb = (int(rgb_list[0]), int(rgb_list[1]), int(rgb_list[2]))
        name = str(block.get("name", ""))
        if "terrain" in block or "level" in block or "role" in block:  # stated outright
            terrain = block.get("terrain")
            if terrain is not None and not any(t.name == terrain for t in table):
                raise MapError(f"{source}: [[color]] {name}: {terrain!r} is not a VASL terrain type name")
            level = block.get("level")
            out[rgb] = ColourMeaning(name, rgb, terrain, None if level is None else int(level), block.get("role"),
                                     str(block["source"]))
        else:
            m = meaning_of_name(name, rgb, table, str(block["source"]))
            out[rgb] = m
    return out


# --------------------------------------------------------------------------------------------------
# classifying the pixels


@dataclass
class ColourReading:
    """The artwork read pixel by pixel: rasters indexed ``[x, y]`` like :class:`BoardArchive`'s."""

    terrain: np.ndarray  # uint8 VASL terrain codes
    elevation: np.ndarray  # int8 ground levels
    marks: dict[str, np.ndarray]  # role → boolean raster (slope hash marks, fences)
    meanings: dict[RGB, ColourMeaning]
    unclassified: list[tuple[RGB, int]]  # colours with no meaning, and their pixel counts
    filled_terrain: int  # pixels whose terrain came from their neighbours
    filled_elevation: int  # pixels whose level came from their neighbours

    def report(self) -> list[str]:
        """What could not be classified, as sentences."""
        total = self.terrain.size
        lines = []
        for rgb, n in self.unclassified:
            lines.append(f"colour {rgb[0]},{rgb[1]},{rgb[2]}: {n} pixels ({100 * n / total:.2f}%) not classified; "
                         "they take their neighbours' terrain")
        return lines


def _nearest_in_lines(known: np.ndarray, values: np.ndarray, unknown: np.ndarray, line: int
                      ) -> tuple[np.ndarray, np.ndarray]:
    """For the ``unknown`` positions of flat arrays cut into lines of ``line`` pixels: the value of the
    nearest known pixel of the same line (the one before it on a tie) and its distance (``_NONE`` where the
    line has none). The known pixels either side are found by bisection among the known positions: work
    at the unknown pixels only, no running maximum over the whole picture."""
    n = known.size
    at = np.flatnonzero(known)  # sorted: the known pixels either side of each unknown one by bisection
    if at.size == 0:
        return values[unknown], np.full(unknown.size, _NONE, dtype=np.int64)
    k = np.searchsorted(at, unknown)
    prev = np.where(k > 0, at[np.maximum(k - 1, 0)], -1)
    nxt = np.where(k < at.size, at[np.minimum(k, at.size - 1)], n)
    lines = unknown // line
    d_prev = np.where((prev >= 0) & (prev // line == lines), unknown - prev, _NONE)
    d_next = np.where((nxt < n) & (nxt // line == lines), nxt - unknown, _NONE)
    take_prev = d_prev <= d_next
    src = np.where(take_prev, prev, nxt)
    got = values[np.clip(src, 0, n - 1)]
    return got, np.minimum(d_prev, d_next)


_NONE = 1 << 40  # the distance of a line with no known pixel


def _fill(values: np.ndarray, known: np.ndarray) -> tuple[np.ndarray, int]:
    """Unknown pixels take the value of the nearest known pixel of their row or column (whichever is
    nearer, the column on a tie): the terrain or level that a label, grid line or texture is printed on."""
    unknown = np.flatnonzero(~known)
    if unknown.size == 0:
        return values.copy(), 0
    w, h = values.shape
    # along y (the flat array's lines of h pixels), then along x (the same on the transposed picture)
    vy, dy = _nearest_in_lines(known.reshape(-1), values.reshape(-1), unknown, h)
    known_t = np.ascontiguousarray(known.T).reshape(-1)
    unknown_t = np.flatnonzero(~known_t)  # in the transposed frame's order, so the bisection runs in order
    vx_t, dx_t = _nearest_in_lines(known_t, np.ascontiguousarray(values.T).reshape(-1), unknown_t, w)
    plane_v = np.zeros(known.size, dtype=values.dtype)
    plane_d = np.zeros(known.size, dtype=np.int64)
    plane_v[unknown_t], plane_d[unknown_t] = vx_t, dx_t
    vx = plane_v.reshape(h, w).T.reshape(-1)[unknown]  # back in the picture's frame
    dx = plane_d.reshape(h, w).T.reshape(-1)[unknown]
    out = values.copy()
    flat = out.reshape(-1)
    pick = np.where(dx <= dy, vx, vy)
    some = np.minimum(dx, dy) < _NONE  # a whole row and column with nothing known: leave the unknown value
    flat[unknown[some]] = pick[some]
    return out, int(unknown.size)


_RIVER_RADIUS = 24  # px: a stream's water is at most ~20 px wide; a river's is many hexes
_RIVER_DENSITY = 0.6  # water share of the (2r+1)² square above which the water is a river
_WOODS_RADIUS = 6  # px: the half-width of the square the woods texture's density is taken in
_WOODS_DENSITY = 0.12  # texture share above which the ground under it is woods (inside woods ~0.2-0.4)


def _shifted(c: np.ndarray, by: int, axis: int, size: int) -> np.ndarray:
    """``c`` (``size + 1`` long along ``axis``) taken at ``clip(i + by, 0, size)`` for ``i`` in
    ``range(size)``: a slice and the repeated edge, no gather."""
    def part(a: int, b: int) -> np.ndarray:
        return np.asarray(c[a:b] if axis == 0 else c[:, a:b])

    if by > 0:
        k = min(by, size)
        pieces = [part(k, size + 1), np.repeat(part(size, size + 1), k - 1, axis=axis)]
    else:
        k = min(-by, size)
        pieces = [np.repeat(part(0, 1), k, axis=axis), part(0, size - k)]
    return np.concatenate(pieces, axis=axis)


def _box_mean(mask: np.ndarray, radius: int) -> np.ndarray:
    """The share of true pixels in the (2r+1)² square around each pixel (clipped at the edges)."""
    c = np.zeros((mask.shape[0] + 1, mask.shape[1] + 1), dtype=np.int32)
    np.cumsum(np.cumsum(mask, axis=0, dtype=np.int32), axis=1, out=c[1:, 1:])
    w, h = mask.shape
    # the window's sums from the summed-area table, its rows and columns taken by shifted slices
    rows = _shifted(c, radius + 1, 0, w) - _shifted(c, -radius, 0, w)
    total = _shifted(rows, radius + 1, 1, h) - _shifted(rows, -radius, 1, h)
    x0 = np.clip(np.arange(w) - radius, 0, w)
    x1 = np.clip(np.arange(w) + radius + 1, 0, w)
    y0 = np.clip(np.arange(h) - radius, 0, h)
    y1 = np.clip(np.arange(h) + radius + 1, 0, h)
    area = (x1 - x0)[:, None] * (y1 - y0)[None, :]
    return np.asarray(total / area)


def classify(
    indices: np.ndarray, palette: np.ndarray, meanings: Mapping[RGB, ColourMeaning], table: TerrainTable
) -> ColourReading:
    """Classify every pixel by its colour, then fill what has no terrain or level from its neighbours.

    :param indices: palette index per pixel, shaped (width, height) (x-major).
    :param palette: the palette, shaped (n, 3).
    """
    code_of: dict[str, int] = {}
    for t in sorted(table, key=lambda t: -t.code):
        code_of[t.name] = t.code
    n = max(len(palette), int(indices.max()) + 1)
    t_of = np.full(n, -1, dtype=np.int16)
    e_of = np.full(n, -128, dtype=np.int16)
    role_of: dict[str, list[int]] = {}
    unclassified: list[tuple[RGB, int]] = []
    counts = np.bincount(indices.ravel(), minlength=n)
    depression = np.zeros(n, dtype=bool)
    for i in range(len(palette)):
        rgb = (int(palette[i][0]), int(palette[i][1]), int(palette[i][2]))
        m = meanings.get(rgb)
        if m is None:
            if counts[i]:
                unclassified.append((rgb, int(counts[i])))
            continue
        if m.terrain is not None:
            if m.terrain not in code_of:
                raise MapError(f"colour {m.name} {rgb}: VASL's terrain table has no terrain {m.terrain!r}")
            t_of[i] = code_of[m.terrain]
            tt = table[code_of[m.terrain]]
            depression[i] = tt.is_depression or m.terrain.endswith("Stream")
        if m.elevation is not None:
            e_of[i] = m.elevation
        if m.role:
            role_of.setdefault(m.role, []).append(i)
    unclassified.sort(key=lambda x: -x[1])
    ter = t_of[indices]
    ele = e_of[indices]
    ter, filled_t = _fill(ter, ter >= 0)
    water = role_of.get("water")
    if water and "Water" in code_of:
        # the same blue draws the streams and the rivers: where it is wide, it is a river (a Water Obstacle)
        blue = np.isin(indices, water)
        wide = blue & (_box_mean(blue, _RIVER_RADIUS) >= _RIVER_DENSITY)
        ter[wide] = code_of["Water"]
    texture = role_of.get("woods-texture")
    if texture and "Woods" in code_of:
        # woods drawn as a texture over the ground colour: where the texture is dense, the ground is woods
        density = _box_mean(np.isin(indices, texture), _WOODS_RADIUS)
        ground_t = ter == code_of.get("Open Ground", -1)
        ter[ground_t & (density >= _WOODS_DENSITY)] = code_of["Woods"]
    ground = ele > -128
    ele, filled_e = _fill(ele, ground)
    # a depression's floor is a level below the ground it is cut into (VASL's LOSData has it so)
    floor = depression[indices]
    ele[floor] -= 1
    marks = {role: np.isin(indices, idx) for role, idx in role_of.items()}
    terrain = np.where(ter < 0, code_of.get("Open Ground", 0), ter).astype(np.uint8)
    return ColourReading(terrain, ele.astype(np.int8), marks, dict(meanings), unclassified, filled_t, filled_e)


# --------------------------------------------------------------------------------------------------
# the hex grid


@dataclass(frozen=True)
class GridFit:
    """A board's hex grid as found in its picture: origin (the A1-row-1 centre of VASL's grid, A1 at
    ``(x0, y0)``; B0 half a hex higher), hex width and height in pixels, size in hexes."""

    x0: float
    y0: float
    dx: float
    dy: float
    columns: int
    rows: int  # rows of the columns A, C, E, ... (B, D, F, ... also hold row 0)
    dots: int  # centre dots the fit used
    residual: float  # their RMS distance from the fitted centres, in pixels
    data_offsets: tuple[int | None, int | None] = (None, None)  # x0, y0 of the data file

    def check(self) -> list[str]:
        """Problems with the fit: the hex size or origin off VASL's, few dots, a poor fit."""
        problems = []
        if abs(self.dx - HEX_WIDTH) > 0.1 or abs(self.dy - HEX_HEIGHT) > 0.1:
            problems.append(f"hex size {self.dx:.2f} x {self.dy:.2f} px is not VASL's {HEX_WIDTH} x {HEX_HEIGHT}")
        if self.dots < 20:
            problems.append(f"only {self.dots} centre dots found")
        if self.residual > 1.5:
            problems.append(f"centre dots lie {self.residual:.1f} px (RMS) from the fitted grid")
        x, y = self.data_offsets
        if x is not None and abs(self.x0 - x) > 1.5:
            problems.append(f"the data file's x0 {x} differs from the picture's {self.x0:.1f}")
        if y is not None and abs(self.y0 - y) > 1.5:
            problems.append(f"the data file's y0 {y} differs from the picture's {self.y0:.1f}")
        return problems


def read_data_offsets(text: str) -> tuple[int | None, int | None]:
    """``x0``/``y0`` of a board's ``data`` file (VASL's hex-grid origin attributes), or None."""
    found: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].lower() in ("x0", "y0"):
            try:
                found[parts[0].lower()] = int(float(parts[1]))
            except ValueError:
                continue
    return found.get("x0"), found.get("y0")


def _dot_centres(indices: np.ndarray, palette: np.ndarray) -> np.ndarray:
    """Centres of the printed hex centre dots: a light plus of five pixels with no light pixel on its
    four diagonals or two pixels out along its arms."""
    light_of = palette.astype(np.int32).sum(axis=1) >= 600  # per palette entry, then looked up per pixel
    light = light_of[np.minimum(indices, len(palette) - 1)]
    w, h = light.shape
    c = light[2 : w - 2, 2 : h - 2]

    def at(ox: int, oy: int) -> np.ndarray:
        return np.asarray(light[2 + ox : w - 2 + ox, 2 + oy : h - 2 + oy])

    dot = c & at(1, 0) & at(-1, 0) & at(0, 1) & at(0, -1)
    for ox, oy in ((1, 1), (1, -1), (-1, 1), (-1, -1), (2, 0), (-2, 0), (0, 2), (0, -2)):
        dot &= ~at(ox, oy)
    xs, ys = np.nonzero(dot)
    return np.stack([xs + 2, ys + 2], axis=1).astype(np.float64)


def find_grid(indices: np.ndarray, palette: np.ndarray, data_offsets: tuple[int | None, int | None] = (None, None)
              ) -> GridFit:
    """Find a board's hex grid from its printed centre dots, starting from the data file's origin (or VASL's
    default, A1 at (0, 32)) and VASL's hex size, and fit origin and hex size to the dots by least squares."""
    dots = _dot_centres(indices, palette)
    x0 = float(data_offsets[0]) if data_offsets[0] is not None else 0.0
    y0 = float(data_offsets[1]) if data_offsets[1] is not None else 32.0
    dx, dy = HEX_WIDTH, HEX_HEIGHT
    used = 0
    residual = float("inf")
    for _ in range(3):
        if dots.size == 0:
            break
        col = np.rint((dots[:, 0] - x0) / dx)
        shift = np.where(col % 2 == 0, 0.0, -0.5)  # odd-index columns sit half a hex higher (B0)
        row = np.rint((dots[:, 1] - y0) / dy - shift)
        px = x0 + dx * col
        py = y0 + dy * (row + shift)
        err = np.hypot(dots[:, 0] - px, dots[:, 1] - py)
        ok = err < 4.0
        used = int(ok.sum())
        if used < 3:
            break
        # x = x0 + dx·col;  y = y0 + dy·(row + shift)
        ax = np.stack([np.ones(used), col[ok]], axis=1)
        (x0, dx), *_ = np.linalg.lstsq(ax, dots[ok, 0], rcond=None)
        ay = np.stack([np.ones(used), row[ok] + shift[ok]], axis=1)
        (y0, dy), *_ = np.linalg.lstsq(ay, dots[ok, 1], rcond=None)
        x0, dx, y0, dy = float(x0), float(dx), float(y0), float(dy)
        residual = float(np.sqrt(np.mean(err[ok] ** 2)))
    w, h = indices.shape
    # counted on VASL's hex size from the fitted origin: the columns whose centre lies on the picture, the
    # whole hexes of the columns A, C, E, ... (a half-hex row at their bottom, if any, is left out: the
    # geometry has half hexes only at the ends of the columns B, D, F, ...)
    columns = int(np.floor((w - round(x0)) / HEX_WIDTH + 1e-6)) + 1
    rows = int(np.floor((h - round(y0) + HEX_HEIGHT / 2) / HEX_HEIGHT + 1e-3))
    return GridFit(x0, y0, dx, dy, columns, rows, used, residual, data_offsets)


# --------------------------------------------------------------------------------------------------
# the board


class ColourBoard(BoardArchive):
    """A VASL board archive read from its artwork colours (see the module's description).

    Its rasters are in VASL's standard frame (A1's centre at (0, 32)): a picture whose grid origin lies
    elsewhere (``x0 37`` in bdCH's data file) is shifted by whole pixels into it, and what falls left of
    or above the frame (half of column A, there) is cut off.
    """

    def __init__(self, path: Path, metadata: BoardMetadata, geometry: BoardGeometry, reading: ColourReading,
                 members: tuple[str, ...], grid: GridFit, shift: tuple[int, int],
                 annotation: Mapping[str, Any], annotation_source: str) -> None:
        super().__init__(path, metadata, geometry, reading.elevation, reading.terrain, frozenset(), members)
        self.reading = reading
        self.grid = grid
        self.shift = shift  #: (dx, dy) added to the picture's pixels to put them in the standard frame
        self.annotation = annotation
        self.annotation_source = annotation_source
        self._image_cache: bytes | None = None
        self._streets: dict[tuple[str, str], str] | None = None
        self._slopes: dict[tuple[str, str], str] | None = None
        self._derived: dict[Hex, Any] | None = None  # the derived hexes, for building levels and streams
        self._walls: dict[tuple[str, str], str] | None = None  # read when asked, or by the pixel reading

    def image_bytes(self) -> bytes:
        """The picture as a GIF, shifted into the standard frame (unchanged when the shift is zero)."""
        raw = super().image_bytes()
        if self.shift == (0, 0):
            return raw
        if self._image_cache is None:
            from PIL import Image

            im = Image.open(io.BytesIO(raw))
            out = Image.new(im.mode, (self.grid_width, self.grid_height))
            if im.mode == "P":
                out.putpalette(im.getpalette() or [])
            out.paste(im, self.shift)
            buf = io.BytesIO()
            out.save(buf, format="GIF")
            self._image_cache = buf.getvalue()
        return self._image_cache

    def _hexsides(self, sides: tuple[int, ...]) -> tuple[list[tuple[Hex, Hex]], np.ndarray, np.ndarray, np.ndarray]:
        """Every hexside of the board on the given sides of its hexes: the (hex, neighbour) pairs, their end
        vertices (k x 2 each) and the unit normal pointing out of the first hex."""
        return _hexside_lines(self.geometry, sides)

    @property
    def walls(self) -> dict[tuple[str, str], str]:
        """The wall hexsides (B9) read from the artwork (:func:`wall_hexsides`), each with how it was found."""
        if self._walls is None:
            cfg = self.annotation.get("walls", {})
            # a board whose annotation gives no [walls] has none: neither the cache nor the picture is read
            kept = self._cached_sides("walls") if isinstance(cfg, Mapping) and cfg else {}
            if kept is None:
                idx, palette = self._picture()
                kept = wall_hexsides(idx, palette, self.geometry, cfg, self.annotation_source)
                self._keep_sides("walls", kept)
            self._walls = kept
        return dict(self._walls)
    @staticmethod
    def _sample(raster: np.ndarray, a: np.ndarray, b: np.ndarray, n: np.ndarray, ts: np.ndarray,
                offs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``raster`` at points along each hexside (fractions ``ts`` of it) ``offs`` px off its line along
        ``n``: values (k x offs x ts) and whether each point lies on the raster."""
        w, h = raster.shape
        p = a[:, None, :] + (b - a)[:, None, :] * ts[None, :, None]
        q = p[:, None, :, :] + offs[None, :, None, None] * n[:, None, None, :]
        xs = np.floor(q[..., 0]).astype(np.int64)
        ys = np.floor(q[..., 1]).astype(np.int64)
        ok = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
        return raster[np.clip(xs, 0, w - 1), np.clip(ys, 0, h - 1)], ok

    def _feature_key(self, what: str, table: TerrainTable | None = None) -> str | None:
        """The disk-cache key of a feature found in this board's artwork (its archive's and terrain table's
        bytes, the annotation as read, and the package's code), or None when they cannot be read."""
        try:
            parts: list[bytes | str] = [what, Path(self.path).read_bytes(),
                                        json.dumps(self.annotation, sort_keys=True, default=str)]
            if table is not None and table.source and Path(table.source).is_file():
                parts.append(Path(table.source).read_bytes())
        except OSError:
            return None
        return cache.key(*parts)

    def _cached_sides(self, what: str, table: TerrainTable | None = None) -> dict[tuple[str, str], str] | None:
        k = self._feature_key(what, table)
        blob = cache.read("artwork-features", k, ".json") if k is not None else None
        if blob is None:
            return None
        try:
            return {(a, b): v for a, b, v in json.loads(blob)}
        except (ValueError, TypeError):
            return None

    def _keep_sides(self, what: str, found: dict[tuple[str, str], str], table: TerrainTable | None = None) -> None:
        k = self._feature_key(what, table)
        if k is not None:
            cache.write("artwork-features", k, json.dumps([[a, b, v] for (a, b), v in found.items()]).encode(),
                        ".json")

    def narrow_streets(self, table: TerrainTable | None = None) -> dict[tuple[str, str], str]:
        """Hexsides a road depiction overprints (P5.1), each ``"paved"`` or ``"unpaved"`` by the road's
        colour: along 80 % of the hexside's middle, the road covers a band >= 4.5 px wide within 1.5 px of
        its line; less the annotation's ``[narrow_streets] not_at`` (road colours that are no road along it)."""
        if self._streets is not None:
            return dict(self._streets)
        table = table if table is not None else load_terrain_table()
        kept = self._cached_sides("narrow-streets", table)
        if kept is not None:
            self._streets = kept
            return dict(kept)
        kind = np.zeros(256, dtype=np.int8)  # 1 paved, 2 dirt
        for t in table:
            if t.name == "Paved Road":
                kind[t.code] = 1
            elif t.name == "Dirt Road":
                kind[t.code] = 2
        geo = self.geometry
        pairs, a, b, n = self._hexsides((1, 2, 3))
        ts = np.linspace(0.15, 0.85, 15)
        offsets = np.arange(-6, 7) * 1.5  # -9 .. 9 px across the hexside's line
        codes, ok = self._sample(self.terrain, a, b, n, ts, offsets)
        k = kind[codes]
        paved, dirt = (k == 1) & ok, (k == 2) & ok
        full = (paved | dirt).sum(axis=2) >= 0.8 * len(ts)  # per hexside and offset: road along 80 %
        # the road drawn along the line: a band of it >= 4.5 px wide within 1.5 px of the line (a road is
        # drawn 7-13 px wide, not always centred on the line: StN15-O16, ChW9-X8)
        band = np.zeros(len(pairs), dtype=bool)
        for start in range(3, 8):
            band |= full[:, start : start + 3].all(axis=1)
        found = ok[:, 3:10].all(axis=(1, 2)) & band
        cfg = self.annotation.get("narrow_streets", {})
        # what the artwork shows is no road along the hexside, though its colours read so (the annotation's)
        dropped = {tuple(sorted(str(x).split("-"))) for x in (cfg.get("not_at", []) if isinstance(cfg, Mapping) else [])}
        out: dict[tuple[str, str], str] = {}
        for i in np.nonzero(found)[0].tolist():
            (h1, h2) = pairs[i]
            if tuple(sorted((geo.name(h1), geo.name(h2)))) in dropped:
                continue
            p, d = paved[i, 3:10].sum(), dirt[i, 3:10].sum()
            out[(geo.name(h1), geo.name(h2))] = "paved" if p >= d else "unpaved"
        self._streets = out
        self._keep_sides("narrow-streets", out, table)
        return dict(out)

    def road_on_lines(self, least: float = 0.8, table: TerrainTable | None = None) -> dict[tuple[str, str], float]:
        """A survey for the Narrow Streets: every hexside whose line itself (no band around it) the road
        colours cover along at least ``least`` of its middle, with that share."""
        table = table if table is not None else load_terrain_table()
        road = np.zeros(256, dtype=bool)
        road[[t.code for t in table if t.name in ("Paved Road", "Dirt Road")]] = True
        pairs, a, b, n = self._hexsides((1, 2, 3))
        ts = np.linspace(0.15, 0.85, 15)
        codes, ok = self._sample(self.terrain, a, b, n, ts, np.array([0.0]))
        share = (road[codes] & ok)[:, 0, :].mean(axis=1)
        geo = self.geometry
        return {(geo.name(pairs[i][0]), geo.name(pairs[i][1])): float(share[i])
                for i in np.nonzero(share >= least)[0].tolist()}

    def slope_hexsides(self) -> dict[tuple[str, str], str]:
        """Slope hexsides (P2.1) found in the artwork, each with its Down-Slope hex (P2.2: the hex the hash
        marks stand in). The marks are black, or the table's ``Slope`` colour; hex labels and the outlines
        of red markers are masked out.
        Along the hexside's middle 70 %, 2.5-9.5 px off its line, the marks fill >= 30 sample points on one
        side, at least four times those on the other, in >= 5 separate strokes. Where a fence or hedge
        shares the hexside (marks close to the line on both sides, 2.5-4.5 px), the test is made farther
        out, 5.5-12.5 px, where only the hash marks reach: >= 20 points, four times the other side's, in
        >= 5 strokes, of which >= 3 are radial (3 px or more long across the line)."""
        if self._slopes is not None:
            return dict(self._slopes)
        kept = self._cached_sides("slopes")
        if kept is not None:
            self._slopes = kept
            return dict(kept)
        idx, palette = self._picture()
        slope_rgb = {m.rgb for m in self.reading.meanings.values() if m.role == "slope"}
        is_mark = palette.sum(axis=1) < 40
        for i, c in enumerate(palette.tolist()):
            if (c[0], c[1], c[2]) in slope_rgb:
                is_mark[i] = True
        safe = np.minimum(idx, len(palette) - 1)
        mark = is_mark[safe]
        red = (palette[:, 0] > 180) & (palette[:, 1] < 80) & (palette[:, 2] < 80)
        rx, ry = np.nonzero(red[safe])  # the black outlines of the red markers and entry arrows: cleared in
        for bx, by in set(zip((rx // 6).tolist(), (ry // 6).tolist())):  # 6-px blocks, one block around
            mark[max(bx * 6 - 6, 0) : bx * 6 + 12, max(by * 6 - 6, 0) : by * 6 + 12] = False
        geo = self.geometry
        w, h = mark.shape
        for col, row in geo.hexes:  # the hex labels, printed below each hex's N hexside
            cx, cy = geo.centre_exact(col, row)
            x0, x1, y0, y1 = int(max(cx - 17, 0)), int(min(cx + 18, w)), int(max(cy - 31, 0)), int(min(cy - 18, h))
            if x0 < x1 and y0 < y1:
                mark[x0:x1, y0:y1] = False
        pairs, a, b, n = self._hexsides((0, 1, 2))
        ts = np.linspace(0.15, 0.85, 29)
        offs = np.arange(2.5, 12.6, 1.0)  # 2.5 ... 12.5
        v: dict[int, np.ndarray] = {}
        for sgn in (-1, 1):  # -1: into this hex, +1: into the neighbour
            vals, ok = self._sample(mark, a, b, sgn * n, ts, offs)
            v[sgn] = np.asarray(vals & ok)

        def strokes(x: np.ndarray) -> np.ndarray:
            across = np.asarray(x.any(axis=1))
            return np.asarray((np.diff(across.astype(np.int8), axis=1) == 1).sum(axis=1) + across[:, 0])

        def one_sided(band: slice, least: int) -> tuple[np.ndarray, np.ndarray]:
            cin, cout = v[-1][:, band].sum(axis=(1, 2)), v[1][:, band].sum(axis=(1, 2))
            hi, lo = np.maximum(cin, cout), np.minimum(cin, cout)
            inward = cin > cout
            st = np.where(inward, strokes(v[-1][:, band]), strokes(v[1][:, band]))
            return (hi >= least) & (hi >= 4 * np.maximum(lo, 1)) & (st >= 5), inward

        plain, inward = one_sided(slice(0, 8), 30)  # 2.5-9.5 px
        close = slice(0, 3)  # 2.5-4.5 px: where a fence's or hedge's own marks stand, on both sides
        fence = (v[-1][:, close].any(axis=1).sum(axis=1) >= 7) & (v[1][:, close].any(axis=1).sum(axis=1) >= 7)
        far_band = slice(3, 11)  # 5.5-12.5 px
        far, far_in = one_sided(far_band, 20)
        radial = np.where(far_in, (v[-1][:, far_band].sum(axis=1) >= 3).sum(axis=1),
                          (v[1][:, far_band].sum(axis=1) >= 3).sum(axis=1))
        fenced = ~plain & fence & far & (radial >= 3)
        out: dict[tuple[str, str], str] = {}
        for i in np.nonzero(plain | fenced)[0].tolist():
            h1, h2 = pairs[i]
            down_in = bool(inward[i]) if plain[i] else bool(far_in[i])
            out[(geo.name(h1), geo.name(h2))] = geo.name(h1 if down_in else h2)
        self._slopes = out
        self._keep_sides("slopes", out)
        return dict(out)

    def _picture(self) -> tuple[np.ndarray, np.ndarray]:
        """The picture in the standard frame: palette indices (x-major) and the palette (n x 3)."""
        from PIL import Image

        im: Image.Image = Image.open(io.BytesIO(self.image_bytes()))
        if im.mode != "P":
            im = im.convert("RGB").quantize(256)
        palette = np.array(im.getpalette() or [], dtype=np.int32).reshape(-1, 3)
        return np.asarray(im, dtype=np.uint8).T, palette

    def centre_marks(self, table: TerrainTable | None = None) -> dict[str, str]:
        """The building hexes whose centre mark is not the plain dot, by the shape of the white at the
        centre: ``"cross"`` (a black centre dot in a white cross: a Steeple, P5.2), ``"large-dot"`` (a large
        white centre dot: a single-hex two-story house, P5.3) or ``"square"`` (a small white square: no
        seed rule names it). A plain dot is a white plus of 5 px in a dark ring."""
        table = table if table is not None else load_terrain_table()
        idx, palette = self._picture()
        white = (palette.min(axis=1) > 235)[np.minimum(idx, len(palette) - 1)]
        building = np.array([bool(table.types.get(c) and table.types[c].is_building) for c in range(256)])
        geo, out = self.geometry, {}
        w, h = white.shape
        r = 12
        for col, row in geo.hexes:
            cx, cy = geo.centre(col, row)
            if cx < r or cy < r or cx + r >= w or cy + r >= h:
                continue
            win = white[cx - r : cx + r + 1, cy - r : cy + r + 1]
            comp = np.zeros_like(win)
            comp[r - 2 : r + 3, r - 2 : r + 3] = win[r - 2 : r + 3, r - 2 : r + 3]
            if not comp.any():
                continue
            for _ in range(2 * r):  # the white connected to the centre (4-neighbour growth inside the mask)
                grown = comp.copy()
                grown[1:, :] |= comp[:-1, :]
                grown[:-1, :] |= comp[1:, :]
                grown[:, 1:] |= comp[:, :-1]
                grown[:, :-1] |= comp[:, 1:]
                grown &= win
                if (grown == comp).all():
                    break
                comp = grown
            n = int(comp.sum())
            if n <= 12:
                continue
            xs, ys = np.nonzero(comp)
            ex, ey = int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)
            codes = self.terrain[cx - 8 : cx + 9, cy - 8 : cy + 9]
            if not building[codes].mean() > 0.15 or max(ex, ey) > 16:
                continue  # a stream's white banks, a label: not a centre mark of a building
            fill = n / (ex * ey)
            if n >= 35 and max(ex, ey) <= 10 and fill >= 0.7:
                out[geo.name((col, row))] = "large-dot"
            elif n >= 30 and min(ex, ey) >= 7 and fill < 0.7:
                out[geo.name((col, row))] = "cross"
            elif n >= 20 and fill >= 0.9:
                out[geo.name((col, row))] = "square"
        return out

    def level_steps(self, table: TerrainTable | None = None) -> dict[int, int]:
        """How many pixel edges join two ground colours of different levels, by the difference of their
        levels, counted where the reading is Open Ground on both sides (a woods texture's speckles in a
        ground colour are not ground). Hills drawn as contour bands give almost only steps of one: the
        check of a colour table's order of levels (bdLG's is inferred)."""
        table = table if table is not None else load_terrain_table()
        idx, palette = self._picture()
        level = np.full(max(len(palette), 256), -99, dtype=np.int16)
        for i, c in enumerate(palette.tolist()):
            m = self.reading.meanings.get((c[0], c[1], c[2]))
            if m is not None and m.terrain == "Open Ground" and m.role is None and m.elevation is not None:
                level[i] = m.elevation
        lv = level[idx]
        og = np.isin(self.terrain, [t.code for t in table if t.name == "Open Ground"])
        lv[~og] = -99
        out: dict[int, int] = {}
        for a, b in ((lv[:-1, :], lv[1:, :]), (lv[:, :-1], lv[:, 1:])):
            sel = (a != -99) & (b != -99) & (a != b)
            steps = np.bincount(np.abs(a[sel].astype(np.int32) - b[sel]))
            for k, n in enumerate(steps.tolist()):
                if n:
                    out[k] = out.get(k, 0) + n
        return out

    def colour_pixels(self, rgbs: list[tuple[int, int, int]] | tuple[tuple[int, int, int], ...]) -> dict[str, int]:
        """How many pixels of the given colours each hex holds (hexes with none left out): a survey of
        features drawn in a colour of their own (the brown banks of a ford, P4.3)."""
        idx, palette = self._picture()
        want = np.zeros(max(len(palette), 256), dtype=bool)
        for i, c in enumerate(palette.tolist()):
            if (c[0], c[1], c[2]) in set(rgbs):
                want[i] = True
        xs, ys = np.nonzero(want[idx])
        hi = self.geometry._hex_indices(xs, ys)
        counts = np.bincount(hi[hi >= 0], minlength=len(self.geometry.hexes))
        return {self.geometry.name(self.geometry.hexes[i]): int(counts[i]) for i in np.nonzero(counts)[0].tolist()}

    def _derived_hexes(self, table: TerrainTable) -> dict[Hex, Any]:
        """The derived reading's hexes (derive_board's, without its hexsides), read once."""
        if self._derived is None:
            from asl_terrain.vasl.derive import _derive_hexes

            self._derived = _derive_hexes(self, table)[1]
        return dict(self._derived)

    def building_levels(self, table: TerrainTable | None = None) -> tuple[list[dict[str, Any]], list[str]]:
        """Each building's levels by the rules, where the artwork prints none (the annotation's
        ``[building_levels]``, ``by_rule = true``): a single-hex building is a Single Story House (B23.21,
        the format's default: no block); a multi-hex building without a stairwell symbol a Two Story House
        whose levels are linked in every hex (B23.22); one with stairwell symbols (the white centre dots,
        VASL's stairways on bd01/bd03; the annotation may name others) ground, 1st and 2nd levels, linked
        only at the symbols (B23.23, B23.42). The buildings are the derived reading's (one building: one
        connected drawing). The annotation's own ``[[hex]]`` blocks come after and override these.
        Returns the hex blocks and a note line per building given levels."""
        rule = self.annotation.get("building_levels", {})
        if not isinstance(rule, Mapping) or not rule.get("by_rule", False):
            return [], []
        from asl_terrain.vasl.derive import _name_sort_key

        table = table if table is not None else load_terrain_table()
        marks = self.centre_marks(table)
        # the white dot is ASL's stairwell; ``stairwell_marks`` names other marks read as one (St's squares)
        shapes = {"large-dot", *(str(m) for m in rule.get("stairwell_marks", []))}
        symbols = {h for h, m in marks.items() if m in shapes}
        buildings: dict[str, list[str]] = {}
        for h, t in self._derived_hexes(table).items():
            if t.terrain == "building" and t.building_id:
                buildings.setdefault(t.building_id, []).append(self.geometry.name(h))
        blocks: list[dict[str, Any]] = []
        notes: list[str] = []
        tag = rule.get("tag", "R")
        for bid, names in sorted(buildings.items()):
            names.sort(key=_name_sort_key)
            stairs = [n for n in names if n in symbols]
            if stairs:
                blocks.append({"at": names, "building_type": "multi-level", "upper_levels": 2})
                blocks.append({"at": stairs, "stairwell": True})
                notes.append(f"{', '.join(names)}: a multi-story building, ground, 1st and 2nd levels, stairwells "
                             f"at {', '.join(stairs)} (B23.23, B23.42 [{tag}]: its stairwell symbols)")
            else:
                blocks.append({"at": names, "building_type": "two-story-house", "stairwell": True})
                notes.append(f"{', '.join(names)}: a Two Story House, ground and 1st levels linked in every hex "
                             f"(B23.22 [{tag}]: a multi-hex building without a stairwell symbol)")
        return blocks, notes

    def stream_depth(self, table: TerrainTable | None, blocks: list[dict[str, Any]]
                     ) -> tuple[dict[str, Any] | None, str]:
        """The annotation's ``[streams] depth`` (the artwork does not show it: a scenario's SSR does, B20.4)
        given to every stream hex, those the colours show and those the annotation's blocks name; or None
        without that key. ``[conditions] ssr = ["streams-deep"]`` (B20.43) and the like change it on a map."""
        cfg = self.annotation.get("streams", {})
        depth = cfg.get("depth") if isinstance(cfg, Mapping) else None
        if depth is None:
            return None, ""
        if depth not in ("dry", "shallow", "deep", "flooded"):
            raise MapError(f"{self.annotation_source}: [streams] depth must be 'dry', 'shallow', 'deep' or 'flooded', "
                           f"not {depth!r}", source=self.annotation_source)
        from asl_terrain.vasl.derive import _name_sort_key

        table = table if table is not None else load_terrain_table()
        names = {self.geometry.name(h) for h, t in self._derived_hexes(table).items() if t.stream}
        names |= {str(a) for b in self.annotation.get("hex", []) if b.get("stream")
                  for a in (b["at"] if isinstance(b.get("at"), list) else [b.get("at")])}
        if not names:
            return None, ""
        at = sorted(names, key=_name_sort_key)
        return ({"at": at, "stream": depth},
                f"stream = {json.dumps(depth)}: {len(at)} stream hexes ({cfg.get('rule', 'B20.4')} "
                f"[{cfg.get('tag', 'U')}]: {cfg.get('source', 'the annotation file')})")

    def map_blocks(self, dc: int = 0, dr: int = 0, table: TerrainTable | None = None
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
        """The map blocks the colours alone do not give, for the board placed at (dc, dr): the Narrow
        Streets the road depiction shows (P5.1), then the annotation file's ``[[hex]]`` and ``[[hexside]]``
        blocks (their ``source`` set aside); and one line per block saying where it was read."""

        def moved(name: str) -> str:
            if not (dc or dr):
                return name
            parts = []
            for part in name.split("-"):
                c, r = self.geometry.parse(part)
                parts.append(self.geometry.name((c + dc, r + dr)))
            return "-".join(parts)

        hexes: list[dict[str, Any]] = []
        sides: list[dict[str, Any]] = []
        notes: list[str] = []
        streets = self.narrow_streets(table)
        for kind in ("paved", "unpaved"):
            at = [moved(f"{a}-{b}") for (a, b), k in streets.items() if k == kind]
            if at:
                sides.append({"at": at, "narrow_street": kind})
                notes.append(f"narrow_street = {kind}: {len(at)} hexsides (the artwork: a road drawn along them, "
                             "P5.1)")
        slopes = self.slope_hexsides() if self.annotation.get("slopes_from_artwork", True) else {}
        for (a, b), down in sorted(slopes.items()):
            sides.append({"at": [moved(f"{a}-{b}")], "slope": moved(down)})
        if slopes:
            notes.append(f"slope: {len(slopes)} hexsides (the artwork: hash marks along them, the Down-Slope hex "
                         "the one they stand in, P2.1-P2.2)")
        walls = self.walls
        if walls:
            sides.append({"at": [moved(f"{a}-{b}") for a, b in sorted(walls)], "wall": True})
            cfg = self.annotation.get("walls", {})
            notes.append(f"wall: {len(walls)} hexsides (the artwork: {cfg.get('source', 'a wall drawn along them')}; "
                         f"{cfg.get('rule', 'B9.1')})")
        levels, level_notes = self.building_levels(table)
        for block in levels:
            hexes.append({**block, "at": [moved(a) for a in block["at"]]})
        notes.extend(level_notes)
        for kind, out in (("hex", hexes), ("hexside", sides)):
            for block in self.annotation.get(kind, []):
                keys = {k: v for k, v in block.items() if k != "source"}
                at = keys.get("at", [])
                keys["at"] = [moved(a) for a in (at if isinstance(at, list) else [at])]
                out.append(keys)
                notes.append(f"{', '.join(keys['at'])}: "
                             f"{', '.join(f'{k} = {json.dumps(v)}' for k, v in keys.items() if k != 'at')} "
                             f"({block['source']})")
        depth, depth_note = self.stream_depth(table, hexes)
        if depth is not None:
            hexes.append({**depth, "at": [moved(a) for a in depth["at"]]})
            notes.append(depth_note)
        for block in self.annotation.get("not_carried", []):  # read from the artwork, but not expressible
            at = block.get("at", [])
            names = [moved(a) for a in (at if isinstance(at, list) else [at])]
            notes.append(f"not carried: {', '.join(names)}: {block.get('what', '')} ({block.get('source', '')})")
        return hexes, sides, notes


def _hexside_lines(geo: BoardGeometry, sides: tuple[int, ...]
                   ) -> tuple[list[tuple[Hex, Hex]], np.ndarray, np.ndarray, np.ndarray]:
    """Every hexside of the board on the given sides of its hexes: the (hex, neighbour) pairs, their end
    vertices (k x 2 each) and the unit normal pointing out of the first hex."""
    pairs: list[tuple[Hex, Hex]] = []
    a: list[tuple[float, float]] = []
    b: list[tuple[float, float]] = []
    n: list[tuple[float, float]] = []
    for col, row in geo.hexes:
        cx, cy = geo.centre_exact(col, row)
        for side in sides:
            nb = geo.neighbour(col, row, side)
            if nb is None:
                continue
            (x0, y0), (x1, y1) = geo.hexside_segment(col, row, side)
            nx, ny = (x0 + x1) / 2 - cx, (y0 + y1) / 2 - cy
            norm = float(np.hypot(nx, ny))
            pairs.append(((col, row), nb))
            a.append((x0, y0))
            b.append((x1, y1))
            n.append((nx / norm, ny / norm))
    return pairs, np.array(a), np.array(b), np.array(n)


def _rgb_ids(palette: np.ndarray, rgbs: Any, what: str, source: str) -> list[int]:
    try:
        want = {(int(c[0]), int(c[1]), int(c[2])) for c in rgbs}
    except (TypeError, ValueError, IndexError, KeyError):
        raise MapError(f"{source}: [walls] {what} must be a list of [r, g, b] colours", source=source) from None
    return [i for i, c in enumerate(palette.tolist()) if (c[0], c[1], c[2]) in want]


def wall_hexsides(indices: np.ndarray, palette: np.ndarray, geo: BoardGeometry, cfg: Any, source: str = ""
                  ) -> dict[tuple[str, str], str]:
    """Wall hexsides (B9.1) read from the artwork by their drawing: a band along the hexside in the
    annotation's ``[walls]`` colours. Along the hexside's middle 80 % (17 points), within ``half_width`` px
    of its line: at least ``least`` of the pixels that are not black are the wall's colours (``drawn_in``
    and ``stones``), and a ``stones`` pixel (the stippled stones) stands at >= ``stones_along`` of the
    points. The colours are the map's own (St and Ch: building greys with brown stones; Lg: the road grey
    with roof-grey stones), which is why the colours alone do not tell a wall from a roof or a road.
    ``not_at`` drops hexsides (what the artwork shows is no wall), ``at`` adds ones looked at."""
    if not isinstance(cfg, Mapping) or not cfg:
        return {}
    drawn = _rgb_ids(palette, cfg.get("drawn_in", []), "drawn_in", source)
    stones = _rgb_ids(palette, cfg.get("stones", []), "stones", source)
    black = [i for i, c in enumerate(palette.tolist()) if max(c) <= 8]
    half = float(cfg.get("half_width", 4.0))
    least, along = float(cfg.get("least", 0.6)), float(cfg.get("stones_along", 0.1))
    pairs, a, b, n = _hexside_lines(geo, (0, 1, 2))
    ts = np.linspace(0.1, 0.9, 17)
    offs = np.arange(-half, half + 0.5, 1.0)
    pts = (a[:, None, None, :] + (b - a)[:, None, None, :] * ts[None, :, None, None]
           + offs[None, None, :, None] * n[:, None, None, :])
    x = np.clip(np.rint(pts[..., 0]).astype(np.int64), 0, indices.shape[0] - 1)
    y = np.clip(np.rint(pts[..., 1]).astype(np.int64), 0, indices.shape[1] - 1)
    v = indices[x, y]
    is_stone = np.isin(v, stones)
    is_wall = np.isin(v, drawn) | is_stone
    not_black = (~np.isin(v, black)).sum(axis=(1, 2))
    share = is_wall.sum(axis=(1, 2)) / np.maximum(not_black, 1)
    stone_along = is_stone.any(axis=2).mean(axis=1)
    found = (share >= least) & (stone_along >= along)
    dropped = {tuple(sorted(str(s).split("-"))) for s in cfg.get("not_at", [])}
    out: dict[tuple[str, str], str] = {}
    for i in np.nonzero(found)[0].tolist():
        names = (geo.name(pairs[i][0]), geo.name(pairs[i][1]))
        if tuple(sorted(names)) not in dropped:
            out[names] = f"drawn: {share[i]:.0%} of the band in the wall's colours, stones along {stone_along[i]:.0%}"
    for s in cfg.get("at", []):
        p1, p2 = str(s).split("-")
        out.setdefault((p1, p2), "the annotation's [walls] at (looked at)")
    return out


def _apply_walls(reading: ColourReading, geometry: BoardGeometry, indices: np.ndarray, palette: np.ndarray,
                 walls: Mapping[tuple[str, str], str], cfg: Any, table: TerrainTable, source: str) -> None:
    """The pixels of each wall's band (its colours and the black of its outline and the grid line, within
    ``drawn_half_width`` px of the hexside, default ``half_width``; up to 3 px beyond, and past its ends,
    those read as a building) are
    Wall: the colours read them as roof or road (B9.1: the wall as drawn)."""
    if not walls:
        return
    code = table.by_name("Wall").code
    ids = set(_rgb_ids(palette, [*cfg.get("drawn_in", []), *cfg.get("stones", [])], "drawn_in", source))
    ids |= {i for i, c in enumerate(palette.tolist()) if max(c) <= 8}
    mine = np.zeros(256, dtype=bool)
    mine[list(ids)] = True
    half = float(cfg.get("drawn_half_width", cfg.get("half_width", 4.0)))
    building = np.array([bool(table.types.get(c) and table.types[c].is_building) for c in range(256)])
    for p1, p2 in walls:
        h1, h2 = geometry.parse(p1), geometry.parse(p2)
        side = next((s for s in range(6) if geometry.neighbour(*h1, s) == h2), None)
        if side is None:
            raise MapError(f"{source}: [walls] {p1}-{p2} is not a hexside (the hexes are not adjacent)", source=source)
        (x0, y0), (x1, y1) = geometry.hexside_segment(*h1, side)
        pad = half + 10  # the band, 3 px beyond it, and 15 % of the hexside past each end
        mx, my = np.meshgrid(np.arange(int(min(x0, x1) - pad), int(max(x0, x1) + pad + 1)),
                             np.arange(int(min(y0, y1) - pad), int(max(y0, y1) + pad + 1)), indexing="ij")
        gx, gy = mx.ravel(), my.ravel()
        inside = (gx >= 0) & (gy >= 0) & (gx < indices.shape[0]) & (gy < indices.shape[1])
        gx, gy = gx[inside], gy[inside]
        dx, dy = x1 - x0, y1 - y0
        length = float(np.hypot(dx, dy))
        t = ((gx - x0) * dx + (gy - y0) * dy) / length**2
        dist = np.abs((gx - x0) * dy - (gy - y0) * dx) / length
        ours = mine[indices[gx, gy]]
        sel = (t >= 0) & (t <= 1) & (dist <= half) & ours
        # the wall's ends and edges stand a little past its band: there only what reads as a building
        # (the stones' roof grey) becomes wall, a road beside it stays road
        sel |= (t >= -0.15) & (t <= 1.15) & (dist <= half + 3) & ours & building[reading.terrain[gx, gy]]
        reading.terrain[gx[sel], gy[sel]] = code


_CACHE: dict[tuple[str, float, str], ColourBoard] = {}
_SSR_NAME = re.compile(r"Winter|Mist|Mud|Snow|Shadow.*Mist")
_IMAGE = re.compile(r"bd.*\.(gif|png)|ovr.*\.(gif|png)", re.IGNORECASE)


def read_colour_board(path: str | Path, table: TerrainTable | None = None,
                      annotation: str | Path | None = None) -> ColourBoard:
    """Read a VASL board archive without LOSData from its artwork and colour tables.

    :param annotation: the map's annotation file; default: the one bundled for the board, if any.
    :raises MapError: no picture, or colours that cannot be read.
    """
    file = Path(path)
    ann_path = Path(annotation) if annotation is not None else annotation_file(file.name)
    key = (str(file.resolve()), file.stat().st_mtime if file.exists() else 0.0, str(ann_path))
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    from PIL import Image

    source = str(file)
    try:
        with zipfile.ZipFile(file) as z:
            members = tuple(z.namelist())
            stem = file.name.lower()
            images = [m for m in members if _IMAGE.fullmatch(m) and "_" not in m]
            exact = [m for m in images if m.lower().rsplit(".", 1)[0] == stem]
            if not images:
                raise MapError(f"{source}: no LOSData and no board picture (bd*.gif) to read the terrain from: not "
                               "an LOS-enabled VASL board", source=source)
            image_name = (exact or images)[0]
            image = z.read(image_name)
            colors_text = z.read("colors").decode("latin-1") if "colors" in members else ""
            data_text = z.read("data").decode("latin-1") if "data" in members else ""
    except (OSError, zipfile.BadZipFile) as exc:
        raise MapError(f"{source}: not a readable VASL board archive: {exc}", source=source) from None
    table = table if table is not None else load_terrain_table()
    ann: dict[str, Any] = load_annotation(ann_path) if ann_path is not None else {}
    ann_source = str(ann_path) if ann_path is not None else ""
    meanings: dict[RGB, ColourMeaning] = {}
    # VASL's shared list, then the board's own table (its names, with the board's RGB), then the annotation
    # (an SSR recolouring's name, ``L0Winter``, never takes a colour another name has: the white of the
    # centre dots is also ``L0Winter``'s)
    board_colours = parse_colors_table(colors_text)
    for name, c in table.colors.items():
        if name not in board_colours and c.rgb not in meanings and not _SSR_NAME.search(name):
            meanings[c.rgb] = meaning_of_name(name, c.rgb, table)
    for name, rgb in board_colours.items():
        m = meaning_of_name(name, rgb, table, f"the board's colors table ({name})")
        if rgb not in meanings or (not _SSR_NAME.search(name) and (m.terrain is not None or m.role is not None)):
            meanings[rgb] = m
    for name, c in table.colors.items():
        if c.rgb not in meanings:
            meanings[c.rgb] = meaning_of_name(name, c.rgb, table)
    meanings.update(_annotation_meanings(ann, table, ann_source))
    im: Image.Image = Image.open(io.BytesIO(image))
    if im.mode != "P":
        im = im.convert("RGB").quantize(256)
    palette = np.array(im.getpalette() or [], dtype=np.int32).reshape(-1, 3)
    indices = np.asarray(im, dtype=np.uint8).T
    cached_rasters = _disk_cache_read(file, ann, table)
    offsets = read_data_offsets(data_text)
    if cached_rasters is not None and cached_rasters[3] is not None:
        g = cached_rasters[3]
        grid = GridFit(g[0], g[1], g[2], g[3], int(g[4]), int(g[5]), int(g[6]), g[7], offsets)
    else:
        grid = find_grid(indices, palette, offsets)
    grid_cfg = ann.get("grid", {})
    # VASL's origin: the data file's, else its default (A1 at (0, 32)); the picture's when they differ
    ox = float(grid.data_offsets[0]) if grid.data_offsets[0] is not None else 0.0
    oy = float(grid.data_offsets[1]) if grid.data_offsets[1] is not None else 32.0
    if abs(grid.x0 - ox) > 0.75:
        ox = float(round(grid.x0))
    if abs(grid.y0 - oy) > 0.75:
        oy = float(round(grid.y0))
    shift = (int(round(-ox)), int(round(32 - oy)))
    if "shift" in grid_cfg:
        shift = (int(grid_cfg["shift"][0]), int(grid_cfg["shift"][1]))
    w, h = indices.shape
    w, h = indices.shape
    columns = int(grid_cfg.get("columns", np.floor((w - ox) / HEX_WIDTH + 1e-6) + 1))
    rows = int(grid_cfg.get("rows", np.floor((h - oy + HEX_HEIGHT / 2) / HEX_HEIGHT + 1e-3)))
    gw, gh = w + shift[0], h + shift[1]
    moved = np.zeros((gw, gh), dtype=np.uint8)
    bg = int(np.bincount(indices.ravel()).argmax())
    moved[:] = bg
    sx0, sy0 = max(-shift[0], 0), max(-shift[1], 0)
    dx0, dy0 = max(shift[0], 0), max(shift[1], 0)
    cw, ch = min(w - sx0, gw - dx0), min(h - sy0, gh - dy0)
    moved[dx0 : dx0 + cw, dy0 : dy0 + ch] = indices[sx0 : sx0 + cw, sy0 : sy0 + ch]
    if cached_rasters is not None:
        terrain, elevation, unclassified, _ = cached_rasters
        reading = ColourReading(terrain, elevation, {}, dict(meanings), unclassified, 0, 0)
    else:
        reading = classify(moved, palette, meanings, table)
    name = file.name[2:] if file.name.lower().startswith("bd") else file.name
    building_types = {str(k): str(v) for k, v in ann.get("building_types", {}).items()}
    if "BoardMetadata.xml" in members:  # an LOS board's own building types (how VASL made its LOSData)
        from asl_terrain.vasl.archive import _parse_board_metadata

        with zipfile.ZipFile(file) as z:
            meta = _parse_board_metadata(z.read("BoardMetadata.xml"), f"{source}:BoardMetadata.xml")
        building_types = {**meta.building_types, **building_types}
    geometry = BoardGeometry(columns, rows, gw, gh)
    walls: dict[tuple[str, str], str] | None = None
    if cached_rasters is None:  # the walls' pixels are part of the cached reading; else read when asked
        walls = wall_hexsides(moved, palette, geometry, ann.get("walls", {}), ann_source)
        _apply_inherent(reading, geometry, table)
        _apply_building_types(reading, geometry, building_types, table)
        _apply_terrain_fixes(reading, geometry, ann.get("terrain_fix", []), table, ann_source)
        _apply_walls(reading, geometry, moved, palette, walls, ann.get("walls", {}), table, ann_source)
        _disk_cache_write(file, ann, table, reading, grid)
    metadata = BoardMetadata(name, "", "", "", image_name, bool((reading.elevation != 0).any()), columns, rows,
                             building_types, {}, (), (), {}, {"colours": "artwork"})
    for r in (reading.terrain, reading.elevation):
        r.setflags(write=False)
    board = ColourBoard(file, metadata, geometry, reading, members, grid, shift, ann, ann_source)
    if walls is not None:
        board._walls = walls
        if ann.get("walls"):  # without [walls] the property answers {} unasked: nothing to keep
            board._keep_sides("walls", walls)
    _CACHE[key] = board
    return board


# the annotation's parts the rasters are read with (its hex and hexside blocks are not: editing them
# keeps the cached reading)
_PIXEL_KEYS = ("color", "grid", "building_types", "terrain_fix", "walls")


def _cache_key(file: Path, ann: Mapping[str, Any], table: TerrainTable) -> str | None:
    """The disk cache's key for the reading of an archive (asl_terrain.cache, so also this package's code
    stamp: a change in the reader can never serve a stale raster): the archive's bytes, the annotation's
    parts that change pixels, and the terrain table's bytes."""
    try:
        parts: list[bytes | str] = [file.read_bytes()]
        if table.source and Path(table.source).is_file():
            parts.append(Path(table.source).read_bytes())
    except OSError:
        return None
    parts.append(json.dumps({k: ann.get(k) for k in _PIXEL_KEYS}, sort_keys=True, default=str))
    return cache.key(*parts)


def _disk_cache_read(file: Path, ann: Mapping[str, Any], table: TerrainTable
                     ) -> tuple[np.ndarray, np.ndarray, list[tuple[RGB, int]], list[float] | None] | None:
    k = _cache_key(file, ann, table)
    blob = cache.read("colours", k, ".npz") if k is not None else None
    if blob is None:
        return None
    try:
        with np.load(io.BytesIO(blob)) as z:
            unclassified = [((int(r), int(g), int(b)), int(n)) for r, g, b, n in z["unclassified"].tolist()]
            grid = [float(v) for v in z["grid"].tolist()] if "grid" in z else None
            return np.array(z["terrain"]), np.array(z["elevation"]), unclassified, grid
    except (OSError, ValueError, KeyError, EOFError):
        return None  # damaged: read the picture again


def _disk_cache_write(file: Path, ann: Mapping[str, Any], table: TerrainTable, reading: ColourReading,
                      grid: GridFit) -> None:
    k = _cache_key(file, ann, table)
    if k is None:
        return
    buf = io.BytesIO()
    unclassified = np.array([[*rgb, n] for rgb, n in reading.unclassified], dtype=np.int64).reshape(-1, 4)
    g = np.array([grid.x0, grid.y0, grid.dx, grid.dy, grid.columns, grid.rows, grid.dots, grid.residual])
    np.savez_compressed(buf, terrain=reading.terrain, elevation=reading.elevation, unclassified=unclassified, grid=g)
    cache.write("colours", k, buf.getvalue(), ".npz")


_INHERENT_PIXELS = 30  # an inherent terrain drawn with at least this many pixels in a hex fills it


def _hex_pixels(geometry: BoardGeometry, h: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The pixels (xs, ys) of one hex."""
    cx, cy = geometry.centre_exact(*h)
    x0, x1 = max(int(cx - 40), 0), min(int(cx + 41), geometry.grid_width)
    y0, y1 = max(int(cy - 34), 0), min(int(cy + 35), geometry.grid_height)
    gx, gy = np.meshgrid(np.arange(x0, x1), np.arange(y0, y1), indexing="ij")
    xs, ys = gx.ravel(), gy.ravel()
    idx = geometry._hex_indices(xs, ys)
    keep = idx == geometry.hexes.index(h)
    return xs[keep], ys[keep]


def _apply_inherent(reading: ColourReading, geometry: BoardGeometry, table: TerrainTable) -> None:
    """Inherent terrain (orchard, graveyard, crags: B14, B18) is the whole hex's: its open ground takes it.
    Orchards are drawn as trees standing on the ground colour; VASL reads an orchard hex the same way."""
    open_code = next((t.code for t in sorted(table, key=lambda t: t.code) if t.name == "Open Ground"), 0)
    for code in np.unique(reading.terrain).tolist():
        t = table.types.get(int(code))
        if t is None or not t.inherent:
            continue
        xs, ys = np.nonzero(reading.terrain == code)
        idx = geometry._hex_indices(xs, ys)
        counts = np.bincount(idx[idx >= 0], minlength=len(geometry.hexes))
        for i in np.nonzero(counts >= _INHERENT_PIXELS)[0].tolist():
            hx, hy = _hex_pixels(geometry, geometry.hexes[i])
            sel = reading.terrain[hx, hy] == open_code
            reading.terrain[hx[sel], hy[sel]] = code


def _apply_building_types(reading: ColourReading, geometry: BoardGeometry, types: Mapping[str, str],
                          table: TerrainTable) -> None:
    """Building pixels of a hex named in ``types`` take that building type (colours give only stone or
    wooden: VASL's LOSData is made the same way, from BoardMetadata.xml's building types)."""
    is_building = np.array([bool(table.types.get(c) and table.types[c].is_building) for c in range(256)])
    for hex_name, type_name in types.items():
        try:
            h = geometry.parse(hex_name)
            code = table.by_name(type_name).code
        except (MapError, ValueError):
            continue
        hx, hy = _hex_pixels(geometry, h)
        sel = is_building[reading.terrain[hx, hy]]
        reading.terrain[hx[sel], hy[sel]] = code


def _apply_terrain_fixes(reading: ColourReading, geometry: BoardGeometry, fixes: Any, table: TerrainTable,
                         source: str) -> None:
    """An annotation's ``[[terrain_fix]]`` (``at``, ``from``, ``to``: VASL terrain names, and ``source``): in
    the hexes named, the pixels read as ``from`` are ``to`` (a colour drawn for two things: the grey of
    roofs is also a stone bridge's parapets)."""
    for i, fix in enumerate(fixes if isinstance(fixes, list) else []):
        try:
            old, new = table.by_name(str(fix["from"])).code, table.by_name(str(fix["to"])).code
        except (KeyError, TypeError, ValueError, MapError):
            raise MapError(f"{source}: [[terrain_fix]] number {i + 1} needs 'from' and 'to', VASL terrain names "
                           "(e.g. 'Stone Building', 'Open Ground')", source=source) from None
        at = fix.get("at", [])
        for name in at if isinstance(at, list) else [at]:
            hx, hy = _hex_pixels(geometry, geometry.parse(str(name)))
            sel = reading.terrain[hx, hy] == old
            reading.terrain[hx[sel], hy[sel]] = new


def agreement(a: np.ndarray, b: np.ndarray) -> float:
    """The share of pixels on which two rasters agree (their common extent)."""
    w, h = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    return float((a[:w, :h] == b[:w, :h]).mean())
