"""Vehicles on a Narrow Street: TCA changes and Non-Stopped status (P5.121, P5.122), Street Fighting CC
(P5.132), (un)loading and unhooking in Bypass (P5.124, P5.125).

Imports: chart, errors, model, rulings, units, and effects.common.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from ..chart import Chart, default_chart
from ..errors import QueryError
from ..model import Location, Map
from ..rulings import Explained, Item, ItemsExplained, fmt, num, total
from ..units import Unit
from .common import is_ground_level, name_list, narrow_street_of, ruling_json

#: the phase of a TCA change (D3.12: in the MPh, or another phase); what is unhooked and by whom (P5.124)
Phase = Literal["MPh", "other"]
Hooked = Literal["gun", "trailer"]
UnhookedBy = Literal["crew", "other"]
PHASES: tuple[Phase, ...] = ("MPh", "other")
HOOKED: tuple[Hooked, ...] = ("gun", "trailer")
UNHOOKED_BY: tuple[UnhookedBy, ...] = ("crew", "other")


# ============================================================================================ TCA (P5.121-.122)


@dataclass(frozen=True, slots=True)
class TcaChange(ItemsExplained):
    """A TCA change on a Narrow Street (P5.122) and Non-Stopped status (P5.121)."""

    required: bool
    allowed: bool
    items: tuple[Item, ...]
    success_probability: Fraction
    failure_cost_mp: Fraction
    non_stopped_allowed: bool | None
    reason: str | None
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        values: dict[str, Any] = {"required": self.required, "allowed": self.allowed, "drm": num(self.drm),
                                  "items": [i.to_json("amount") for i in self.items],
                                  "success_probability": float(self.success_probability),
                                  "failure_cost_mp": num(self.failure_cost_mp)}
        if self.non_stopped_allowed is not None:
            values["non_stopped_allowed"] = self.non_stopped_allowed
        if self.reason:
            values["reason"] = self.reason
        return ruling_json("tca-change", values, self.items, self.rules(), self.sentences)


def non_stopped_allowed(unit: Unit, tca_offset: int, chart: Chart | None = None) -> tuple[bool, str]:
    """Whether a vehicle may be Non-Stopped on a Narrow Street with its TCA ``tca_offset`` hexspines from its
    VCA: a turreted vehicle with MA of at least 50mm and a barrel other than "*" only with its TCA on its VCA
    or "rear" VCA (P5.121)."""
    chart = chart or default_chart()
    p = chart.param("tca_min_caliber")
    if not (unit.type == "vehicle" and unit.turreted and unit.caliber >= p.value and unit.barrel != "*"):
        return True, ("P5.121 limits only turreted vehicles with a MA of at least "
                      f"{fmt(p.value)}mm and a barrel other than \"*\"")
    if tca_offset % 6 in (0, 3):
        return True, "its TCA coincides with its VCA or rear VCA"
    return False, f"its TCA is {tca_offset % 6} hexspine(s) off its VCA, neither its VCA nor its rear VCA"


def tca_change(unit: Unit, attempt: int = 1, phase: Phase = "MPh", tca_offset: int | None = None,
               chart: Chart | None = None) -> TcaChange:
    """A vehicle's TCA change on a Narrow Street: with a MA of at least 50mm it needs a Final TCA-Change dr
    of at most 3, with the drm +2 LL, +1 L, -1 "*", +1 BU and the Armor Leader's modifier; at most two such
    dr per phase; each failure costs 2 MP in its MPh (P5.122). With ``tca_offset`` also P5.121.

    :raises QueryError: for a unit that is not a vehicle, an attempt below 1, an unknown phase.

    Examples
    --------
    >>> r = tca_change(Unit.from_json({"type": "vehicle", "caliber": 75, "barrel": "L", "buttoned_up": True}))
    >>> int(r.drm), str(r.success_probability), int(r.failure_cost_mp)
    (2, '1/6', 2)
    """
    chart = chart or default_chart()
    if unit.type != "vehicle":
        raise QueryError(f"unit: a tca-change is for a vehicle with a turret, not {unit.type}")
    if attempt < 1:
        raise QueryError(f"attempt: expected 1 or more, got {attempt}")
    if phase not in ("MPh", "other"):
        raise QueryError(f"phase: expected \"MPh\" or \"other\", got {phase!r}")
    sentences: list[str] = []
    rules: list[str] = []
    ns: bool | None = None
    if tca_offset is not None:
        if not 0 <= tca_offset <= 5:
            raise QueryError(f"tca_offset: expected 0-5 hexspines, got {tca_offset}")
        ns, why = non_stopped_allowed(unit, tca_offset, chart)
        sentences.append(f"Non-Stopped on a Narrow Street: {'allowed' if ns else 'NA'}, {why} (P5.121).")
        rules.append("P5.121")
    minc = chart.param("tca_min_caliber")
    required = unit.turreted and unit.caliber >= minc.value
    if not required:
        why = "it has no turret" if not unit.turreted else f"its MA is under {fmt(minc.value)}mm"
        sentences.insert(0, f"No TCA-Change dr is needed: {why} (P5.122).")
        return TcaChange(False, True, (), Fraction(1), Fraction(0), ns, None, ("P5.122", *rules), tuple(sentences))
    items: list[Item] = []
    barrel_param = {"LL": "tca_drm_LL", "L": "tca_drm_L", "*": "tca_drm_star"}.get(unit.barrel)
    if barrel_param is not None:
        p = chart.param(barrel_param)
        items.append(Item(p.value, f"\"{unit.barrel}\" Barrel Length", p.rule))
    if unit.buttoned_up:
        p = chart.param("tca_drm_bu")
        items.append(Item(p.value, "Buttoned Up", p.rule))
    if unit.armor_leader:
        items.append(Item(Fraction(unit.armor_leader), "Armor Leader modifier", "P5.122"))
    target = chart.param("tca_change_target")
    drm = total(items)
    hits = sum(1 for roll in range(1, 7) if roll + drm <= target.value)
    prob = Fraction(hits, 6)
    maxa = chart.param("tca_change_max_attempts")
    allowed = attempt <= maxa.value
    fail = chart.param("tca_change_failure_mp")
    cost = Fraction(fail.value) if phase == "MPh" else Fraction(0)
    reason = None
    if not allowed:
        reason = f"at most {fmt(maxa.value)} TCA-Change dr per vehicle per phase (P5.122); this is attempt {attempt}"
        sentences.insert(0, f"A TCA-Change dr is not allowed: {reason}.")
    else:
        sentences.insert(0, f"A TCA change on a Narrow Street needs a Final TCA-Change dr of {fmt(target.value)} or "
                            f"less (P5.122): drm {fmt(drm)}, so {hits} of 6 rolls succeed. Attempt {attempt} of at "
                            f"most {fmt(maxa.value)} this phase; a failure costs {fmt(cost)} MP"
                            f"{' (in the MPh)' if phase == 'MPh' else ' (outside the MPh, digest §7.37)'}.")
    return TcaChange(True, allowed, tuple(items), prob, cost, ns, reason, ("P5.122", *rules), tuple(sentences))


# ============================================================================================ Street Fighting (P5.132)


@dataclass(frozen=True, slots=True)
class StreetFighting(Explained):
    """Street Fighting CC vs a vehicle on a Narrow Street (P5.132)."""

    applies: bool
    vehicle_cc_drm: Fraction
    reason: str | None
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return ruling_json("street-fighting", {"applies": self.applies, "vehicle_cc_drm": num(self.vehicle_cc_drm),
                                               **({"reason": self.reason} if self.reason else {})},
                           (), self.rules(), self.sentences)


def street_fighting(m: Map, vehicle: Location, attacker: Location, chart: Chart | None = None) -> StreetFighting:
    """A vehicle on a Narrow Street attacked in CC is subject to Street Fighting (A11.8) when its attacker
    occupies the ground level of a building in one of the two hexes of that hexside; a vehicle in CC/Melee on
    a Narrow Street adds +1 to its CC CMG attacks (P5.132)."""
    chart = chart or default_chart()
    hs = narrow_street_of(m, vehicle)
    if hs is None:
        return StreetFighting(False, Fraction(0), f"{m.name_of(vehicle)} is not in Bypass along a Narrow Street "
                                                  "hexside (P5.132 does not apply; A11.8 unchanged)",
                              ("P5.132", "A11.8"),
                              (f"{m.name_of(vehicle)} is not on a Narrow Street: P5.132 does not apply.",))
    p = chart.param("street_fighting_cc_drm")
    drm = Fraction(p.value)
    hsn = m.name_of(hs)
    building = m.terrain(attacker.hex).is_building
    ok = attacker.hex in hs.hexes and building and is_ground_level(m, attacker)
    if ok:
        s = (f"The attacker occupies the ground level of the building in {m.name_of(attacker.hex)}, a hex of Narrow "
             f"Street hexside {hsn}: Street Fighting CC applies (P5.132, A11.8).")
        reason = None
    else:
        why = (f"{m.name_of(attacker)} is not a hex of {hsn}" if attacker.hex not in hs.hexes else
               f"{m.name_of(attacker.hex)} is not a building" if not building else
               f"{m.name_of(attacker)} is not the building's ground level")
        reason = f"Street Fighting needs the attacker at the ground level of a building in a hex of {hsn}: {why}"
        s = reason + " (P5.132)."
    return StreetFighting(ok, drm, reason, ("P5.132", "A11.8"),
                          (s, f"The vehicle's own CC CMG attacks while in CC/Melee on the Narrow Street get "
                              f"+{fmt(drm)} ({p.rule})."))


# ============================================================================================ (un)loading, unhooking


@dataclass(frozen=True, slots=True)
class TransferRuling(Explained):
    """Loading, unloading or unhooking from a vehicle on a Narrow Street (P5.124, P5.125)."""

    kind: str
    allowed: bool
    eliminated: bool | None
    reason: str | None
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        values: dict[str, Any] = {"allowed": self.allowed}
        if self.eliminated is not None:
            values["eliminated"] = self.eliminated
        if self.reason:
            values["reason"] = self.reason
        return ruling_json(self.kind, values, (), self.rules(), self.sentences)


def _transfer(m: Map, kind: str, vehicle: Location, other: Location, what: str) -> TransferRuling:
    """(Un)loading between a vehicle and a Location: from a vehicle in Bypass along a Narrow Street into/from
    either ground-level Location forming that hexside (P5.125), otherwise its own Location only."""
    hs = narrow_street_of(m, vehicle)
    verb = {"unload": "unload into", "load": "load from"}[kind]
    thing = {"squad": "Passengers", "mortar": "A 76-107mm MTR of the Passengers"}.get(what, f"A {what}")
    if hs is None:
        ok = is_ground_level(m, other) and other.hex == vehicle.hex
        s = (f"{m.name_of(vehicle)} is not on a Narrow Street: P5.125 does not apply; {thing} may {verb} the vehicle's "
             f"own Location only (D6.4), and {m.name_of(other)} {'is' if ok else 'is not'} it.")
        return TransferRuling(kind, ok, None, None if ok else s, ("P5.125", "D6.4"), (s,))
    ok = is_ground_level(m, other) and other.hex in hs.hexes
    hooked = " (\"(un)hooked\")" if what == "mortar" else ""
    s = (f"{thing}{hooked} may {verb} either ground-level Location forming Narrow Street hexside {m.name_of(hs)} "
         f"({name_list(m, hs.hexes)}); {m.name_of(other)} {'is one' if ok else 'is not'} (P5.125).")
    return TransferRuling(kind, ok, None, None if ok else s, ("P5.125",), (s,))


def can_unload(m: Map, vehicle: Location, to: Location, what: str = "squad") -> TransferRuling:
    """Passengers (and their 76-107mm MTR) may unload from a vehicle on a Narrow Street into either/both
    ground-level Locations forming that hexside (P5.125)."""
    return _transfer(m, "unload", vehicle, to, what)


def can_load(m: Map, vehicle: Location, from_: Location, what: str = "squad") -> TransferRuling:
    """Passengers (and their 76-107mm MTR) may load onto a vehicle on a Narrow Street from either ground-level
    Location forming that hexside (P5.125)."""
    return _transfer(m, "load", vehicle, from_, what)


def can_unhook(m: Map, vehicle: Location, what: Hooked, by: UnhookedBy = "crew") -> TransferRuling:
    """A towed Gun cannot be unhooked while in Bypass along a Narrow Street during play; a trailer may be, only
    by the towing vehicle's crew, and is then eliminated (P5.124)."""
    if what not in ("gun", "trailer"):
        raise QueryError(f"what: expected \"gun\" or \"trailer\", got {what!r}")
    if by not in ("crew", "other"):
        raise QueryError(f"by: expected \"crew\" or \"other\", got {by!r}")
    hs = narrow_street_of(m, vehicle)
    if hs is None:
        s = f"{m.name_of(vehicle)} is not in Bypass along a Narrow Street: P5.124 does not apply (unhooking as usual)."
        return TransferRuling("unhook", True, False if what == "trailer" else None, None, ("P5.124",), (s,))
    hsn = m.name_of(hs)
    if what == "gun":
        s = f"A Gun cannot be unhooked while its towing vehicle is in Bypass along Narrow Street {hsn} (P5.124)."
        return TransferRuling("unhook", False, None, s, ("P5.124",), (s,))
    if by != "crew":
        s = f"A trailer may be unhooked in Bypass along {hsn} only by the crew of the vehicle towing it (P5.124)."
        return TransferRuling("unhook", False, False, s, ("P5.124",), (s,))
    s = (f"The towing vehicle's crew may unhook the trailer in Bypass along {hsn}; the trailer is then eliminated "
         "for all purposes (P5.124).")
    return TransferRuling("unhook", True, True, None, ("P5.124",), (s,))
