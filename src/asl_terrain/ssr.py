"""SSR terrain switches: the common Scenario Special Rules that change a map's terrain or seasons.

Each switch has a name (``woods-as-brush``), the rule whose terrain it gives (so a ruling's items still
cite the rule that decides them), and what it changes. A map names its switches in ``[conditions] ssr``;
a query may add more in its ``conditions`` (``{"ssr": ["no-roads"]}``). Terrain switches rewrite the
hexes and hexsides (and, on a map drawn from VASL artwork, what the artwork's features count as), so
that movement, LOS and TEM read the same changed terrain; season switches override the month's season
for orchards or grain in every engine (:meth:`asl_terrain.model.Conditions.in_season`).

VASL's own SSR names (a save's ``SSR`` list, the board archives' ``colorSSR``) map onto these switches
by :func:`from_vasl`; those without a switch here are listed, not applied.

Imports: errors only (it works on the map's plain terrain keys).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
import re
from dataclasses import dataclass
from typing import Any

from .errors import MapError


class _Every(Mapping[Any, Any]):
    """``{every value: to}``: for a switch that clears a key whatever it holds (a slope's hex)."""

    def __init__(self, to: Any) -> None:
        self.to = to

    def __getitem__(self, key: Any) -> Any:
        return self.to

    def __contains__(self, key: object) -> bool:
        return key is not None

    def __iter__(self) -> Any:
        return iter(())

    def __len__(self) -> int:
        return 1


@dataclass(frozen=True)
class Switch:
    """One SSR switch: its name, the rule of the terrain it gives, and what it does, in words."""

    name: str
    rule: str
    says: str
    hex: Mapping[str, Mapping[Any, Any]] | None = None  # hex key -> {old value: new value}
    hexside: Mapping[str, Mapping[Any, Any]] | None = None
    feature: Mapping[Any, Any] | None = None  # artwork feature terrain -> new terrain (None: no feature)
    season: tuple[str, bool] | None = None  # ("orchard" | "grain", in season?)
    # hexside features that become another: ("wall", "hedge") makes every wall a hedge (applied before
    # ``hexside``, which then removes the old feature)
    hexside_moves: tuple[tuple[str, str], ...] = ()
    elevation: Mapping[int, int] | None = None  # ground level -> new level, in the hexes and the artwork's pixels


# "terrain A is terrain B" switches beyond woods-as-brush and brush-as-open: the rule of the terrain B gives
_TERRAIN_RULE = {"open": "B1", "woods": "B13.1", "brush": "B12.1", "grain": "B15.1", "marsh": "B16.1"}
_TERRAIN_WORD = {"open": "Open Ground", "woods": "woods", "brush": "brush", "grain": "grain", "marsh": "marsh"}
_TERRAIN_AS = (("woods", "open"), ("woods", "grain"), ("woods", "marsh"), ("brush", "woods"), ("brush", "grain"),
               ("brush", "marsh"), ("grain", "woods"), ("grain", "brush"), ("grain", "marsh"), ("marsh", "open"),
               ("marsh", "woods"), ("marsh", "brush"), ("marsh", "grain"))


def _terrain_as(a: str, b: str) -> Switch:
    olds = (a, "pine-woods") if a == "woods" else (a,)
    hex_change = {o: b for o in olds}
    return Switch(f"{a}-as-{b}", _TERRAIN_RULE[b], f"{_TERRAIN_WORD[a]} is {_TERRAIN_WORD[b]}",
                  hex={"terrain": hex_change}, feature={o: (None if b == "open" else b) for o in olds})


# VASL's hill-level SSRs (its Level4ToLevel0 ... Level_2ToLevel_1): every hill of one level is of another
_LEVEL_AS = ((6, 5), (5, 4), (4, 3), (4, 2), (4, 1), (4, 0), (4, -1), (3, 2), (3, 1), (3, 0), (3, -1), (2, 1), (2, 0),
             (2, -1), (1, 0), (1, -1), (-1, 0), (-2, -1), (-2, 0))


def _level_word(n: int) -> str:
    return f"minus{-n}" if n < 0 else str(n)


def _level_as(a: int, b: int) -> Switch:
    return Switch(f"level-{_level_word(a)}-as-{_level_word(b)}", "B10.1",
                  f"ground of level {a} is level {b} (its hexes' Base Level and the artwork's ground alike)",
                  hex={"level": {a: b}}, elevation={a: b})


SWITCHES: dict[str, Switch] = {s.name: s for s in (
    Switch("orchards-out-of-season", "B14.2", "orchards are out of season whatever the month",
           season=("orchard", False)),
    Switch("orchards-in-season", "B14.2", "orchards are in season whatever the month", season=("orchard", True)),
    Switch("grain-in-season", "B15.2", "grain is in season (a Hindrance, 1½ MF) whatever the month",
           season=("grain", True)),
    Switch("grain-out-of-season", "B15.3", "grain is out of season: Open Ground whatever the month",
           season=("grain", False)),
    Switch("woods-as-brush", "B12.1", "woods (and pine woods) are brush", hex={"terrain": {"woods": "brush",
           "pine-woods": "brush"}}, feature={"woods": "brush", "pine-woods": "brush"}),
    Switch("brush-as-open", "B12.1", "brush is Open Ground", hex={"terrain": {"brush": "open"}},
           feature={"brush": None}),
    Switch("no-roads", "B3.1", "there are no roads: road hexsides are the terrain around them",
           hexside={"road": {"paved": None, "dirt": None}}),
    Switch("roads-dirt", "B3.1", "every road is a dirt road", hexside={"road": {"paved": "dirt"}}),
    Switch("roads-paved", "B3.1", "every road is a paved road", hexside={"road": {"dirt": "paved"}}),
    Switch("streams-dry", "B20.41", "streams are Dry (a Dry stream is a gully for all purposes)",
           hex={"stream": {"shallow": "dry", "deep": "dry", "flooded": "dry"}}),
    Switch("streams-deep", "B20.42", "streams are Deep", hex={"stream": {"dry": "deep", "shallow": "deep",
           "flooded": "deep"}}),
    Switch("streams-flooded", "B20.44", "streams are Flooded: a water obstacle, not a depression",
           hex={"stream": {"dry": "flooded", "shallow": "flooded", "deep": "flooded"}}),
    Switch("buildings-stone", "B23.1", "every building (and rubble) is stone", hex={"building": {"wooden": "stone"}},
           feature={("building", "wooden"): ("building", "stone"), ("rubble", "wooden"): ("rubble", "stone")}),
    Switch("buildings-wooden", "B23.1", "every building (and rubble) is wooden",
           hex={"building": {"stone": "wooden"}},
           feature={("building", "stone"): ("building", "wooden"), ("rubble", "stone"): ("rubble", "wooden")}),
    Switch("no-walls", "B9.1", "there are no walls: their hexsides are open", hexside={"wall": {True: False}}),
    Switch("no-hedges", "B9.1", "there are no hedges: their hexsides are open", hexside={"hedge": {True: False}}),
    Switch("walls-as-hedges", "B9.1", "every wall is a hedge", hexside={"wall": {True: False}}, hexside_moves=(("wall", "hedge"),)),
    Switch("hedges-as-walls", "B9.1", "every hedge is a wall", hexside={"hedge": {True: False}}, hexside_moves=(("hedge", "wall"),)),
    Switch("walls-as-bocage", "B9.5", "every wall is bocage", hexside={"wall": {True: False}}, hexside_moves=(("wall", "bocage"),)),
    Switch("hedges-as-bocage", "B9.5", "every hedge is bocage", hexside={"hedge": {True: False}}, hexside_moves=(("hedge", "bocage"),)),
    Switch("no-cliffs", "B10.1", "there are no cliffs: a cliff hexside is an ordinary hillside",
           hexside={"cliff": {True: False}}),
    Switch("no-slopes", "P2.2", "there are no slope hexsides", hexside={"slope": _Every(None)}),
    Switch("no-dirt-roads", "B3.1", "there are no dirt roads: their hexsides are the terrain around them",
           hexside={"road": {"dirt": None}}),
    Switch("orchards-as-shellholes", "B2.1", "every orchard is shellholes", hex={"terrain": {"orchard": "shellholes"}},
           feature={"orchard": None}),
    Switch("no-stairwells", "B23.42", "no building hex has a printed stairwell", hex={"stairwell": {True: False}}),
    *(_terrain_as(a, b) for a, b in _TERRAIN_AS),
    *(_level_as(a, b) for a, b in _LEVEL_AS),
)}

# VASL's SSR names (colorSSR / the save's SSR list) → the switch that does the same
VASL_NAMES: dict[str, str] = {
    "OrchardOutOfSeason": "orchards-out-of-season",
    "NoGrain": "grain-out-of-season",
    "GrainToLevel0": "grain-out-of-season",
    "BrushToOpenGround": "brush-as-open",
    "BrushToLevel0": "brush-as-open",
    "NoRoads": "no-roads",
    "AllDirt": "roads-dirt",
    "AllPaved": "roads-paved",
    "DryStreams": "streams-dry",
    "Flooded": "streams-flooded",
    "FloodedStreams": "streams-flooded",
    "AllStone": "buildings-stone",
    "AllWood": "buildings-wooden",
    "StreamsToGullies": "streams-dry",  # a Dry stream is a gully for all purposes (B20.41)
    "PlowedFields": "grain-out-of-season",  # VASL's Plowed Field is open ground (grain out of season, B15.3)
    "WoodsToLevel0": "woods-as-open",  # the ...ToLevel0 names recolour the terrain as level-0 ground
    "MarshToLevel0": "marsh-as-open",
    "MarshToOpenGround": "marsh-as-open",
    "WoodsToBrush": "woods-as-brush",
    "WoodsToGrain": "woods-as-grain",
    "WoodsToMarsh": "woods-as-marsh",
    "BrushToWoods": "brush-as-woods",
    "BrushToGrain": "brush-as-grain",
    "BrushToMarsh": "brush-as-marsh",
    "GrainToWoods": "grain-as-woods",
    "GrainToBrush": "grain-as-brush",
    "GrainToMarsh": "grain-as-marsh",
    "MarshToWoods": "marsh-as-woods",
    "MarshToBrush": "marsh-as-brush",
    "MarshToGrain": "marsh-as-grain",
    "WallsToOG": "no-walls",
    "NoWalls": "no-walls",
    "HedgesToOG": "no-hedges",
    "NoHedges": "no-hedges",
    "HedgesOnly": "walls-as-hedges",  # VASL draws every wall as a hedge
    "WallsOnly": "hedges-as-walls",  # and every hedge as a wall
    "WallsToBocage": "walls-as-bocage",
    "HedgesToBocage": "hedges-as-bocage",
    "NoCliffs": "no-cliffs",
    "NoStairwells": "no-stairwells",
    "NoSlopes": "no-slopes",
    "BFPF_BSO_NoSlopes": "no-slopes",
    "NoDirt": "no-dirt-roads",
    **{f"Level{'_' if a < 0 else ''}{abs(a)}ToLevel{'_' if b < 0 else ''}{abs(b)}": _level_as(a, b).name
       for a, b in _LEVEL_AS},
    "OrchardsToShellholes": "orchards-as-shellholes",
}

# VASL SSR names that change only the picture (nothing in the rules): carried by doing nothing
COSMETIC = frozenset({"NoHillNums", "NoWhiteHexIDs"})

# why each other VASL SSR name (colorSSR, the LOS rules of SharedBoardMetadata.xml) is not carried
_LEVELS = ("changes the ground level under one terrain only, which the level switches (every hex and pixel of a "
           "level) cannot say")
_NOT_CARRIED: dict[str, str] = {
    "Winter": "only the artwork turns white; the weather its scenario gives (Ground Snow E3.72, Deep Snow E3.73) "
              "is set with [conditions] weather",
    "Mud": "only the artwork turns brown; Mud (E3.6) is set with [conditions] weather = \"mud\"",
    "GulliesToStreams": "gullies become streams of a depth VASL does not give (B20.4): set streams in [[hex]] blocks",
    "RowhouseBarsToBuildings": "rowhouse walls removed join rowhouses into one building (B23.71), which the "
                               "map's building ids would have to say",
    "RowhouseBarsToOpenGround": "rowhouse walls become open ground between buildings (B23.71): not modelled",
    "RiverToValley": "water becomes dry ground a level lower: " + _LEVELS,
    "PondToValley": "a pond becomes dry ground a level lower: " + _LEVELS,
    "FordableRivers": "rivers (B21) are not in the map format",
    "FloodedRivers": "rivers (B21) are not in the map format",
    "SwampToMarsh": "swamp (G; PTO terrain) is not in the map format: nothing to change",
    "IrrigatedPaddies": "paddies (G8; PTO terrain) are not in the map format",
    "InSeasonPaddies": "paddies (G8; PTO terrain) are not in the map format",
    "ETOtoDTO": "desert terrain (F) is not in the map format",
    "DTOtoETO": "desert terrain (F) is not in the map format",
    "NoSunkElevRoads": "sunken and elevated roads (B4, B5) are not in the map format: nothing to change",
    "LightWoods": "light woods (G; PTO terrain) are not in the map format",
    "DenseJungle": "jungle (G11) is not in the map format",
    "Bamboo": "bamboo (G12) is not in the map format",
    "PalmTrees": "palm trees (G; PTO terrain) are not in the map format",
    "NoBridge": "removes bridges, whose stream or gully beneath the map would have to say",
    "BridgeToFord": "a bridge becomes a ford (B20.8): set ford in the [[hex]] block",
    "RoadsToPaths": "paths (G; PTO terrain) are not in the map format",
    "NoWoodsRoads": "woods-roads (B13.6) are not told apart from roads in the map format",
    "ShellholesToOrchards": "shellholes are not drawn as a LOS feature in VASL's artwork, so the orchards it would "
                            "make could not be seen by a thread",
    "ShellholesToCrags": "crags (F; desert terrain) are not in the map format",
    "CragsToOrchard": "crags (F; desert terrain) are not in the map format",
    "CragsToShellholes": "crags (F; desert terrain) are not in the map format",
    "OrchardsToCrags": "crags (F; desert terrain) are not in the map format",
    "SwampToSwampPattern": "swamp (G; PTO terrain) is not in the map format: nothing to change",
    "ShellholesToPalmTrees": "palm trees (G; PTO terrain) are not in the map format",
    "WallToCactus": "cactus hedges (G; PTO terrain) are not in the map format",
    "HedgeToCactus": "cactus hedges (G; PTO terrain) are not in the map format",
}


def elevation_map(names: Iterable[str]) -> dict[int, int]:
    """Ground level -> level under the switches, in order (``level-4-as-3`` then ``level-3-as-2`` lowers 4 to 2)."""
    out: dict[int, int] = {}
    for n in names:
        change = SWITCHES[n].elevation
        if not change:
            continue
        for a, b in change.items():
            for k, v in list(out.items()):
                if v == a:
                    out[k] = b
            out.setdefault(a, b)
    return {a: b for a, b in out.items() if a != b}


def not_carried_reason(name: str) -> str:
    """Why VASL's SSR ``name`` has no switch here, in words (for a map's ``not_carried`` lines)."""
    if name in _NOT_CARRIED:
        return _NOT_CARRIED[name] + " (not applied)"
    if re.fullmatch(r"Level_?\d+ToLevel_?\d+", name):
        return "VASL has no such level change (its levels go down only: Level4ToLevel0 ...) (not applied)"
    if re.fullmatch(r"(Woods|Brush|Grain|Marsh)ToLevel_?\d+", name) or re.fullmatch(r"Level_?\d+To[A-Z]\w+", name):
        return f"terrain and ground level are exchanged: {_LEVELS} (not applied)"
    if name.startswith(("SSO_", "BSO_")) or re.match(r"\d+_BSO_", name):
        return ("a scenario's or board's special overlay image, whose terrain is only drawn (not applied; on a board "
                f"import, --overlay \"SSR {name}\" lays the image and reads its terrain from its colours)")
    if name.startswith("StoneToGutted"):
        return "gutted buildings are not in the map format (not applied)"
    return "VASL's terrain change has no switch here (not applied)"

_EXCLUSIVE = [{"orchards-out-of-season", "orchards-in-season"},
              {"grain-in-season", "grain-out-of-season", "grain-as-woods", "grain-as-brush", "grain-as-marsh"},
              {"roads-dirt", "roads-paved", "no-roads", "no-dirt-roads"}, {"streams-dry", "streams-deep", "streams-flooded"},
              {"buildings-stone", "buildings-wooden"},
              {"woods-as-brush", "woods-as-open", "woods-as-grain", "woods-as-marsh"},
              {"brush-as-open", "brush-as-woods", "brush-as-grain", "brush-as-marsh"},
              {"marsh-as-open", "marsh-as-woods", "marsh-as-brush", "marsh-as-grain"},
              {"no-walls", "walls-as-hedges", "walls-as-bocage"}, {"no-hedges", "hedges-as-walls", "hedges-as-bocage"},
              *({_level_as(a, b).name for a, b in _LEVEL_AS if a == src} for src in {a for a, _ in _LEVEL_AS})]


def checked(names: Iterable[str], where: str = "ssr") -> tuple[str, ...]:
    """The switches named, in the order of :data:`SWITCHES`. :raises MapError: an unknown switch, or two
    that contradict each other."""
    got = set()
    for n in names:
        if n not in SWITCHES:
            raise MapError(f"{where}: unknown SSR switch {n!r}; expected some of {', '.join(SWITCHES)}")
        got.add(n)
    for group in _EXCLUSIVE:
        both = sorted(got & group)
        if len(both) > 1:
            raise MapError(f"{where}: SSR switches {' and '.join(both)} contradict each other")
    return tuple(n for n in SWITCHES if n in got)


def from_vasl(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """VASL SSR names → (the switches that do the same, the VASL names with no switch here)."""
    switches: list[str] = []
    missing: list[str] = []
    for n in names:
        s = VASL_NAMES.get(n)
        if s is None:
            if n not in COSMETIC:
                missing.append(n)
        elif s not in switches:
            switches.append(s)
    return switches, missing


def apply_keys(keys: Mapping[str, Any], table: str, names: Iterable[str]) -> dict[str, Any]:
    """The terrain keys of one hex (``table`` "hex") or hexside ("hexside") with the switches applied."""
    out = dict(keys)
    for n in names:
        if table == "hexside":
            for old, new in SWITCHES[n].hexside_moves:
                if out.get(old):
                    out[new] = True
        rules = getattr(SWITCHES[n], table)
        if not rules:
            continue
        for key, change in rules.items():
            if key in out and out[key] in change:
                out[key] = change[out[key]]
    if table == "hex" and out.get("terrain") == "open" and keys.get("terrain") != "open":
        out.pop("building_type", None)
    return out


def apply_feature(keys: Mapping[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """An artwork feature's map keys (``{"terrain": "woods"}``) with the switches applied ({} for none)."""
    out = dict(keys)
    for n in names:
        change = SWITCHES[n].feature
        if not change or not out:
            continue
        t = out.get("terrain")
        pair = (t, out.get("building"))
        if pair in change:
            out["terrain"], out["building"] = change[pair]
        elif t in change:
            new = change[t]
            out = {} if new is None else {**out, "terrain": new}
    return out


def season(names: Iterable[str], what: str) -> bool | None:
    """Whether the switches force ``what`` ("orchard" or "grain") in (True) or out of (False) season."""
    for n in names:
        s = SWITCHES[n].season
        if s is not None and s[0] == what:
            return s[1]
    return None


def describe(names: Iterable[str]) -> list[str]:
    """One sentence per switch: what it does and its rule."""
    return [f"SSR {n}: {SWITCHES[n].says} ({SWITCHES[n].rule})." for n in names]
