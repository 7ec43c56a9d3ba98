"""Rubble on a Narrow Street: placing a Rubble counter (P5.15) and the rubble-determination drm of a building
Location (B24.11, none for a Steeple, P5.2).

Imports: chart, errors, grid, model, rulings, and effects.common.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from ..chart import Chart, default_chart
from ..errors import QueryError
from ..grid import Hex
from ..model import Counter, Location, Map
from ..rulings import Explained, Item, ItemsExplained, fmt, num
from .common import name_list, ruling_json

#: a building's material (B23.3)
Material = Literal["stone", "wooden"]
MATERIALS: tuple[Material, ...] = ("stone", "wooden")


@dataclass(frozen=True, slots=True)
class Removed:
    """A counter a ruling removes."""

    what: str
    at: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"what": self.what, "at": self.at}
        if self.detail:
            d["detail"] = self.detail
        return d


@dataclass(frozen=True, slots=True)
class RubblePlacement(Explained):
    """What placing a Rubble counter in a hex does along its Narrow Street hexsides (P5.15)."""

    at: str
    hex: Hex  # where the Rubble counter goes (``at`` names it)
    removed: tuple[Removed, ...]
    falling_rubble: tuple[str, ...]
    hit: tuple[dict[str, str], ...]
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]
    removed_counters: tuple[Counter, ...] = ()

    def to_json(self) -> dict[str, Any]:
        values = {"at": self.at, "allowed": True, "removed": [r.to_json() for r in self.removed],
                  "falling_rubble": list(self.falling_rubble), "hit": list(self.hit)}
        return ruling_json("place-rubble", values, (), self.rules(), self.sentences)


def place_rubble(m: Map, at: Hex, chart: Chart | None = None) -> RubblePlacement:
    """Placing a Rubble counter in ``at``: for each Narrow Street hexside of the hex, any roadblock across it is
    eliminated, every unit/Equipment in Bypass along it (in either hex) is hit as by falling rubble
    (B24.121), and the mines along it (in both hexes) are eliminated (P5.15).

    Notes
    -----
    "Eliminates all mines along that hexside (in both hexes)" reads ``judgment.rubble_removes_mines``
    (digest §7.33, [U]): ``"hexes"`` removes the minefields of both hexes, ``"effect"`` only ends their
    effect on that hexside. The falling-rubble attack itself (B24.121) is the caller's to resolve; the ruling
    lists the Bypass positions (and the vehicle/wreck counters there) it hits.
    """
    chart = chart or default_chart()
    name = m.name_of(at)
    ns = [t.hexside for t in m.hexsides_of(at) if t.narrow_street is not None]
    sentences: list[str] = []
    rules: list[str] = ["P5.15"]
    removed: list[Removed] = []
    removed_counters: list[Counter] = []
    falling: list[str] = []
    hit: list[dict[str, str]] = []
    if not ns:
        sentences.append(f"{name} has no Narrow Street hexside: P5.15 does not apply; the Rubble counter affects "
                         "the hex as B24 says (falling rubble, B24.121, is not modelled here).")
        return RubblePlacement(name, at, (), (), (), ("P5.15", "B24.121"), tuple(sentences))
    mode = chart.judgment("rubble_removes_mines")
    gone: set[int] = set()
    for hs in ns:
        hsn = m.name_of(hs)
        rb = m.roadblock(hs)
        if rb is not None:
            removed.append(Removed("roadblock", hsn))
            removed_counters.append(rb)
            sentences.append(f"The roadblock across {hsn} is eliminated (P5.15).")
        names = []
        for h in m.bypass_hexes(hs):
            names.append(m.name_of(Location(h, bypass=hs)))
            for c in m.counters_at(h):
                if c.at == h and c.type in ("vehicle", "wreck") and c.bypass == hs:
                    hit.append({"what": c.type, "at": names[-1]})
        falling += names
        sentences.append(f"Units and Equipment in Bypass along {hsn} ({', '.join(names)}) are affected as if hit "
                         "by falling rubble (P5.15, B24.121).")
        mines_here = [(h, c) for h in hs.hexes for c in m.mines(h)]
        where = ", ".join(sorted({m.name_of(h) for h, _ in mines_here}))
        if mode.value == "hexes":
            for h, c in mines_here:
                if id(c) not in gone:
                    gone.add(id(c))
                    removed.append(Removed("mines", m.name_of(h), f"{c.kind} {c.strength}"))
                    removed_counters.append(c)
            if mines_here:
                sentences.append(f"The mines along {hsn} are eliminated in both its hexes ({where}) (P5.15; "
                                 f"judgment rubble_removes_mines = hexes).")
        elif mines_here:
            sentences.append(f"The mines of {where} no longer attack along {hsn} (P5.15; judgment "
                             "rubble_removes_mines = effect).")
    sentences.append(f"Bypass along {name_list(m, ns)} is NA while the Rubble counter stays (P5.126).")
    rules += ["B24.121", mode.rule, "P5.126"]
    return RubblePlacement(name, at, tuple(removed), tuple(falling), tuple(hit), tuple(rules), tuple(sentences),
                           tuple(removed_counters))


def apply_rubble(m: Map, placement: RubblePlacement) -> Map:
    """The map after ``placement`` (P5.15): a Rubble counter in its hex, the removed roadblocks and mines gone,
    so that Bypass along its Narrow Street hexsides is then NA (P5.126)."""
    gone = {id(c) for c in placement.removed_counters}
    counters = tuple(c for c in m.counters if id(c) not in gone) + (Counter("rubble", at=placement.hex),)
    return m.with_counters(counters)


# ============================================================================================ rubble drm (P5.2, B24.11)


@dataclass(frozen=True, slots=True)
class RubbleDrm(ItemsExplained):
    """The drm a building Location adds to rubble determination (B24.11; none for stone in a Steeple, P5.2)."""

    items: tuple[Item, ...]
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return ruling_json("rubble-drm", {"drm": num(self.drm), "items": [i.to_json("amount") for i in self.items]},
                           self.items, self.rules(), self.sentences)


def rubble_drm(m: Map, at: Location, building: Material | None = None, chart: Chart | None = None) -> RubbleDrm:
    """The rubble-determination drm of a building Location: +1 for stone (B24.11), NA in a Steeple
    Location (P5.2).

    :raises QueryError: when ``at`` is not a building Location or ``building`` is not stone/wooden.
    """
    chart = chart or default_chart()
    t = m.terrain(at.hex)
    if not t.is_building or at.place or at.is_bypass:
        raise QueryError(f"at: {m.name_of(at)} is not a building Location (rubble determination is for buildings)")
    material = building or t.building or "stone"
    if material not in ("stone", "wooden"):
        raise QueryError(f"building: expected \"stone\" or \"wooden\", got {material!r}")
    name = m.name_of(at)
    steeple = t.steeple_level is not None and at.level == t.steeple_level
    p = chart.param("stone_rubble_drm")
    if material == "wooden":
        return RubbleDrm((), ("B24.11",), (f"{name} is a wooden building Location: no stone drm (B24.11).",))
    if steeple:
        return RubbleDrm((), ("P5.2", "B24.11"), (f"{name} is a Steeple Location: the +{fmt(p.value)} drm for stone "
                                                  "rubble determination is NA (P5.2).",))
    return RubbleDrm((Item(p.value, f"stone building Location {name}", p.rule),), (),
                     (f"{name} is a stone building Location: +{fmt(p.value)} drm for rubble determination "
                      f"({p.rule}).",))
