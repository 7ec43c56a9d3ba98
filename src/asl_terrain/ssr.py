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
from dataclasses import dataclass
from typing import Any

from .errors import MapError


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
}

_EXCLUSIVE = [{"orchards-out-of-season", "orchards-in-season"}, {"grain-in-season", "grain-out-of-season"},
              {"roads-dirt", "roads-paved", "no-roads"}, {"streams-dry", "streams-deep", "streams-flooded"},
              {"buildings-stone", "buildings-wooden"}]


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
            missing.append(n)
        elif s not in switches:
            switches.append(s)
    return switches, missing


def apply_keys(keys: Mapping[str, Any], table: str, names: Iterable[str]) -> dict[str, Any]:
    """The terrain keys of one hex (``table`` "hex") or hexside ("hexside") with the switches applied."""
    out = dict(keys)
    for n in names:
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
