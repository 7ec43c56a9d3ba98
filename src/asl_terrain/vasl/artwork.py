"""The artwork as the hexes' depiction (A6.1): the boards' pixels placed on a map's grid, each reduced to
the LOS feature it draws and the ground under it, for the LOS engine to ask what a thread meets; and
loading a map's ``[depiction]``."""

from __future__ import annotations

import copy
import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from asl_terrain import cache
from asl_terrain.errors import MapError
from asl_terrain.grid import Hex as GridHex

from .archive import BoardArchive, TurnedBoard, read_board
from .data import _ENV_VAR
from . import kept
from .geometry import _HALF_HEIGHT, _SIDE, HEX_HEIGHT, HEX_WIDTH, BoardGeometry, Hex, grid_pixel
from .terrain import _BUILDING_NAME, TerrainTable, TerrainType, load_terrain_table, terrain_table_file

if TYPE_CHECKING:
    from asl_terrain.model import Map


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
_WALL_ART = ("Wall", "Hedge", "Bocage")  # the hexside terrain drawn thick, whose depiction is the wall (B9.1)
_WALL_REACH = 12.0  # px: every wall, hedge and bocage pixel of the shared boards lies within 10 px of its hexside
_ELEV_BIAS = 8  # a depiction code is feature * 32 + elevation + 8 (elevations -8 .. 23)
_CODE_STEP = 32


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
    """The board's ground elevations (int16) with each bridge pixel, and each road pixel of a hex holding a
    bridge, lowered to the lowest other ground drawn in its hex: a bridge's deck is drawn at the level of the
    road it carries (bd13's elevated road crosses its stream on bridges drawn at level 1, the road on the
    deck drawn at level 1 too), but a bridge is no obstacle (B6.2: a LOS passes beneath it, EX: J4 fires
    beneath 13K6 to L7; at most a Hindrance). The embankment drawn inside a bridge hex stays ground."""
    ground = board.elevation.astype(np.int16)
    codes = [c for c, t in table.types.items() if t.los_category == "BRIDGE"]
    bridge = np.isin(board.terrain, codes)
    if not bridge.any():
        return ground
    roads = [c for c, t in table.types.items() if t.los_category == "ROAD" and t.name != "Elevated Road"]
    geo = board.geometry
    bx, by = np.nonzero(bridge)
    bridge_hexes = geo._hex_indices(bx, by)
    if (bridge_hexes >= 0).all():  # only the bridges' hexes are read, each within its bounding box
        for i in np.unique(bridge_hexes).tolist():
            cx, cy = geo.centre_exact(*geo.hexes[i])
            x0, x1 = max(int(cx - _SIDE) - 2, 0), min(int(cx + _SIDE) + 3, geo.grid_width)
            y0, y1 = max(int(cy - _HALF_HEIGHT) - 2, 0), min(int(cy + _HALF_HEIGHT) + 3, geo.grid_height)
            xs, ys = np.meshgrid(np.arange(x0, x1), np.arange(y0, y1), indexing="ij")
            mine = geo._hex_indices(xs, ys) == i
            box = ground[x0:x1, y0:y1]
            deck_here = mine & (bridge[x0:x1, y0:y1] | np.isin(board.terrain[x0:x1, y0:y1], roads))
            rest = mine & ~deck_here
            if rest.any():
                box[deck_here] = np.minimum(box[deck_here], box[rest].min())
        return ground
    idx = geo.hex_index_raster().astype(np.int64)
    has_bridge = np.zeros(int(idx.max()) + 2, dtype=bool)
    has_bridge[idx[bridge] + 1] = True  # index -1 (no hex) goes to slot 0
    deck = bridge | (np.isin(board.terrain, roads) & has_bridge[idx + 1])
    lowest = np.full(int(idx.max()) + 2, np.iinfo(np.int16).max, dtype=np.int16)
    np.minimum.at(lowest, idx[~deck] + 1, ground[~deck])
    under = lowest[idx[deck] + 1]
    ground[deck] = np.where(under == np.iinfo(np.int16).max, ground[deck], np.minimum(ground[deck], under))
    return ground


@functools.lru_cache(maxsize=64)
def _hex_mask(cx: float, cy: float, w: int, h: int) -> np.ndarray:
    """The pixels of a w x h window whose centres lie in the hexagon centred at (cx, cy) of the window, grown
    by 1.5 px: the same for every hex whose centre falls at that fraction of a pixel (a few kinds a board)."""
    xs = np.arange(w, dtype=np.float64)[:, None] + 0.5
    ys = np.arange(h, dtype=np.float64)[None, :] + 0.5
    ax, ay = np.abs(xs - cx), np.abs(ys - cy)  # exact: every value here is a multiple of 1/4 px
    grow = 1.5
    mask = (ay <= _HALF_HEIGHT + grow) & (ax / (_SIDE + grow) + ay / (HEX_HEIGHT + 2 * grow) <= 1)
    mask.setflags(write=False)
    return mask


# the stretches an artwork raster keeps with their codes (about 100 bytes each): every stretch a board's or a
# 3-board layout's ordered pairs read (bd04 102,000, bdBFPL 124,000, bd01;bd02;bd03 307,000)
_STRETCH_LIMIT = 400_000
_KEPT_STRETCHES = 150_000  # the stretches the user cache keeps per raster (about 60 bytes each)


class ThreadSample:
    """The depiction codes under one thread, one sample per pixel step (see :meth:`ArtworkRaster.sample`).

    ``between(t0, t1)`` gives the codes met between two parameters of the thread (0 at its start, 1 at
    its end), both ends included. A thread between two centre pixels is read from the raster stretch by
    stretch, as the LOS engine asks (most of its hexes need no pixels, and a blocked thread is left
    unread past its block); ``codes`` reads it whole.
    """

    __slots__ = ("_codes", "_ids", "_offs", "_raster", "n")

    def __init__(self, codes: list[int] | None, n: int, ids: np.ndarray | None = None,
                 offs: np.ndarray | None = None, raster: ArtworkRaster | None = None) -> None:
        self._codes = codes
        self._ids = ids  # the raster's pixel ids from the thread's start pixel on; offs: each sample's offset
        self._offs = offs
        self._raster = raster
        self.n = n

    @property
    def codes(self) -> list[int]:
        """Every sample's code, from the start of the thread to its end."""
        if self._codes is None:
            assert self._ids is not None and self._offs is not None and self._raster is not None
            self._codes = self._raster._id_codes(self._ids[self._offs].tobytes())
        return self._codes

    def between(self, t0: float, t1: float) -> frozenset[int]:
        """The codes met strictly inside [t0, t1]: the samples within one pixel step of either end are
        left out, because the pixel holding a hexside or vertex point may be the neighbouring hex's
        artwork; a stretch shorter than three steps gives its middle sample."""
        n = self.n
        a = math.ceil(t0 * n - 1e-9) + 1
        b = math.floor(t1 * n + 1e-9) - 1
        if b < a:
            a = b = min(max(round((t0 + t1) * n / 2), 0), n)
        if self._codes is not None:
            return frozenset(self._codes[a : b + 1])
        assert self._ids is not None and self._offs is not None and self._raster is not None
        # the stretch's pixel ids as bytes: most stretches repeat one met before (open ground, a woods edge)
        ids = self._ids[self._offs[a : b + 1]].tobytes()
        got = self._raster._sets.get(ids)
        return got if got is not None else self._raster._set_of(ids)


def _turn_180(w: int, h: int, dc: int, dr: int) -> Callable[[tuple[float, float]], tuple[float, float]]:
    """grid.py's scaled frame turned 180° about the centre of a ``w`` x ``h`` board placed at column offset
    ``dc``, row offset ``dr``: X -> 3(w - 1) - X, Y -> 2h + 2 - Y, in the board's own frame."""
    def turn(g: tuple[float, float]) -> tuple[float, float]:
        return 3 * (w - 1) - (g[0] - 3 * dc), 2 * h + 2 - (g[1] - 2 * dr)
    return turn


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
        width = max(int(dc * HEX_WIDTH) + b.grid_width for b, dc, _ in boards)
        height = max(int(dr * HEX_HEIGHT) + b.grid_height for b, _, dr in boards)
        comb = np.full((width, height), _ELEV_BIAS, dtype=np.uint16)
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
        self._setup(table, tuple(features), tuple(placed), tuple(boards), comb,
                    [(b.geometry, dc, dr) for b, dc, dr in boards])
        # a board turned 180°: a thread between two of its points is walked on the board as printed, in
        # its own frame, as VASL does (it turns the coordinates, not the board), so that LOS between two
        # of its hexes is the printed board's to the pixel
        for b, dc, dr in boards:
            if isinstance(b, TurnedBoard):
                x0, y0 = int(dc * HEX_WIDTH), int(dr * HEX_HEIGHT)
                self._turned.append((x0, y0, x0 + b.grid_width, y0 + b.grid_height, dc, dr, b.width, b.height,
                                     ArtworkRaster([(b.original, 0, 0)], table)))

    def _setup(self, table: TerrainTable, features: tuple[dict[str, Any], ...],
               placements: tuple[tuple[str, int, int], ...], archives: Sequence[tuple[BoardArchive, int, int]],
               comb: np.ndarray, geometries: Sequence[tuple[BoardGeometry, int, int]]) -> None:
        """The raster's state from its combined codes ``comb`` (shaped width x height): built from the boards,
        or read back from the user's cache (:func:`_kept_artwork`, whose boards are read when first asked for)."""
        self.table = table
        self.features: tuple[dict[str, Any], ...] = features
        self.placements: tuple[tuple[str, int, int], ...] = placements
        self.archives: Sequence[tuple[BoardArchive, int, int]] = archives
        self.width, self.height = width, height = comb.shape
        cols = max(dc + g.width for g, dc, _ in geometries)
        rows = max(dr + g.height for g, _, dr in geometries)
        self.geometry = BoardGeometry(cols, rows, width, height)
        self._flat: np.ndarray = comb.reshape(-1)
        self._raster = comb
        self._los_points: dict[tuple[float, float], tuple[float, float]] = {}
        self._offsets: dict[tuple[int, int], np.ndarray] = {}
        self._clear_ids()
        # a hex's codes are read from the combined raster when first asked for (one LOS reads few hexes)
        self._hex_codes: dict[Hex, frozenset[int]] = {}
        self._on_boards: set[Hex] = {(col + dc, row + dr) for g, dc, dr in geometries for col, row in g.hexes}
        self._turned: list[tuple[float, float, float, float, int, int, int, int, ArtworkRaster]] = []
        # the user cache's key of these pixels (:mod:`asl_terrain.vasl.kept`), None when they are not kept
        self._key: str | None = None

    def frame_for(self, p: tuple[float, float], q: tuple[float, float]
                  ) -> tuple[ArtworkRaster, Callable[[tuple[float, float]], tuple[float, float]] | None]:
        """The raster a thread from ``p`` to ``q`` is read on, and the turn of grid points into its frame: a
        thread with both ends on a board turned 180° is read on the board as printed (None: this raster)."""
        for x0, y0, x1, y1, dc, dr, w, h, view in self._turned:
            (px, py), (qx, qy) = self.pixel(p), self.pixel(q)
            if x0 <= px <= x1 and y0 <= py <= y1 and x0 <= qx <= x1 and y0 <= qy <= y1:
                return view, _turn_180(w, h, dc, dr)
        return self, None

    def with_hexside_art(self, sides: Sequence[tuple[Hex, Hex, int]], reach: float = _WALL_REACH,
                         names: Sequence[str] = _WALL_ART) -> tuple[ArtworkRaster, int]:
        """A copy whose pixels drawn as one of the hexside terrains ``names`` (walls, hedges, bocage) within
        ``reach`` pixels of one of ``sides`` carry the feature id ``base + n`` of the nearest such side
        ``(hex, hex, n)``, and ``base``: B9.1 makes the thick depiction, as well as the hexside, the wall.
        The ``n`` need not be distinct: a reader tells sides of one ``n`` apart by where it meets them. The
        copy has the same ground under every pixel; a board turned 180° keeps its printed view without them.
        """
        base = len(self.features)
        top = max((n for _, _, n in sides), default=-1)
        if not sides or base + top >= 2**16 // _CODE_STEP:
            return self, base
        # kept in the user cache with the pixels they are drawn on (not for a board turned 180°: its view too)
        key = (cache.key(self._key, "hexside art", repr(list(sides)), repr(reach), repr(tuple(names)))
               if self._key is not None and not self._turned else None)
        got = kept.read("artwork", key) if key is not None else None
        raster = got[1].get("codes") if got is not None else None
        if raster is None or raster.shape != self._raster.shape or raster.dtype != self._raster.dtype:
            raster = self._hexside_art_codes(sides, reach, names, base)
            if key is not None:
                kept.write("artwork", key, {}, {"codes": raster})
        out = copy.copy(self)
        out._key = key
        out._raster = raster
        out._flat = raster.reshape(-1)
        out._hex_codes = {}
        out._clear_ids()
        out.features = self.features + tuple({"terrain": "hexside-art", "side": n} for n in range(top + 1))
        turned = []
        for tv in self._turned:  # a board turned 180° is read as printed: its view carries the walls too
            bx0, by0, bx1, by1, dc, dr, w, h, view = tv
            turn = _turn_180(w, h, dc, dr)
            mine = []
            for ha, hb, n in sides:
                pa, pb = self.pixel(GridHex(*ha).centre()), self.pixel(GridHex(*hb).centre())
                if all(bx0 <= x <= bx1 and by0 <= y <= by1 for x, y in (pa, pb)):
                    ta, tb = (GridHex.at_centre(turn(GridHex(*x).centre())) for x in (ha, hb))
                    mine.append(((ta.col, ta.row), (tb.col, tb.row), n))
            turned.append((*tv[:8], view.with_hexside_art(mine, reach, names)[0] if mine else view))
        out._turned = turned
        return out, base

    def _hexside_art_codes(self, sides: Sequence[tuple[Hex, Hex, int]], reach: float, names: Sequence[str],
                           base: int) -> np.ndarray:
        """The codes of :meth:`with_hexside_art`'s copy (read-only)."""
        codes = [c for c, t in self.table.types.items() if t.name in names]
        art = np.zeros((self.width, self.height), dtype=bool)
        for b, dc, dr in self.archives:
            x0, y0 = int(dc * HEX_WIDTH), int(dr * HEX_HEIGHT)
            art[x0 : x0 + b.grid_width, y0 : y0 + b.grid_height] = np.isin(b.terrain, codes)
        best = np.full((self.width, self.height), np.inf, dtype=np.float32)
        fid = np.zeros((self.width, self.height), dtype=np.int32)
        geo = self.geometry
        # a pixel as near to two sides goes to the first in the frame's own order, so that a board read as
        # printed (a turned board's view) gives every pixel to the same wall as the board laid as printed
        for ha, hb, n in sorted(sides, key=lambda s: (min(s[0], s[1]), max(s[0], s[1]))):
            k = next((k for k in range(6) if GridHex(*ha).neighbour(k) == GridHex(*hb)), None)
            if k is None:
                continue
            p0, p1 = geo.hexside_segment(ha[0], ha[1], k)
            xa, xb = max(int(min(p0[0], p1[0]) - reach), 0), min(int(max(p0[0], p1[0]) + reach) + 1, self.width)
            ya, yb = max(int(min(p0[1], p1[1]) - reach), 0), min(int(max(p0[1], p1[1]) + reach) + 1, self.height)
            if xa >= xb or ya >= yb:
                continue
            xs = np.arange(xa, xb, dtype=np.float64)[:, None] + 0.5
            ys = np.arange(ya, yb, dtype=np.float64)[None, :] + 0.5
            dx, dy = p1[0] - p0[0], p1[1] - p0[1]
            t = np.clip(((xs - p0[0]) * dx + (ys - p0[1]) * dy) / (dx * dx + dy * dy), 0.0, 1.0)
            dist = np.hypot(xs - (p0[0] + t * dx), ys - (p0[1] + t * dy)).astype(np.float32)
            near = art[xa:xb, ya:yb] & (dist <= reach) & (dist < best[xa:xb, ya:yb])
            best[xa:xb, ya:yb][near] = dist[near]
            fid[xa:xb, ya:yb][near] = base + n
        drawn = fid > 0
        raster = self._raster.copy()
        raster[drawn] = (fid[drawn] * _CODE_STEP + raster[drawn] % _CODE_STEP).astype(raster.dtype)
        raster.setflags(write=False)
        return raster

    # -- pixel ids: the codes renumbered densely (one byte a pixel when a map draws at most 256 codes), for
    # reading a thread's stretch as bytes
    def _clear_ids(self) -> None:
        self._ids: np.ndarray | None = None   # L zeros, then every pixel's id (flat index j at L + j)
        self._code_of: tuple[int, ...] = ()  # id -> code (empty: the ids are the codes, two bytes each)
        self._sets: dict[bytes, frozenset[int]] = {}  # a stretch's ids -> its codes (bounded)
        self._by_ids: dict[frozenset[int], frozenset[int]] = {}  # a stretch's distinct ids -> its codes
        # a point whose LOS point is a whole pixel: that pixel, and the view of the ids from it on
        self._starts: dict[tuple[float, float], tuple[int, int, np.ndarray]] = {}
        self._kept: tuple[str, int] | None = None  # the user cache's key of the stretches kept, and how many read

    # -- the stretches' codes kept by an earlier process (the user cache, issue 13)
    def warm(self) -> None:
        """A batch begins: read the stretch codes an earlier process kept for this raster's pixel ids."""
        if self._kept is not None:
            return
        self._pixel_ids()
        # a stretch's codes depend only on its ids and the ids' codes (_code_of): every entry kept for the same
        # ids is right whatever the boards; the placements keep one map's stretches together
        k = cache.key("stretch codes", repr(self._code_of), repr(self.placements))
        got = cache.read_value("stretch-codes", k)
        if isinstance(got, dict):
            got.update(self._sets)  # (a stretch's codes are the same whoever read it)
            self._sets = got
        self._kept = (k, len(self._sets))

    def keep(self) -> None:
        """A batch ended: keep the stretch codes read, when enough were new (the first ``_KEPT_STRETCHES``)."""
        # a quarter more than kept (at least 1,000), and not once the entry is full: a batch ruled in chunks
        # rewrites the entry as it grows by a quarter, not after every chunk
        if (self._kept is not None and self._kept[1] < _KEPT_STRETCHES
                and len(self._sets) - self._kept[1] >= max(1000, self._kept[1] // 4)):
            sets = self._sets.copy()  # (another thread may be adding to it)
            if len(sets) > _KEPT_STRETCHES:
                sets = dict(itertools.islice(sets.items(), _KEPT_STRETCHES))
            cache.write_value("stretch-codes", self._kept[0], sets)
            self._kept = (self._kept[0], len(self._sets))

    def _pixel_ids(self) -> np.ndarray:
        ids = self._ids
        if ids is None and self._key is not None:  # kept in the user cache with the pixels
            got = kept.read("artwork", cache.key(self._key, "pixel ids"))
            kept_ids = got[1].get("ids") if got is not None else None
            if kept_ids is not None and kept_ids.shape == (2 * len(self._flat),):
                assert got is not None
                self._code_of = tuple(int(c) for c in got[0]["code_of"])
                ids = self._ids = kept_ids
        if ids is None:
            flat = self._flat
            present = np.flatnonzero(np.bincount(flat, minlength=1))
            if len(present) <= 256:
                dense = np.zeros(int(present[-1]) + 1, dtype=np.uint8)
                dense[present] = np.arange(len(present), dtype=np.uint8)
                self._code_of = tuple(present.tolist())
                body = dense[flat]
            else:
                body = flat.astype(np.uint16)
            # padded in front, so that a view from any start pixel takes the (possibly negative) offsets + L
            ids = np.concatenate([np.zeros(len(flat), dtype=body.dtype), body])
            ids.setflags(write=False)
            self._ids = ids
            if self._key is not None:
                kept.write("artwork", cache.key(self._key, "pixel ids"), {"code_of": list(self._code_of)}, {"ids": ids})
        return ids

    def _id_codes(self, ids: bytes) -> list[int]:
        if self._code_of:
            code_of = self._code_of
            return [code_of[i] for i in ids]
        return cast("list[int]", np.frombuffer(ids, dtype=np.uint16).tolist())

    def _set_of(self, ids: bytes) -> frozenset[int]:
        # the engine sorts a record's codes, so no ruling depends on a set's order; a board's stretches hold
        # only a few hundred distinct sets of ids: each is turned into codes once, and each code set is kept
        # once; the bound is on the stretches
        if self._code_of:
            distinct = frozenset(ids)  # a byte string's members are its ids
        else:
            distinct = frozenset(np.frombuffer(ids, dtype=np.uint16).tolist())
        if len(self._sets) >= _STRETCH_LIMIT:
            self._sets.clear()
            self._by_ids.clear()
        got = self._by_ids.get(distinct)
        if got is None:
            code_of = self._code_of
            got = self._by_ids[distinct] = frozenset([code_of[i] for i in distinct]) if code_of else distinct
        self._sets[ids] = got
        return got

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
        return grid_pixel(point)

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
        ux0, ux1 = int(cx - _SIDE - 2), int(cx + _SIDE + 2) + 1
        uy0, uy1 = int(cy - _HALF_HEIGHT - 2), int(cy + _HALF_HEIGHT + 2) + 1
        x0, x1 = max(ux0, 0), min(ux1, self.width)
        y0, y1 = max(uy0, 0), min(uy1, self.height)
        if x0 >= x1 or y0 >= y1:
            return frozenset()
        inside = _hex_mask(cx - ux0, cy - uy0, ux1 - ux0, uy1 - uy0)[x0 - ux0 : x1 - ux0, y0 - uy0 : y1 - uy0]
        # the codes present, counted (np.unique would sort every pixel and its first call imports numpy.ma)
        return frozenset(np.flatnonzero(np.bincount(self._raster[x0:x1, y0:y1][inside])).tolist())

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
        if not shift and not self._turned:  # two centre pixels met before: their views and the shape's offsets
            s = self._starts.get(p)
            e = self._starts.get(q)
            if s is not None and e is not None:
                offsets = self._offsets.get((e[0] - s[0], e[1] - s[1]))
                if offsets is not None:
                    return ThreadSample(None, len(offsets) - 1, s[2], offsets, self)
        if self._turned:
            view, turn = self.frame_for(p, q)
            if turn is not None:
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
                offsets = self._offsets[key] = (ox * self.height + oy + len(self._flat)).astype(np.intp)
            ids = self._ids if self._ids is not None else self._pixel_ids()
            from_start = ids[int(x0) * self.height + int(y0) :]
            for g, (x, y) in ((p, a), (q, b)):
                if x.is_integer() and y.is_integer() and g not in self._starts:
                    self._starts[g] = (int(x), int(y), from_start if g is p else ids[int(x) * self.height + int(y) :])
            return ThreadSample(None, len(offsets) - 1, from_start, offsets, self)
        n = max(int(math.ceil(max(abs(dx), abs(dy)))), 1)
        steps = np.arange(n + 1, dtype=np.float64)
        xs = np.floor(x0 + steps * (dx / n)).astype(np.intp)
        ys = np.floor(y0 + steps * (dy / n)).astype(np.intp)
        ok = (xs >= 0) & (xs < self.width) & (ys >= 0) & (ys < self.height)
        codes = np.full(xs.shape, _ELEV_BIAS, dtype=np.uint16)
        codes[ok] = self._flat[xs[ok] * self.height + ys[ok]]
        return ThreadSample(cast("list[int]", codes.tolist()), n)


def _resolve_archive(ref: str, base: str) -> Path | str:
    p = Path(ref)
    if not p.is_absolute() and base and (Path(base) / p).exists():
        return Path(base) / p
    if p.exists():
        return p
    return ref  # an archive name, looked up in the VASL data directory by read_board


def load_artwork(depiction: Any, ssr_images: Sequence[str] = ()) -> ArtworkRaster:
    """The :class:`ArtworkRaster` of a map's ``[depiction]`` (a :class:`asl_terrain.model.Depiction`):
    its boards' archives read (paths relative to the map file, or archive names in the VASL data
    directory) and placed. Read anew on each call: :func:`map_artwork` keeps it with its map.

    :param ssr_images: SSR switches whose images each board has (``no-roads``: its ``NoRoads``) are laid
        on it, after its overlays (:func:`asl_terrain.overlays.lay_ssr_images`).

    The combined raster of boards without overlays, images or turns is kept in the user cache (keyed by the
    archives' and the terrain table's bytes, :mod:`asl_terrain.vasl.kept`): read back, its boards are read
    only when something asks for them (:attr:`ArtworkRaster.archives`).

    :raises MapError: an archive or the terrain table cannot be found or read.
    """
    plain = _plain_boards(depiction) if not ssr_images else None
    if plain is not None:
        got = _kept_artwork(*plain)
        if got is not None:
            return _with_ssr(got, tuple(getattr(depiction, "ssr", ())))
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
        if ssr_images:
            from asl_terrain.overlays import lay_ssr_images  # the board as the SSR leaves it, drawn by VASL

            archive = lay_ssr_images(archive, ssr_images, table)
        boards.append((TurnedBoard(archive) if getattr(b, "flipped", False) else archive, b.column, b.row))
    raster = ArtworkRaster(boards, table)
    # a board read from its artwork colours (the KGP maps) depends on its annotations too: not kept
    if plain is not None and all(type(a) is BoardArchive for a, _, _ in boards):
        _keep_artwork(raster, plain[0])
    return _with_ssr(raster, tuple(getattr(depiction, "ssr", ())))


_Placed = tuple[Path, int, int]


def _plain_boards(depiction: Any) -> tuple[str, list[_Placed], Path | None] | None:
    """The cache key of a depiction's combined raster, its boards' archives (path, column, row) and its
    terrain table (None: the data directory's); None when it is not kept (the cache off, a board with
    overlays or turned 180°, an archive or table not found: the plain path says what is wrong)."""
    if cache.cache_dir() is None:
        return None
    from .archive import _resolve_board_path

    try:
        table = (Path(_resolve_archive(depiction.terrain_table, depiction.base)) if depiction.terrain_table
                 else None)
        parts = [cache.file_key(terrain_table_file(table), "vasl terrain table")]
        files: list[_Placed] = []
        for b in depiction.boards:
            if getattr(b, "overlays", ()) or getattr(b, "flipped", False):
                return None
            f = _resolve_board_path(_resolve_archive(b.archive, depiction.base))
            files.append((f, int(b.column), int(b.row)))
            parts.append(f"{cache.file_key(f, 'vasl board')}@{b.column},{b.row}")
    except (MapError, OSError):
        return None
    return cache.key("map artwork", *parts), files, table


class _KeptBoards(Sequence[tuple[BoardArchive, int, int]]):
    """The boards of a raster read back from the user cache: read (from the boards' cache) when first asked
    for, by what needs more than the combined raster (a picture of the boards, a cross-check, walls drawn)."""

    def __init__(self, files: list[_Placed]) -> None:
        self.files = files
        self._boards: tuple[tuple[BoardArchive, int, int], ...] | None = None

    def _read(self) -> tuple[tuple[BoardArchive, int, int], ...]:
        if self._boards is None:
            self._boards = tuple((read_board(f), dc, dr) for f, dc, dr in self.files)
        return self._boards

    def __len__(self) -> int:
        return len(self.files)

    def __getitem__(self, i: Any) -> Any:
        return self._read()[i]


def _kept_artwork(key: str, files: list[_Placed], table: Path | None) -> ArtworkRaster | None:
    """The raster kept for ``key`` (:func:`_keep_artwork`), or None."""
    got = kept.read("artwork", key)
    if got is None:
        return None
    head, arrays = got
    try:
        comb = arrays["codes"]
        features = tuple(dict(f) for f in head["features"])
        placements = tuple((str(n), int(dc), int(dr)) for n, dc, dr in head["placements"])
        geometries = [(BoardGeometry(*(int(x) for x in g)), int(dc), int(dr)) for g, dc, dr in head["boards"]]
    except (KeyError, TypeError, ValueError):
        return None
    if len(geometries) != len(files) or comb.ndim != 2 or comb.dtype != np.uint16:
        return None
    raster = ArtworkRaster.__new__(ArtworkRaster)
    raster._setup(load_terrain_table(table), features, placements, _KeptBoards(files), comb, geometries)
    raster._key = key
    return raster


def _keep_artwork(raster: ArtworkRaster, key: str) -> None:
    g = [((a.geometry.width, a.geometry.height, a.geometry.grid_width, a.geometry.grid_height), dc, dr)
         for a, dc, dr in raster.archives]
    kept.write("artwork", key, {"features": list(raster.features), "placements": list(raster.placements),
                                "boards": g}, {"codes": raster._raster})
    raster._key = key


def _with_ssr(raster: ArtworkRaster, switches: tuple[str, ...]) -> ArtworkRaster:
    # SSR switches change what the artwork's features count as (asl_terrain.ssr); the pixels stay shared
    if not switches:
        return raster
    from asl_terrain import ssr

    out = copy.copy(raster)
    out._key = None  # not kept: what the switches make of the pixels is worked out anew
    out.features = tuple(ssr.apply_feature(f, switches) for f in raster.features)
    levels = ssr.elevation_map(switches)
    if levels:  # hills of one level drawn as another (VASL's LevelNToLevelM): every pixel's ground level
        out._raster = _relevel(raster._raster, levels)
        out._flat = out._raster.reshape(-1)
        out._hex_codes = {}
        out._clear_ids()
        out._turned = [(*t[:8], _with_ssr(t[8], switches)) for t in raster._turned]
    return out


def _relevel(codes: np.ndarray, levels: Mapping[int, int]) -> np.ndarray:
    """Depiction codes with each ground level changed as ``levels`` says (the feature kept)."""
    elev = (codes % _CODE_STEP).astype(np.int32) - _ELEV_BIAS
    out = codes.astype(np.int32)
    for a, b in levels.items():
        out[elev == a] += b - a
    relevelled = out.astype(codes.dtype)
    relevelled.setflags(write=False)
    return relevelled


def map_artwork(m: Map) -> ArtworkRaster:
    """The :class:`ArtworkRaster` of map ``m``'s ``[depiction]``, read once and kept with the map
    (:meth:`asl_terrain.model.Map.derived`)."""
    from asl_terrain.ssr import VASL_NAMES

    # switches a board may have an image of (VASL's SSR images): the boards are read with them laid
    imaged = tuple(n for n in m.conditions.ssr if n in VASL_NAMES.values())
    if imaged:
        return m.derived(("vasl.artwork",), lambda: _with_ssr(load_artwork(m.depiction, imaged), m.depiction.ssr))
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

