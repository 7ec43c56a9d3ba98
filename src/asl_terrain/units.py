"""Units as the rulings need them: Infantry, Cavalry, Wagons, vehicles and motorcycles (queries.md "Units").

A :class:`Unit` is a small frozen value. :meth:`Unit.from_json` reads the string or object forms of
queries.md; an object that leaves keys out takes those of its type's string form.

Imports: errors. Never an engine.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from fractions import Fraction
from typing import Any

from .errors import QueryError, refuse_unknown_keys

UNIT_TYPES = ("infantry", "cavalry", "wagon", "vehicle", "motorcycle")
VEHICLE_CLASSES = ("fully-tracked", "half-track", "armored-car", "truck")
BARRELS = ("", "*", "L", "LL")
TARGET_SIZES = ("very-large", "large", "normal", "small", "very-small")

#: default MF of the types that pay MF; an ``allowance`` in a query overrides it
DEFAULT_MF = {"infantry": 4, "cavalry": 10, "wagon": 10}


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit for a ruling. ``type`` is one of :data:`UNIT_TYPES`; vehicles carry their details."""

    type: str = "infantry"
    vehicle_class: str = "fully-tracked"
    turreted: bool = True
    caliber: int = 75
    barrel: str = "L"
    buttoned_up: bool = False
    target_size: str = "normal"
    mp: int = 16
    towing: str | None = None
    armor_leader: int = 0
    mf: int | None = None
    charging: bool = False
    skis: bool = False
    pushing_gun: bool = False
    good_order: bool = True

    @property
    def pays_mp(self) -> bool:
        """Vehicles and motorcycles expend MP; Infantry, Cavalry and Wagons expend MF."""
        return self.type in ("vehicle", "motorcycle")

    @property
    def units(self) -> str:
        return "MP" if self.pays_mp else "MF"

    @property
    def chart_class(self) -> str:
        """The terrain-chart column for this unit (``infantry``, ``fully-tracked``, ``motorcycle`` ...)."""
        if self.type == "vehicle":
            return self.vehicle_class
        return self.type

    @property
    def allowance(self) -> Fraction:
        if self.pays_mp:
            return Fraction(self.mp)
        return Fraction(self.mf if self.mf is not None else DEFAULT_MF[self.type])

    @property
    def is_infantry(self) -> bool:
        return self.type == "infantry"

    @classmethod
    def from_json(cls, v: Any) -> Unit:
        """A unit from queries.md's string or object form. :raises QueryError: naming the bad key."""
        if v is None:
            return cls()
        if isinstance(v, str):
            if v not in UNIT_TYPES:
                raise QueryError(f"unit: unknown unit {v!r}; expected one of {', '.join(UNIT_TYPES)} or an object")
            return _BASE[v]
        if not isinstance(v, dict):
            raise QueryError("unit: expected a string such as \"infantry\" or an object with a \"type\"")
        t = v.get("type")
        if t not in UNIT_TYPES:
            raise QueryError(f"unit.type: unknown unit type {t!r}; expected one of {', '.join(UNIT_TYPES)}")
        base = _BASE[t]
        known = {f.name for f in fields(cls)} | {"class", "type"}
        changes: dict[str, Any] = {}
        for k, x in v.items():
            refuse_unknown_keys((k,), known, "unit.")
            if k == "type":
                continue
            if k == "class":
                if x not in VEHICLE_CLASSES:
                    raise QueryError(f"unit.class: {x!r}; expected one of {', '.join(VEHICLE_CLASSES)}")
                changes["vehicle_class"] = x
            elif k == "barrel":
                if x not in BARRELS:
                    raise QueryError(f"unit.barrel: {x!r}; expected one of \"\", \"*\", \"L\", \"LL\"")
                changes[k] = x
            elif k == "target_size":
                if x not in TARGET_SIZES:
                    raise QueryError(f"unit.target_size: {x!r}; expected one of {', '.join(TARGET_SIZES)}")
                changes[k] = x
            elif k == "towing":
                if x not in (None, "gun", "trailer"):
                    raise QueryError(f"unit.towing: {x!r}; expected null, \"gun\" or \"trailer\"")
                changes[k] = x
            elif k in ("caliber", "mp", "armor_leader", "mf"):
                if isinstance(x, bool) or not isinstance(x, int) or (k != "armor_leader" and x < 0):
                    raise QueryError(f"unit.{k}: expected a whole number{' >= 0' if k != 'armor_leader' else ''}, "
                                     f"got {x!r}")
                changes[k] = x
            else:
                if not isinstance(x, bool):
                    raise QueryError(f"unit.{k}: expected true or false, got {x!r}")
                changes[k] = x
        return replace(base, **changes)

    def to_json(self) -> dict[str, Any]:
        if self.pays_mp:
            d: dict[str, Any] = {"type": self.type, "mp": self.mp}
            if self.type == "vehicle":
                d.update({"class": self.vehicle_class, "turreted": self.turreted, "caliber": self.caliber,
                          "barrel": self.barrel, "buttoned_up": self.buttoned_up, "target_size": self.target_size,
                          "towing": self.towing, "armor_leader": self.armor_leader})
            return d
        return {"type": self.type, "mf": int(self.allowance)}


_BASE = {
    "infantry": Unit("infantry"),
    "cavalry": Unit("cavalry"),
    "wagon": Unit("wagon"),
    "vehicle": Unit("vehicle"),
    "motorcycle": Unit("motorcycle", vehicle_class="motorcycle", turreted=False, caliber=0, barrel="",
                       target_size="small", mp=20),
}
