"""The map the engines read: :class:`Map`, :class:`HexTerrain`, :class:`HexsideTerrain`, :class:`Counter`
and :class:`Location`.

A :class:`Map` is built once from a map file (:mod:`asl_terrain.mapfile`) and then only read. It derives
what the format leaves unwritten (map-format.md "Defaults that need no writing"): Crest Line hexsides
from differing Base Levels, stream and culvert hexsides between stream (culvert) hexes, building types.
It knows which Locations each hex has (B23, P4.2, P5.2, P5.3) and parses and prints their names.

Imports: errors, grid, ssr, cache, mapfile (when a file is validated). Never an engine.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Hashable
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Iterator, Literal, Mapping, NamedTuple, TypeVar

from . import ssr
from .errors import AslTerrainError, BadName, MapError, NotAdjacent, UnknownLocation
from .grid import Grid, Hex, Hexside, Naming, Vertex, naming, parse_hex_name

if TYPE_CHECKING:
    from .chart import Chart
    from .mapfile import MapFile

# mapfile (pydantic) is imported where a file is validated, not at start-up: a map read back from the
# cache (asl_terrain.cache) needs neither (issue 13, instant start)

Place = Literal["", "rooftop", "crest", "culvert", "under"]
_T = TypeVar("_T")
_K = TypeVar("_K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Conditions:
    """Month, weather and frigid water (map-format.md [conditions]); a query may override them."""

    month: int = 6
    weather: str = "clear"
    frigid: bool = False
    ssr: tuple[str, ...] = ()  # SSR switches in force (asl_terrain.ssr): the map's and the query's

    def updated(self, overrides: dict[str, Any] | None) -> Conditions:
        """These conditions with a query's ``conditions`` object applied (validated as in the map file); a
        query's ``ssr`` switches are added to the map's."""
        if not overrides:
            return self
        merged = {"month": self.month, "weather": self.weather, "frigid": self.frigid, **overrides}
        merged["ssr"] = [*self.ssr, *(overrides.get("ssr") or [])] if isinstance(overrides.get("ssr", []), list) \
            else overrides["ssr"]
        from pydantic import ValidationError

        from .mapfile import ConditionsModel

        try:
            m = ConditionsModel.model_validate(merged)
        except ValidationError as e:
            from .chart import WEATHERS
            from .errors import QueryError

            raise QueryError(f"conditions: {e.errors()[0]['msg']}; expected month 1-12, weather one of "
                             f"{', '.join(WEATHERS)}, frigid true/false, ssr a list of SSR switches") from None
        try:
            switches = ssr.checked(m.ssr, "conditions.ssr")
        except MapError as e:
            from .errors import QueryError

            raise QueryError(str(e)) from None
        return Conditions(m.month, m.weather, m.frigid, switches)

    def in_season(self, what: str, by_month: bool) -> bool:
        """Whether orchards or grain (``what``) are in season: as the month says (``by_month``), unless an
        SSR switch says otherwise (B14.2, B15.2)."""
        forced = ssr.season(self.ssr, what)
        return by_month if forced is None else forced

    def grain_in_season(self, chart: Chart) -> bool:
        """Grain is in season in the chart's months (``param.grain_season``) unless an SSR switch says
        otherwise; out of season it is Open Ground (B15.3, B15.4)."""
        return self.in_season("grain", self.month in chart.param("grain_season").value)


@dataclass(frozen=True, slots=True)
class HexTerrain:
    """What one hex holds (after the map file's blocks are applied in order)."""

    hex: Hex
    terrain: str = "open"
    level: int = 0
    building: str | None = None
    building_type: str | None = None
    upper_levels: int = 0
    steeple: bool = False
    building_id: str | None = None
    stairwell: bool = False
    stream: str | None = None
    culvert: bool = False
    ford: bool = False
    offboard: bool = False
    bridge: str | None = None  # B6: "stone" | "wooden", a bridge over this stream hex
    bridge_level: int | None = None  # B6.2: the deck's level (the road it carries); None: the Crest level

    @property
    def base_level(self) -> int:
        """The Base Level: the hill (or Crest) level of the hex, not changed by slopes (P2.3)."""
        return self.level

    @property
    def is_building(self) -> bool:
        return self.terrain == "building"

    @property
    def chart_key(self) -> str:
        """The chart entry of its terrain: a building or rubble hex by its material (B23.3, B24.3)."""
        return material_key(self.terrain, self.building)

    @property
    def is_stream(self) -> bool:
        return self.stream is not None

    def is_in_stream(self, place: str) -> bool:
        """Whether a ground Location with ``place`` is IN the stream: the base Location of a stream hex, or
        in a bridge hex the Location under the bridge (B6: a unit in a bridge hex is on the bridge unless
        it is placed beneath it)."""
        if not self.is_stream:
            return False
        return place == "under" if self.bridge is not None else place == ""

    @property
    def deck_level(self) -> int:
        """The level of the bridge Location in a bridge hex: the level of the road the bridge connects to
        (B6.2), given by ``bridge_level``, else the Crest level."""
        return self.bridge_level if self.bridge_level is not None else self.level

    @property
    def in_level(self) -> int:
        """The level of a Location IN the stream: one below the Crest level (map-format.md)."""
        return self.level - 1 if self.is_stream else self.level

    @property
    def building_levels(self) -> int:
        """Building Locations above ground, steeple excluded (B23.22, P5.3, multi-level ``upper_levels``)."""
        if not self.is_building:
            return 0
        if self.building_type in ("two-story-house", "single-hex-two-story-house"):
            return 1
        if self.building_type == "multi-level":
            return self.upper_levels
        return 0

    @property
    def steeple_level(self) -> int | None:
        """The Steeple Location's level: one above the highest other building Location (P5.2)."""
        return self.building_levels + 1 if (self.is_building and self.steeple) else None

    @property
    def top_level(self) -> int:
        """The highest building level of this hex, the steeple included (0 for no building)."""
        s = self.steeple_level
        return s if s is not None else self.building_levels

    @property
    def has_rooftop(self) -> bool:
        """Rooftop Location (B23.8): none on single-story houses (B23.21), single-hex two-story houses
        (P5.3), or in a steeple hex (P5.2)."""
        return (self.is_building and not self.steeple
                and self.building_type not in ("single-story-house", "single-hex-two-story-house"))

    @property
    def has_stairwell(self) -> bool:
        """A stairwell links the building levels: as mapped, or inherent (P5.2 steeple, P5.3 house)."""
        return self.is_building and (self.stairwell or self.steeple
                                     or self.building_type == "single-hex-two-story-house")


def seasonal_terrain(terrain: str, grain_in_season: bool) -> str:
    """The terrain a hex's ``terrain`` counts as in its season: grain out of season is Open Ground (B15.3,
    B15.4; the season is :meth:`Conditions.grain_in_season`)."""
    return "open" if terrain == "grain" and not grain_in_season else terrain


def material_key(terrain: str, building: str | None) -> str:
    """The chart entry of building or rubble ``terrain`` of material ``building``: wooden ones have entries
    of their own, stone (the default when the map does not say) the plain ones (B23.3, B24.3)."""
    if building == "wooden" and terrain in ("building", "rubble"):
        return f"{terrain}-wooden"
    return terrain


@dataclass(frozen=True, slots=True)
class HexsideTerrain:
    """What lies on one hexside, written or derived."""

    hexside: Hexside
    road: str | None = None
    narrow_street: str | None = None
    slope: Hex | None = None
    fence: bool = False
    wall: bool = False
    hedge: bool = False
    bocage: bool = False  # B9.5: a hedge on an earth bank; a one-level LOS obstacle (B9.52)
    rowhouse_wall: bool = False  # B23.71: the wall between two rowhouse hexes; blocks LOS and movement
    cliff: bool = False  # B11: a near-vertical hillside; no crossing without Climbing
    stream: bool = False
    culvert: bool = False
    crest: bool = False

    @property
    def is_road(self) -> bool:
        """A road depiction crosses it (B3.1) or overprints it (a Narrow Street is a road, P5.1)."""
        return self.road is not None or self.narrow_street is not None

    def down_slope(self, h: Hex) -> bool:
        """True when ``h`` is Down-Slope across this slope hexside (hash marks in ``h``, P2.2)."""
        return self.slope == h

    def up_slope(self, h: Hex) -> bool:
        """True when ``h`` is Up-Slope across this slope hexside (hash marks in the other hex, P2.2)."""
        return self.slope is not None and self.slope != h and h in self.hexside.hexes


@dataclass(frozen=True, slots=True)
class Counter:
    """A counter on the map: SMOKE, residual FP, mines, roadblock, wreck, vehicle, rubble, blaze, entrenchment,
    Wire."""

    type: str
    at: Hex | None = None
    hexside: Hexside | None = None
    strength: int = 0
    fp: int = 0
    kind: str | None = None
    hidden: bool = False
    arrow: Vertex | None = None
    bypass: Hexside | None = None
    burning: bool = False
    immobile: bool = False
    name: str | None = None  # a vehicle's or wreck's name
    facing: int | None = None  # VASL's facing index of a vehicle or wreck
    smoke_kind: str | None = None  # "smoke", "wp", "dispersed-smoke", "dispersed-wp"


@dataclass(frozen=True, slots=True)
class PlacedUnit:
    """A unit on the map (``[[unit]]``): its name, kind (squad, half-squad, crew, leader, smc, sw, gun,
    vehicle), side, and Location; ``at`` None for a unit off the map, waiting to enter."""

    name: str
    kind: str
    side: str = ""
    at: Location | None = None


@dataclass(frozen=True, slots=True)
class Location:
    """A Location, or a Bypass position, as map-format.md names them.

    ``level`` is the building level (0 = ground; the steeple is the level above the highest building
    Location); ``place`` is ``""`` (the hex's base Location: ground level, or IN the stream in a stream
    hex), ``"rooftop"``, ``"crest"`` or ``"culvert"``. A Bypass position has ``bypass`` (the hexside
    along which the unit bypasses) or ``vertex`` (where its LOS is traced, A4.34), or both.
    """

    hex: Hex
    level: int = 0
    place: Place = ""
    bypass: Hexside | None = None
    vertex: Vertex | None = None

    @property
    def is_bypass(self) -> bool:
        return self.bypass is not None or self.vertex is not None

    @property
    def is_ground(self) -> bool:
        """The hex's base Location, not in Bypass."""
        return self.level == 0 and self.place == "" and not self.is_bypass

    def text(self, prefix: str | Naming = "") -> str:
        """The canonical name: with the map's prefix once at the start, or named as a :class:`Naming`
        names hexes (on a layout, by board: ``2K5/1``, ``2K5@2K5-2K6``)."""
        n = naming(prefix)
        s = n.hex(self.hex)
        if self.place:
            s += "/" + self.place
        elif self.level:
            s += f"/{self.level}"
        if self.vertex is not None:
            s += "@" + n.after_at(self.vertex)
        elif self.bypass is not None:
            s += "@" + n.after_at(self.bypass)
        return s

    def __str__(self) -> str:
        return self.text()

    def base(self) -> Location:
        """The same Location without any Bypass position."""
        return Location(self.hex, self.level, self.place)


@dataclass(frozen=True, slots=True)
class BoardPlacement:
    """One board of an artwork depiction: its archive, its own hex prefix, where it lies on the map grid
    (the map column of its column A, the map row of its row 0) and its size in hexes."""

    archive: str
    prefix: str = ""
    column: int = 0
    row: int = 0
    columns: int = 33
    rows: int = 10
    flipped: bool = False
    overlays: tuple[str, ...] = ()  # VASL overlays laid on the board ("ovr1 F5 F4")

    def contains(self, local: Hex) -> bool:
        """Whether a hex in the board's own coordinates is on the board (odd columns also hold row 0)."""
        return 0 <= local.col < self.columns and (0 if local.col % 2 else 1) <= local.row <= self.rows

    def _turned(self, h: Hex) -> Hex:
        # 180° about the board's centre: in grid.py's scaled y (2 * row + col % 2) the centres span
        # 1 .. 2 * rows + 1, so y turns into 2 * rows + 2 - y (its own inverse)
        c = self.columns - 1 - h.col
        return Hex(c, (2 * self.rows + 2 - 2 * h.row - h.col % 2 - c % 2) // 2)

    def to_map(self, local: Hex) -> Hex:
        """The map hex of the board's own hex ``local`` (a flipped board's A1 is at its lower right)."""
        h = self._turned(local) if self.flipped else local
        return Hex(h.col + self.column, h.row + self.row)

    def from_map(self, h: Hex) -> Hex | None:
        """The board's own hex at map hex ``h``, or None when ``h`` is not on this board."""
        local = Hex(h.col - self.column, h.row - self.row)
        if self.flipped:
            local = self._turned(local)
        return local if self.contains(local) else None


class BoardNaming(Naming):
    """Names on a layout of boards, as players say them: each hex by its board's prefix and the hex's
    name printed on that board (``2K5``; hexsides ``2K5-2K6``, vertices ``2K5-2K6-2L6``, Locations
    ``2K5/1`` and ``2K5@2K5-2K6``). Where two boards' half hexes are merged into one hex (A2.2), the
    hex is named by the board that comes first in the layout (the upper board, then the left one):
    ``1GG5``, which ``2A5`` also names. A hex on no board keeps its name on the map's grid."""

    __slots__ = ("boards", "_cache")

    def __init__(self, prefix: str, boards: tuple[BoardPlacement, ...]) -> None:
        super().__init__(prefix)
        self.boards = tuple(b for b in boards if b.prefix)
        self._cache: dict[tuple[int, int], str] = {}  # by plain coordinates: a Hex's own hash is Python code

    def hex(self, h: Hex) -> str:
        k = (h.col, h.row)
        got = self._cache.get(k)
        if got is None:
            for b in self.boards:
                local = b.from_map(h)
                if local is not None:
                    got = b.prefix + local.name
                    break
            else:
                got = self.prefix + h.name
            self._cache[k] = got
        return got

    def hexside(self, hs: Hexside) -> str:
        return f"{self.hex(hs.a)}-{self.hex(hs.b)}"

    def vertex(self, v: Vertex) -> str:
        return f"{self.hex(v.a)}-{self.hex(v.b)}-{self.hex(v.c)}"

    def after_at(self, x: Hexside | Vertex) -> str:
        return self.hexside(x) if isinstance(x, Hexside) else self.vertex(x)

    def __repr__(self) -> str:
        return f"BoardNaming({self.prefix!r}, {', '.join(b.prefix for b in self.boards)})"


class SharedCache(Generic[_K, _T]):
    """A bounded cache that threads share: the value of a key is made (outside the lock) the first time it
    is asked for and published under the lock, the first one made winning, so every thread gets the same
    value; at most ``limit`` values are kept (the oldest goes first). The caches of one map live in
    :meth:`Map.derived`, so they go when the map goes."""

    __slots__ = ("_lock", "_values", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = max(limit, 1)
        self._lock = threading.Lock()
        self._values: dict[_K, _T] = {}

    def get(self, key: _K, make: Callable[[], _T]) -> _T:
        """The value kept under ``key``, made by ``make()`` when there is none."""
        got = self._values.get(key)
        if got is None:
            value = make()
            with self._lock:
                got = self._values.get(key)
                if got is None:
                    while len(self._values) >= self.limit:
                        self._values.pop(next(iter(self._values)))
                    self._values[key] = got = value
        return got

    def __len__(self) -> int:
        return len(self._values)


@dataclass(frozen=True, slots=True)
class Depiction:
    """How the hexes' terrain is depicted for LOS (A6.1): ``"whole-hex"`` (hand-made maps), or ``"vasl"``:
    the artwork of VASL board archives (paths relative to ``base``, the map file's directory)."""

    kind: str = "whole-hex"
    boards: tuple[BoardPlacement, ...] = ()
    terrain_table: str | None = None
    base: str = ""
    ssr: tuple[str, ...] = ()  # SSR switches that change what the artwork's features count as

    @property
    def follows_artwork(self) -> bool:
        return self.kind == "vasl" and bool(self.boards)


_LOC_RE = re.compile(r"^(?P<hex>[^/@\s]+)(?:/(?P<sub>[A-Za-z0-9]+))?(?:@(?P<at>[^\s]+))?$")


#: a map built with this many hexes settles the garbage collector at load (Map.__init__)
SETTLE_HEXES = 100_000


class Map:
    """A map, frozen after construction. Build it with :meth:`load` or :meth:`from_data`.

    Every hex of the grid exists (open ground at level 0 unless the file says otherwise).
    """

    def __init__(self, name: str, prefix: str, grid: Grid, conditions: Conditions,
                 hexes: dict[Hex, HexTerrain], hexsides: dict[Hexside, HexsideTerrain],
                 counters: tuple[Counter, ...], source: str = "<map>",
                 depiction: Depiction | None = None, units: tuple[PlacedUnit, ...] = ()) -> None:
        self.depiction = depiction if depiction is not None else Depiction()
        self.not_carried: tuple[str, ...] = ()  # what an import left out of the map (the file's not_carried)
        self.units = units
        self.ssr_parent: Map | None = None  # the map these SSR switches were applied to (Map.with_ssr)
        self._board_prefixes = {b.prefix: b for b in self.depiction.boards if b.prefix}
        # a layout (no map prefix, boards with their own) names hexes by board; a single board keeps 1Y10
        self.names: Naming = (BoardNaming(prefix, self.depiction.boards) if self._board_prefixes and not prefix
                              else Naming(prefix))
        self.name = name
        self.prefix = prefix
        self.grid = grid
        self.conditions = conditions
        self._hexes = hexes
        self._written_hexsides = hexsides
        self._hexsides: dict[Hexside, HexsideTerrain] = {}
        self.counters = counters
        self.source = source
        self._by_hex: dict[Hex, tuple[Counter, ...]] = {}
        acc: dict[Hex, list[Counter]] = {}
        for c in counters:
            for h in ([c.at] if c.at is not None else list(c.hexside.hexes) if c.hexside is not None else []):
                acc.setdefault(h, []).append(c)
        self._by_hex = {h: tuple(v) for h, v in acc.items()}
        self._derived: dict[Hashable, Any] = {}
        self._derived_lock = threading.RLock()
        # read here, once, so that an engine's first question does not scan a big map (issue 13 item 2)
        self._stream_hexes = tuple(h for h, t in hexes.items() if t.stream is not None)
        walled, other = [], []
        for hs, st in hexsides.items():
            if st.wall or st.hedge or st.bocage:
                walled.append((hs, st, hexes.get(hs.a), hexes.get(hs.b)))
            if st.narrow_street is not None or st.cliff or st.rowhouse_wall or st.slope is not None:
                other.append((hs, st))
        self._walled_hexsides = tuple(walled)
        self._other_hexsides = tuple(other)
        if len(hexes) >= SETTLE_HEXES:
            # a map of this many hexes is built of ~a million new objects; the cyclic collector's first full
            # pass over them (~0.3 s) is paid here, at load, not by whatever question comes first
            import gc

            gc.collect()

    # ------------------------------------------------------------------ construction
    @classmethod
    def load(cls, path: str | Path) -> Map:
        """Load a map file (TOML, or JSON by suffix). :raises MapError: naming the file.

        A map loaded before (the same bytes, in the same folder, by the same code) is read back from the
        user's cache (:mod:`asl_terrain.cache`) instead of being decoded and validated again."""
        p = Path(path)
        try:
            raw = p.read_bytes()
        except OSError:
            raw = None  # read_map_document says what is wrong
        k = _cache_key(p, raw) if raw is not None else None
        if k is not None:
            got = _from_cache(k, str(p))
            if got is not None:
                return got
        from .mapfile import read_map_document

        m = cls.from_data(read_map_document(p), source=str(p))
        if k is not None:
            _to_cache(k, m)
        return m

    @classmethod
    def from_data(cls, data: Any, source: str = "<map>") -> Map:
        """Build a map from a decoded document (the dict TOML or JSON gives)."""
        from .mapfile import parse_map_data

        mf, grid = parse_map_data(data, source)
        return _build(mf, grid, source)

    def __getstate__(self) -> dict[str, Any]:
        # what an engine derived, and the lock guarding it, belong to this process (Map.derived)
        state = dict(self.__dict__)
        state["_derived"] = {}
        del state["_derived_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._derived_lock = threading.RLock()

    def with_counters(self, counters: tuple[Counter, ...]) -> Map:
        """The same map with other counters on it (terrain, conditions and depiction unchanged)."""
        new = Map(self.name, self.prefix, self.grid, self.conditions, dict(self._hexes), self._written_hexsides,
                  counters, self.source, depiction=self.depiction, units=self.units)
        new._default = self._default
        new.not_carried = self.not_carried
        return new

    def derived(self, key: Hashable, build: Callable[[], _T], limit: int = 16) -> _T:
        """A value an engine derives from this map (its LOS tables, a board's artwork raster), built once per
        ``key`` by ``build()`` and kept with the map: the map owns its caches, so they go when it goes. At most
        ``limit`` values are kept (the oldest is dropped). Thread-safe: a value is built once even when several
        threads ask for it at the same time."""
        got = self._derived.get(key)
        if got is None:
            with self._derived_lock:
                got = self._derived.get(key)
                if got is None:
                    got = build()
                    while len(self._derived) >= max(limit, 1):
                        self._derived.pop(next(iter(self._derived)))
                    self._derived[key] = got
        return got

    def with_ssr(self, names: Any) -> Map:
        """The same map with SSR switches (asl_terrain.ssr) in force: terrain switches rewrite its hexes,
        hexsides and artwork features, season switches go into its conditions. Switches already in force
        are not applied twice. :raises MapError: an unknown switch, or contradicting ones."""
        new_names = ssr.checked([*self.conditions.ssr, *names])
        todo = [n for n in new_names if n not in self.conditions.ssr]
        if not todo:
            return self
        maps: SharedCache[tuple[str, ...], Map] = self.derived(("map.ssr",), partial(SharedCache, 16))
        return maps.get(new_names, lambda: self._switched(new_names, todo))

    def _switched(self, new_names: tuple[str, ...], todo: list[str]) -> Map:
        """The map with SSR switches ``todo`` applied (``new_names``: all those then in force)."""
        fields = ("terrain", "level", "building", "building_type", "upper_levels", "steeple", "building_id",
                  "stairwell", "stream", "culvert", "ford", "offboard")
        hexes: dict[Hex, HexTerrain] = {}
        for h in self.hexes():
            t = self.terrain(h)
            keys = {f: getattr(t, f) for f in fields}
            changed = ssr.apply_keys(keys, "hex", todo)
            hexes[h] = replace(t, **changed) if changed != keys else t
        sides: dict[Hexside, HexsideTerrain] = {}
        for hs, st in self._written_hexsides.items():
            keys = {f: getattr(st, f) for f in ("road", "wall", "hedge", "bocage", "cliff", "slope")}
            changed = ssr.apply_keys(keys, "hexside", todo)
            sides[hs] = replace(st, **changed) if changed != keys else st
        cond = replace(self.conditions, ssr=new_names)
        depiction = replace(self.depiction, ssr=tuple(n for n in new_names
                                                      if ssr.SWITCHES[n].feature or ssr.SWITCHES[n].elevation))
        new = Map(self.name, self.prefix, self.grid, cond, hexes, sides, self.counters, self.source, depiction,
                  self.units)
        new._default = self._default
        new.not_carried = self.not_carried
        new.ssr_parent = self  # the artwork's pixels are the parent's (vasl.map_artwork)
        return new

    # ------------------------------------------------------------------ hexes and hexsides
    def __contains__(self, h: object) -> bool:
        return isinstance(h, Hex) and h in self.grid

    def hexes(self) -> Iterator[Hex]:
        """Every hex of the map, column by column."""
        for c in range(self.grid.col_first, self.grid.col_last + 1):
            for r in range(self.grid.row_first, self.grid.row_last + 1):
                yield Hex(c, r)

    def __len__(self) -> int:
        g = self.grid
        return (g.col_last - g.col_first + 1) * (g.row_last - g.row_first + 1)

    def terrain(self, h: Hex) -> HexTerrain:
        """The terrain of hex ``h``. :raises UnknownLocation: when ``h`` is off the map."""
        t = self._hexes.get(h)
        if t is None:
            if h not in self.grid:
                raise UnknownLocation(f"hex {self.names.hex(h)} is not on map {self.name!r} "
                                      f"({self.grid.describe()})")
            t = self._default
            t = replace(t, hex=h)
            self._hexes[h] = t
        return t

    def hexside(self, hs: Hexside) -> HexsideTerrain:
        """What lies on ``hs``, written or derived (Crest Line, stream and culvert defaults)."""
        t = self._hexsides.get(hs)
        if t is None:
            t = self._derive_hexside(hs)
            self._hexsides[hs] = t
        return t

    def _derive_hexside(self, hs: Hexside) -> HexsideTerrain:
        a, b = hs.hexes
        ta = self.terrain(a) if a in self.grid else None
        tb = self.terrain(b) if b in self.grid else None
        crest = ta is not None and tb is not None and ta.level != tb.level
        stream = bool(ta and tb and ta.is_stream and tb.is_stream)
        culvert = bool(ta and tb and ta.culvert and tb.culvert)
        w = self._written_hexsides.get(hs)
        if w is None:
            return HexsideTerrain(hs, stream=stream, culvert=culvert, crest=crest)
        return replace(
            w,
            stream=stream if w.stream is None else w.stream,
            culvert=culvert if w.culvert is None else w.culvert,
            crest=crest if w.crest is None else w.crest,
        )

    def is_crest_line(self, hs: Hexside) -> bool:
        """A Crest Line hexside: its hexes differ in Base Level, unless the file says otherwise (B10.11)."""
        return self.hexside(hs).crest

    def neighbours(self, h: Hex) -> tuple[Hex, ...]:
        """The on-map neighbours of ``h``."""
        return tuple(n for n in h.neighbours() if n in self.grid)

    def hexsides_of(self, h: Hex) -> tuple[HexsideTerrain, ...]:
        """The six hexsides of ``h`` in direction order (N, NE, SE, S, SW, NW)."""
        return tuple(self.hexside(hs) for hs in h.hexsides())

    # ------------------------------------------------------------------ counters
    def units_at(self, loc: Location) -> tuple[PlacedUnit, ...]:
        """The units (``[[unit]]``) in Location ``loc`` (a Bypass position counts as its Location)."""
        base = loc.base()
        return tuple(u for u in self.units if u.at is not None and u.at.base() == base)

    def stream_hexes(self) -> tuple[Hex, ...]:
        """The hexes the map writes as stream hexes (B20), in the map's order."""
        return self._stream_hexes

    def walled_hexsides(self) -> tuple[tuple[Hexside, HexsideTerrain, HexTerrain | None, HexTerrain | None], ...]:
        """The written hexsides with a wall, hedge or bocage (B9), in the map's order, each with the written
        terrain of its two hexes (None: not written; the hex is the default terrain, or off the map)."""
        return self._walled_hexsides

    def written_hexsides_with(self) -> tuple[tuple[Hexside, HexsideTerrain], ...]:
        """The written hexsides with a Narrow Street, cliff, rowhouse wall or slope, in the map's order."""
        return self._other_hexsides

    def counters_at(self, h: Hex) -> tuple[Counter, ...]:
        """Counters in hex ``h`` (a roadblock counts in both hexes of its hexside)."""
        by_hex = self._by_hex
        return by_hex.get(h, ()) if by_hex else ()  # most maps hold none: no hashing of the hex then

    def smoke(self, h: Hex) -> int:
        """The strongest SMOKE in ``h`` (0 for none)."""
        if not self._by_hex:
            return 0  # most maps hold no counter: asked for every move a search weighs
        return max((c.strength for c in self.counters_at(h) if c.type == "smoke"), default=0)

    def residual_fp(self, h: Hex) -> int:
        return max((c.fp for c in self.counters_at(h) if c.type == "residual-fp"), default=0)

    def mines(self, h: Hex) -> tuple[Counter, ...]:
        return tuple(c for c in self.counters_at(h) if c.type == "mines" and c.at == h)

    def has_counter(self, h: Hex, type_: str) -> bool:
        if not self._by_hex:
            return False  # most maps hold no counter: asked for every move a search weighs
        return any(c.type == type_ and c.at == h for c in self.counters_at(h))

    def is_rubble(self, h: Hex) -> bool:
        """Rubble is in ``h``: rubble terrain, or a Rubble counter (B24)."""
        return self.terrain(h).terrain == "rubble" or self.has_counter(h, "rubble")

    def roadblock(self, hs: Hexside) -> Counter | None:
        """The roadblock counter on ``hs``, if any."""
        if not self._by_hex:
            return None  # most maps hold no counter: asked for every move a search weighs
        for c in self.counters_at(hs.hexes[0]):
            if c.type == "roadblock" and c.hexside == hs:
                return c
        return None

    def vehicles(self, h: Hex) -> tuple[Counter, ...]:
        """Vehicles and wrecks in ``h``."""
        if not self._by_hex:
            return ()  # most maps hold no counter: asked for every move a search weighs
        return tuple(c for c in self.counters_at(h) if c.type in ("vehicle", "wreck") and c.at == h)

    # ------------------------------------------------------------------ Locations
    def locations(self, h: Hex) -> tuple[Location, ...]:
        """Every Location of hex ``h``: the base Location, building levels (steeple included), rooftop,
        Crest status in a stream hex, the Stream Culvert."""
        t = self.terrain(h)
        locs = [Location(h)]
        locs += [Location(h, lv) for lv in range(1, t.top_level + 1)]
        if t.has_rooftop:
            locs.append(Location(h, 0, "rooftop"))
        if t.is_stream:
            locs.append(Location(h, 0, "crest"))
        if t.bridge is not None and t.is_stream:
            locs.append(Location(h, 0, "under"))
        if t.culvert:
            locs.append(Location(h, 0, "culvert"))
        return tuple(locs)

    def check_location(self, loc: Location) -> Location:
        """``loc`` if it exists on this map; else :class:`UnknownLocation` saying which do."""
        t = self.terrain(loc.hex)
        if loc.base() not in self.locations(loc.hex):
            have = ", ".join(x.text(self.names) for x in self.locations(loc.hex))
            raise UnknownLocation(f"Location {loc.base().text(self.names)} does not exist; "
                                  f"hex {self.names.hex(loc.hex)} ({_describe(t)}) has: {have}")
        return loc

    def parse_hex(self, text: str) -> Hex:
        """A hex on this map from its name, with or without the map's prefix."""
        text = text.strip()
        if len(self.prefix) == 1 and text.startswith(self.prefix):
            # a one-letter prefix ("Q") cannot be told from a column by the grammar: strip it when the
            # rest names a hex ("QC1" on map "Q" is C1)
            try:
                if parse_hex_name(text[1:])[0] == "":
                    return self._parse_hex(text[1:])
            except (BadName, UnknownLocation):
                pass
        return self._parse_hex(text)

    def _parse_hex(self, text: str) -> Hex:
        try:
            prefix, h = parse_hex_name(text.strip())
        except BadName:
            raise BadName(f"{text!r} is not a hex name; expected a column and row such as "
                          f"'{self.prefix}N17'") from None
        if prefix and prefix != self.prefix:
            board = self._board_prefixes.get(prefix)
            if board is None:
                raise UnknownLocation(f"hex {text!r} has prefix {prefix!r}; this map's prefix is {self.prefix!r}"
                                      + (f" (board prefixes: {', '.join(self._board_prefixes)})"
                                         if self._board_prefixes else ""))
            if not board.contains(h):
                raise UnknownLocation(f"hex {text!r} is not on board {prefix} ({board.archive})")
            h = board.to_map(h)
        if h not in self.grid:
            raise UnknownLocation(f"hex {text!r} is not on map {self.name!r} ({self.grid.describe()})")
        return h

    def parse_hexside(self, text: str) -> Hexside:
        """A hexside from ``N17-O17`` (either order). :raises NotAdjacent: when not adjacent."""
        parts = text.strip().split("-")
        if len(parts) != 2:
            raise BadName(f"{text!r} is not a hexside; expected two adjacent hexes such as "
                          f"'{self.prefix}N17-O17'")
        a, b = (self.parse_hex(p) for p in parts)
        if not a.is_adjacent(b):
            raise NotAdjacent(f"hexside {text!r}: {a.name} and {b.name} are not adjacent")
        return Hexside.of(a, b)

    def parse_vertex(self, text: str) -> Vertex:
        """A vertex from its three hexes in any order."""
        parts = text.strip().split("-")
        if len(parts) != 3:
            raise BadName(f"{text!r} is not a vertex; expected three mutually adjacent hexes such as "
                          f"'{self.prefix}O17-O18-P17'")
        # a vertex on the map's edge has hexes off the map; at least one must be on it
        a, b, c = (self._hex_any(p) for p in parts)
        if not any(h in self.grid for h in (a, b, c)):
            self.parse_hex(parts[0])  # raises the off-map error naming it
        try:
            return Vertex.of(a, b, c)
        except AslTerrainError:
            raise NotAdjacent(f"vertex {text!r}: its three hexes are not mutually adjacent") from None

    def _hex_any(self, text: str) -> Hex:
        # the hexes of a vertex may lie just off the map's edge
        try:
            prefix, h = parse_hex_name(text.strip())
        except BadName:
            raise BadName(f"{text!r} is not a hex name") from None
        board = self._board_prefixes.get(prefix) if prefix and prefix != self.prefix else None
        return board.to_map(h) if board is not None else h

    def parse_location(self, text: str) -> Location:
        """A Location or Bypass position: ``N17``, ``N17/1``, ``N17/0``, ``J19/2``, ``MM6/crest``,
        ``LL7/culvert``, ``N17/rooftop``, ``O17@O17-O18-N17``, ``N17@N17-O17``.

        :raises BadName: for a malformed name. :raises UnknownLocation: for one that does not exist.
        """
        if not isinstance(text, str):
            raise BadName(f"{text!r} is not a Location name; expected a string such as 'N17' or 'N17/1'")
        m = _LOC_RE.match(text.strip())
        if not m:
            raise BadName(f"{text!r} is not a Location; expected a hex with an optional '/level', "
                          "'/rooftop', '/crest' or '/culvert', and an optional '@hexside' or '@vertex'")
        h = self.parse_hex(m["hex"])
        level, place = 0, ""
        sub = m["sub"]
        if sub is not None:
            if sub.isdigit():
                level = int(sub)
            elif sub in ("rooftop", "crest", "culvert", "under"):
                place = sub
            else:
                raise BadName(f"{text!r}: '/{sub}' is not a Location; expected a building level number, "
                              "'rooftop', 'crest', 'culvert' or 'under' (beneath a bridge)")
        loc = self.check_location(Location(h, level, place))  # type: ignore[arg-type]
        at = m["at"]
        if at is None:
            return loc
        n = len(at.split("-"))
        if n == 2:
            hs = self.parse_hexside(at)
            if h not in hs.hexes:
                raise UnknownLocation(f"{text!r}: hexside {at} is not a hexside of {h.name}")
            return Location(self.bypass_hex(hs, h), level, place, bypass=hs)  # type: ignore[arg-type]
        if n == 3:
            v = self.parse_vertex(at)
            if h not in v.hexes:
                raise UnknownLocation(f"{text!r}: vertex {at} is not a vertex of {h.name}")
            return Location(h, level, place, vertex=v)  # type: ignore[arg-type]
        raise BadName(f"{text!r}: after '@' expected a hexside (N17-O17) or a vertex (O17-O18-N17)")

    def crest_narrow_street_lower_hex(self, hs: Hexside) -> Hex | None:
        """The lower hex of ``hs`` when it is a Narrow Street hexside that is also a Crest Line, where a unit
        Bypassing along it always is (P5.11); None otherwise."""
        t = self.hexside(hs)
        if t.narrow_street is not None and t.crest:
            a, b = hs.hexes
            la, lb = self.terrain(a).level, self.terrain(b).level
            if la != lb:
                return a if la < lb else b
        return None

    def bypass_hex(self, hs: Hexside, h: Hex) -> Hex:
        """The hex a unit Bypassing along ``hs`` is in: ``h``, except that along a Narrow Street hexside
        that is also a Crest Line it is always the lower hex (P5.11)."""
        return self.crest_narrow_street_lower_hex(hs) or h

    def bypass_hexes(self, hs: Hexside) -> tuple[Hex, ...]:
        """The hexes whose SMOKE, Residual FP, mines and falling rubble reach a unit in Bypass along Narrow
        Street ``hs``: both, or only the lower hex of a Crest-Line hexside, where the unit is (P5.11, P5.131,
        P5.142, P5.15)."""
        lower = self.crest_narrow_street_lower_hex(hs)
        return (lower,) if lower is not None else hs.hexes

    def conditions_for(self, conditions: Conditions | Mapping[str, Any] | None) -> Conditions:
        """The conditions in force: the map's, a query's ``conditions`` object applied to them, or the
        :class:`Conditions` given."""
        if conditions is None:
            return self.conditions
        if isinstance(conditions, Conditions):
            return conditions
        return self.conditions.updated(dict(conditions))

    # ------------------------------------------------------------------ names
    def name_of(self, x: Hex | Hexside | Vertex | Location) -> str:
        """The canonical name of a hex, hexside, vertex or Location, with the map's prefix once."""
        if isinstance(x, Location):
            return x.text(self.names)
        if isinstance(x, Vertex):
            return self.names.vertex(x)
        if isinstance(x, Hexside):
            return self.names.hexside(x)
        return self.names.hex(x)

    def describe_hex(self, h: Hex) -> str:
        return _describe(self.terrain(h))

    _default: HexTerrain


class BypassBlocker(NamedTuple):
    """What P5.126 finds in a hex of a Narrow Street hexside: ``what`` is ``"vehicle"`` or ``"wreck"`` (in
    Bypass along that hexside), ``"Blaze"``, ``"burning wreck"`` (not in Bypass: a Blaze), ``"Rubble
    counter"`` or ``"rubble"`` (terrain); ``blocks`` is False only for the exception, a burning wreck in
    Bypass along another hexside (``what`` ``"burning wreck elsewhere"``)."""

    what: str
    hex: Hex
    blocks: bool = True

    def words(self, m: Map, hs: Hexside) -> str:
        """The blocker as a ruling names it (``a Blaze in N17``)."""
        where = m.name_of(self.hex)
        if self.what in ("vehicle", "wreck"):
            return f"a {self.what} in Bypass along {m.name_of(hs)} in {where}"
        return {"Blaze": f"a Blaze in {where}", "burning wreck": f"a burning wreck (a Blaze) in {where}",
                "Rubble counter": f"a Rubble counter in {where}", "rubble": f"rubble in {where}"}.get(
            self.what, f"a burning wreck in Bypass along another hexside in {where}")


def narrow_street_bypass_blockers(m: Map, hs: Hexside) -> tuple[BypassBlocker, ...]:
    """What in either hex of Narrow Street hexside ``hs`` makes all Bypass along it NA (P5.126): another
    vehicle/wreck in Bypass along it, a Blaze (a burning wreck counts, except one in Bypass along another
    hexside, which is listed with ``blocks=False``), a Rubble counter, rubble terrain; in hex order."""
    out: list[BypassBlocker] = []
    for h in hs.hexes:
        if h not in m:
            continue
        for c in m.counters_at(h):
            if c.at != h:
                continue
            if c.type in ("vehicle", "wreck") and c.bypass == hs:
                out.append(BypassBlocker(c.type, h))
            elif c.type == "blaze":
                out.append(BypassBlocker("Blaze", h))
            elif c.type == "wreck" and c.burning:
                out.append(BypassBlocker("burning wreck", h) if c.bypass is None
                           else BypassBlocker("burning wreck elsewhere", h, False))
            elif c.type == "rubble":
                out.append(BypassBlocker("Rubble counter", h))
        if m.terrain(h).terrain == "rubble":
            out.append(BypassBlocker("rubble", h))
    return tuple(out)


def _describe(t: HexTerrain) -> str:
    parts = [t.terrain if not t.is_stream else f"stream-{t.terrain}" if t.terrain != "open" else "stream"]
    if t.is_building:
        parts.insert(0, t.building_type or "building")
    parts.append(f"level {t.level}")
    return ", ".join(parts)


_HEX_KEYS = ("level", "terrain", "building", "building_type", "upper_levels", "steeple", "building_id",
             "stairwell", "stream", "culvert", "ford", "offboard", "bridge", "bridge_level")


def _cache_key(p: Path, raw: bytes) -> str | None:
    from . import cache

    if cache.cache_dir() is None:
        return None
    try:  # an imported board's depiction names its archives relative to the map file's folder
        folder = str(p.resolve().parent)
    except OSError:
        return None
    return cache.key(raw, p.suffix.lower(), folder)


def _from_cache(k: str, source: str) -> Map | None:
    from . import cache

    m = cache.read_object("maps", k, Map)
    if m is not None:
        m.source = source
    return m


def _to_cache(k: str, m: Map) -> None:
    from . import cache

    cache.write_object("maps", k, m)


def _build(mf: MapFile, grid: Grid, source: str) -> Map:
    from .mapfile import (
        MinesCounter,
        ResidualFpCounter,
        RoadblockCounter,
        SmokeCounter,
        VehicleCounter,
        WreckCounter,
    )

    default = HexTerrain(Hex(0, 0), terrain=mf.defaults.terrain, level=mf.defaults.level)
    raw: dict[Hex, dict[str, Any]] = {}
    for hb in mf.hex:
        vals = {k: getattr(hb, k) for k in _HEX_KEYS if getattr(hb, k) is not None}
        for text in hb.at:
            raw.setdefault(Hex.parse(text), {}).update(vals)
    hexes: dict[Hex, HexTerrain] = {}
    for h, vals in raw.items():
        t = HexTerrain(h, **{"terrain": default.terrain, "level": default.level, **vals})
        if t.building_type is None and t.is_building:
            t = replace(t, building_type="multi-level" if "upper_levels" in vals else "single-story-house")
        if t.is_building and t.building is None:
            t = replace(t, building="stone")  # a building's material is needed for TEM; `check` warns of it
        hexes[h] = t
    hexsides: dict[Hexside, HexsideTerrain] = {}
    raw_hs: dict[Hexside, dict[str, Any]] = {}
    for sb in mf.hexside:
        vals = {k: getattr(sb, k) for k in ("road", "narrow_street", "slope", "fence", "wall", "hedge", "bocage",
                                           "rowhouse_wall", "cliff", "stream", "culvert", "crest") if getattr(sb, k) is not None}
        if "slope" in vals:
            vals["slope"] = Hex.parse(vals["slope"])
        for text in sb.at:
            a, b = text.split("-")
            raw_hs.setdefault(Hexside.of(Hex.parse(a), Hex.parse(b)), {}).update(vals)
    for hs, vals in raw_hs.items():  # mapfile has checked each hex and hexside as its blocks leave it
        hexsides[hs] = HexsideTerrain(hs, **{"stream": None, "culvert": None, "crest": None, **vals})
    depiction = None
    if mf.depiction is not None:
        d = mf.depiction
        base_dir = str(Path(source).resolve().parent) if Path(source).exists() else ""
        depiction = Depiction(d.kind, tuple(BoardPlacement(b.archive, b.prefix, b.column, b.row, b.columns, b.rows,
                                                           b.flipped, tuple(b.overlays)) for b in d.board),
                              d.terrain_table, base_dir)
    boards = {b.prefix: b for b in depiction.boards if b.prefix} if depiction is not None else {}

    def at_hex(text: str) -> Hex:
        # a counter may name its hex by board on a layout ("2K5"); mapfile checked that the board has it
        prefix, h = parse_hex_name(text)
        b = boards.get(prefix) if prefix and prefix != mf.prefix else None
        return b.to_map(h) if b is not None else h

    problems: list[str] = []  # what only the board placement can tell (mapfile checked everything else)
    counters: list[Counter] = []
    for i, c in enumerate(mf.counter):
        if isinstance(c, RoadblockCounter):
            s1, s2 = (at_hex(x) for x in c.hexside.split("-"))  # a layout's hexside may be named by board
            if not s1.is_adjacent(s2):
                problems.append(f"counter[{i}].hexside: {c.hexside!r} is not a hexside (its hexes are not adjacent)")
                continue
            hs = Hexside.of(s1, s2)
            arrow = None
            if c.arrow is not None:
                x, y, z = (at_hex(n) for n in c.arrow.split("-"))
                if not (x.is_adjacent(y) and x.is_adjacent(z) and y.is_adjacent(z)) or \
                        Vertex.of(x, y, z) not in hs.vertices():
                    problems.append(f"counter[{i}].arrow: {c.arrow!r} is not a vertex of hexside {c.hexside!r}; "
                                    "the arrow points to one of its two vertices (P5.141)")
                    continue
                arrow = Vertex.of(x, y, z)
            counters.append(Counter("roadblock", hexside=hs, arrow=arrow))
            continue
        at = at_hex(c.at)
        bypass = None
        if isinstance(c, (WreckCounter, VehicleCounter)) and c.bypass is not None:
            h1, h2 = (at_hex(x) for x in c.bypass.split("-"))
            if not h1.is_adjacent(h2) or at not in (h1, h2):
                problems.append(f"counter[{i}].bypass: {c.bypass!r} is not a hexside of {c.at!r}")
                continue
            bypass = Hexside.of(h1, h2)
        if isinstance(c, SmokeCounter):
            counters.append(Counter("smoke", at=at, strength=c.strength, smoke_kind=c.kind))
        elif isinstance(c, ResidualFpCounter):
            counters.append(Counter("residual-fp", at=at, fp=c.fp))
        elif isinstance(c, MinesCounter):
            counters.append(Counter("mines", at=at, kind=c.kind, strength=c.strength, hidden=c.hidden))
        elif isinstance(c, WreckCounter):
            counters.append(Counter("wreck", at=at, bypass=bypass, burning=c.burning, name=c.name, facing=c.facing))
        elif isinstance(c, VehicleCounter):
            counters.append(Counter("vehicle", at=at, bypass=bypass, immobile=c.immobile, name=c.name,
                                    facing=c.facing))
        else:
            counters.append(Counter(c.type, at=at))
    if problems:
        msg = (f"{source}: {problems[0]}" if len(problems) == 1 else
               f"{source}: {len(problems)} problems:\n" + "\n".join(f"  - {p}" for p in problems))
        raise MapError(msg, problems=problems, source=source)
    cond = Conditions(mf.conditions.month, mf.conditions.weather, mf.conditions.frigid)
    try:
        switches = ssr.checked(mf.conditions.ssr, "conditions.ssr")
    except MapError as e:
        raise MapError(f"{source}: {e}", problems=[str(e)], source=source) from None
    m = Map(mf.name or Path(source).stem, mf.prefix, grid, cond, hexes, hexsides, tuple(counters), source,
            depiction)
    m._default = default
    m.not_carried = tuple(mf.not_carried)
    if mf.unit:
        units: list[PlacedUnit] = []
        for i, u in enumerate(mf.unit):
            loc = None
            if u.at is not None:
                try:
                    loc = m.parse_location(u.at)
                except AslTerrainError as e:
                    problems.append(f"unit[{i}].at: {e}")
                    continue
            units.append(PlacedUnit(u.name, u.kind, u.side, loc))
        if problems:
            raise MapError(f"{source}: " + "; ".join(problems), problems=problems, source=source)
        m.units = tuple(units)
    return m.with_ssr(switches) if switches else m


def demo_map_path() -> Path:
    """The bundled demo map (the CLI's default map)."""
    return Path(__file__).parent / "data" / "demo.toml"


def load_demo() -> Map:
    """The bundled demo map."""
    return Map.load(demo_map_path())


@contextmanager
def settled() -> Iterator[None]:
    """A long batch of rulings (a LOS table, a cross-check) run with the heap built so far (the map, its
    tables and artwork) left out of the cyclic collector's passes (gc.freeze), and with no automatic pass
    while it runs: the LOS batch path makes no cyclic garbage, and the passes over what the batch builds (its
    thread shapes, records, stretch codes) were a fifth of its first viewers' work (issue 13). The collector
    is turned back on, and the heap unfrozen unless something froze it before, at the end."""
    import gc

    from .collector import paused

    first = gc.get_freeze_count() == 0
    gc.freeze()
    try:
        with paused():
            yield
    finally:
        if first:
            gc.unfreeze()


__all__ = ["BoardNaming", "BoardPlacement", "Conditions", "Counter", "Depiction", "HexTerrain", "HexsideTerrain",
           "Location", "Map", "PlacedUnit",
           "demo_map_path", "load_demo", "settled"]
