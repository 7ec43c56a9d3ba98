"""The movement engine's rulings: one move, a whole path, everywhere reached, a VCA change (each a
value that explains itself: ``rules()``, ``explain()``, ``to_json()``), and a path's :class:`Step`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from ..grid import Hex, Hexside, Naming, Vertex, naming
from ..model import Location
from ..rulings import Item, distinct, fmt, num

ZERO = Fraction(0)
ONE = Fraction(1)


class Prohibition(NamedTuple):
    """Why a move is NA, and the rule that says so (a rule's answer when it forbids the move)."""

    reason: str
    rule: str


@dataclass(frozen=True, slots=True)
class MoveRuling:
    """The ruling on one move: allowed or not (with the rule that forbids it), its cost and items.

    ``items`` add up to ``cost``; a bonus (skis Down-Slope, P2.51) is an item with a negative amount.
    ``road_rate`` says whether the move used the road rate, ``ffmo_exposed`` whether that left Infantry
    to FFMO instead of the hex's TEM (B3.3), ``keeps_road_bonus`` whether this move leaves the B3.4 road
    bonus possible, ``all_mf`` whether the move takes ALL the unit's MF/MP (the cost is then its
    allowance), ``bog`` whether a vehicle must make a Bog check.
    """

    allowed: bool
    cost: Fraction | None
    units: str
    items: tuple[Item, ...] = ()
    frm: Location | None = None
    to: Location | None = None
    reason: str | None = None
    forbidden_by: str | None = None
    road_rate: bool = False
    ffmo_exposed: bool = False
    keeps_road_bonus: bool = False
    bypass: Hexside | None = None
    all_mf: bool = False
    bog: bool = False
    weather_elevation: bool = False
    notes: tuple[str, ...] = ()
    prefix: str | Naming = ""
    #: what spoils the B3.4 road bonus on this road-rate move (empty when it keeps it or is no road move)
    bonus_lost_by: tuple[str, ...] = ()
    #: rules that decided the move without an item of their own (a note's rule: P4.11 adds nothing across a
    #: stream hexside, the P5.2/P5.3 inherent stairwell, ...)
    note_rules: tuple[str, ...] = ()

    def rules(self) -> tuple[str, ...]:
        """The distinct rule references of the items, the notes' rules (and the forbidding rule), in order."""
        rs = [i.rule for i in self.items]
        rs.extend(self.note_rules)
        if self.forbidden_by:
            rs.append(self.forbidden_by)
        return distinct(rs)

    def _names(self) -> tuple[str, str]:
        """The canonical names of the Locations left and entered."""
        f = self.frm.text(self.prefix) if self.frm is not None else "?"
        t = self.to.text(self.prefix) if self.to is not None else "?"
        return f, t

    def explain(self) -> str:
        """Sentences a player can check: the verdict, then each item with its rule."""
        f, t = self._names()
        if not self.allowed:
            s = f"Moving from {f} to {t} is not allowed: {self.reason} ({self.forbidden_by})."
        else:
            s = (f"Moving from {f} to {t} costs {fmt(self.cost)} {self.units}: "
                 + "; ".join(f"{fmt(i.amount)} {i.why} ({i.rule})" for i in self.items) + ".")
            if self.road_rate:
                s += " It uses the road rate."
            if self.ffmo_exposed:
                s += (" Entering at the road rate leaves Infantry subject to Interdiction/FFMO instead of the "
                      "hex's TEM (B3.3).")
        if self.bonus_lost_by and self.road_rate:
            s += f" This road move earns no road bonus (B3.4): {', '.join(self.bonus_lost_by)}."
        if self.notes:
            s += " " + " ".join(self.notes)
        return s

    def to_json(self) -> dict[str, Any]:
        """The queries.md ``move`` answer (and more: from, to, bypass, road bonus, ALL, Bog)."""
        f, t = self._names()
        out: dict[str, Any] = {
            "kind": "move",
            "allowed": self.allowed,
            "cost": num(self.cost),
            "units": self.units,
            "items": [{"cost": num(i.amount), "why": i.why, "rule": i.rule} for i in self.items],
            "road_rate": self.road_rate,
            "ffmo_exposed": self.ffmo_exposed,
            "from": f,
            "to": t,
            "keeps_road_bonus": self.keeps_road_bonus,
        }
        if self.bypass is not None:
            out["bypass"] = naming(self.prefix).hexside(self.bypass)
        if self.all_mf:
            out["all"] = True
        if self.bog:
            out["bog"] = True
        if self.weather_elevation:
            out["weather_elevation"] = True
        if not self.allowed:
            out["reason"] = self.reason
        out["rules"] = list(self.rules())
        out["explain"] = self.explain()
        if self.bonus_lost_by:
            out["road_bonus_lost_by"] = list(self.bonus_lost_by)
        return out


@dataclass(frozen=True, slots=True)
class PathRuling:
    """The ruling on a whole move through several Locations (queries.md ``path``).

    ``cost`` is the sum of the steps' costs (``None`` when a step is forbidden); ``road_bonus`` says
    whether the B3.4 extra MF applies to this path; ``allowance`` is the allowance after that bonus.
    """

    allowed: bool
    cost: Fraction | None
    units: str
    road_bonus: bool
    allowance: Fraction
    steps: tuple[MoveRuling, ...]
    start: Location
    reason: str | None = None
    forbidden_by: str | None = None
    prefix: str | Naming = ""
    #: why a unit that could earn the B3.4 road bonus does not on this path (None when it does, or cannot)
    bonus_lost: str | None = None

    def rules(self) -> tuple[str, ...]:
        """The distinct rule references of the steps, the road bonus (B3.4) and the forbidding rule."""
        rs: list[str] = []
        for s in self.steps:
            rs.extend(s.rules())
        if self.road_bonus:
            rs.append("B3.4")
        if self.forbidden_by:
            rs.append(self.forbidden_by)
        return distinct(rs)

    def explain(self) -> str:
        """Sentences a player can check: the steps' costs, the road bonus (B3.4) and the verdict."""
        start = self.start.text(self.prefix)
        if self.cost is None:
            return f"The move from {start} is not allowed: {self.reason} ({self.forbidden_by})."
        s = (f"The move from {start} through {len(self.steps)} step{'s' if len(self.steps) != 1 else ''} costs "
             f"{fmt(self.cost)} {self.units}")
        s += " (" + " + ".join(fmt(x.cost) for x in self.steps) + ")." if self.steps else "."
        if self.road_bonus:
            s += (f" Every hexside crossed is a road hexside and nothing spoils it, so the road bonus raises "
                  f"the allowance to {fmt(self.allowance)} {self.units} (B3.4).")
        else:
            s += f" The allowance is {fmt(self.allowance)} {self.units}"
            s += f" ({self.bonus_lost}, B3.4)." if self.bonus_lost else "."
        if not self.allowed:
            s += f" Not allowed: {self.reason} ({self.forbidden_by})."
        return s

    def to_json(self) -> dict[str, Any]:
        """The queries.md ``path`` answer: each step a ``move`` answer."""
        out: dict[str, Any] = {
            "kind": "path",
            "allowed": self.allowed,
            "cost": num(self.cost),
            "units": self.units,
            "road_bonus": self.road_bonus,
            "allowance": num(self.allowance),
            "steps": [s.to_json() for s in self.steps],
            "from": self.start.text(self.prefix),
        }
        if not self.allowed:
            out["reason"] = self.reason
        out["rules"] = list(self.rules())
        out["explain"] = self.explain()
        if self.bonus_lost:
            out["road_bonus_lost"] = self.bonus_lost
        return out


@dataclass(frozen=True, slots=True)
class Reached:
    """One Location (or Bypass position) reached: its least cost and one cheapest path to it.

    ``road_bonus``: reached only thanks to the B3.4 road bonus; ``all_mf``: entered by a move that takes ALL
    the unit's MF/MP (its cost is then the whole allowance)."""

    location: Location
    cost: Fraction
    path: tuple[Location, ...]
    road_bonus: bool
    all_mf: bool = False


@dataclass(frozen=True, slots=True)
class ReachRuling:
    """Every Location a unit can reach with its allowance (queries.md ``reach``).

    ``reached`` holds, by canonical name order of discovery, each Location and Bypass position with its
    least cost and one cheapest path; ``road_bonus`` is true for those that need the B3.4 bonus.
    """

    start: Location
    allowance: Fraction
    units: str
    reached: tuple[Reached, ...]
    rules_used: tuple[str, ...] = ()
    prefix: str | Naming = ""
    #: its Locations with their names, as the search already made them (named by ``prefix``): the paths
    #: share their Locations, and every Location reached is named once, not once per answer key
    named: tuple[tuple[Location, str], ...] = field(default=(), compare=False, repr=False)

    def _namer(self) -> Callable[[Location], str]:
        """The canonical name of one of this ruling's Locations (each named once, by identity: no hashing;
        the identities are taken here, from the Locations held, so a copied ruling names its own)."""
        names = {id(x): n for x, n in self.named}

        def name(x: Location) -> str:
            got = names.get(id(x))
            if got is None:
                got = names[id(x)] = x.text(self.prefix)
            return got

        return name

    @property
    def costs(self) -> dict[str, Fraction]:
        """Canonical name -> least cost (the start at 0)."""
        name = self._namer()
        return {name(r.location): r.cost for r in self.reached}

    @property
    def paths(self) -> dict[str, list[str]]:
        """Canonical name -> one cheapest path, as names."""
        name = self._namer()
        return {name(r.location): [name(x) for x in r.path] for r in self.reached}

    def cost_of(self, loc: Location | str) -> Fraction | None:
        """The least cost of reaching ``loc`` (a Location or its canonical name), or None."""
        name = loc.text(self.prefix) if isinstance(loc, Location) else loc
        return self.costs.get(name)

    def hex_costs(self) -> dict[Hex, Fraction]:
        """The least cost of reaching any Location of each hex (for drawing a reach map)."""
        out: dict[Hex, Fraction] = {}
        for r in self.reached:
            h = r.location.hex
            if h not in out or r.cost < out[h]:
                out[h] = r.cost
        return out

    def rules(self) -> tuple[str, ...]:
        """The distinct rule references of the moves on the cheapest paths (and B3.4 when the bonus is used)."""
        return self.rules_used

    def explain(self) -> str:
        """How many Locations the unit reaches, and how many only with the road bonus (B3.4)."""
        start = self.start.text(self.prefix)
        n = len(self.reached)
        hexes = len({r.location.hex for r in self.reached})
        s = (f"From {start} with {fmt(self.allowance)} {self.units}, the unit can reach {n} Location"
             f"{'s' if n != 1 else ''} and Bypass position{'s' if n != 1 else ''} in {hexes} hex"
             f"{'es' if hexes != 1 else ''}, each at its least cost.")
        nb = sum(1 for r in self.reached if r.road_bonus)
        if nb:
            s += f" {nb} of them only with the road bonus of a move crossing nothing but road hexsides (B3.4)."
        return s

    def to_json(self) -> dict[str, Any]:
        """The queries.md ``reach`` answer (and more: the Locations needing the road bonus, the ALL moves)."""
        name = self._namer()
        return {
            "kind": "reach",
            "from": self.start.text(self.prefix),
            "allowance": num(self.allowance),
            "units": self.units,
            "costs": {name(r.location): num(r.cost) for r in self.reached},
            "paths": {name(r.location): [name(x) for x in r.path] for r in self.reached},
            "road_bonus": [name(r.location) for r in self.reached if r.road_bonus],
            "all": [name(r.location) for r in self.reached if r.all_mf],
            "rules": list(self.rules()),
            "explain": self.explain(),
        }


@dataclass(frozen=True, slots=True)
class VcaRuling:
    """The ruling on a vehicle's VCA change (P5.123 on a Narrow Street; D2.11/D2.33 elsewhere)."""

    allowed: bool
    cost: Fraction | None
    units: str
    items: tuple[Item, ...] = ()
    reason: str | None = None
    forbidden_by: str | None = None
    at: str = ""
    hexspines: int = 0

    def rules(self) -> tuple[str, ...]:
        """The distinct rule references of the items (and the forbidding rule)."""
        rs = [i.rule for i in self.items]
        if self.forbidden_by:
            rs.append(self.forbidden_by)
        return distinct(rs)

    def explain(self) -> str:
        """The verdict with its cost items or the forbidding rule."""
        what = f"Changing the VCA {self.hexspines} hexspine{'s' if self.hexspines != 1 else ''} at {self.at}"
        if not self.allowed:
            return f"{what} is not allowed: {self.reason} ({self.forbidden_by})."
        return (f"{what} costs {fmt(self.cost)} {self.units}: "
                + "; ".join(f"{fmt(i.amount)} {i.why} ({i.rule})" for i in self.items) + ".")

    def to_json(self) -> dict[str, Any]:
        """The queries.md ``vca-change`` answer."""
        out: dict[str, Any] = {
            "kind": "vca-change",
            "allowed": self.allowed,
            "cost": num(self.cost),
            "units": self.units,
            "items": [{"cost": num(i.amount), "why": i.why, "rule": i.rule} for i in self.items],
        }
        if not self.allowed:
            out["reason"] = self.reason
        out["rules"] = list(self.rules())
        out["explain"] = self.explain()
        return out


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a :func:`path`: to a Location, or in Bypass along a hexside.

    ``to`` is the Location entered (or a Bypass position); ``bypass``/``in_hex``/``to_vertex`` describe a
    Bypass step (moving in Bypass along that hexside, in that hex, to that vertex); ``road_rate`` chooses
    the road rate where B3.4 leaves it to the mover (None: the cheaper legal way); ``protection`` pays
    the extra MF for woods/shellhole protection or takes an orchard's cover (B3.43); ``declared_vertex``
    is the side of a Narrow Street roadblock a unit crossing its hexside declares (P5.141).
    """

    to: Location | None = None
    bypass: Hexside | None = None
    in_hex: Hex | None = None
    to_vertex: Vertex | None = None
    road_rate: bool | None = None
    protection: bool = False
    declared_vertex: Vertex | None = None


def _total(items: Sequence[Item]) -> Fraction:
    """The sum of the items' amounts (the COT so far, or a ruling's cost)."""
    if len(items) == 1 and type(items[0].amount) is Fraction:
        return items[0].amount  # most moves have one item: no Fraction arithmetic (Python code, per move)
    t = ZERO
    for i in items:
        t += i.amount
    return t
