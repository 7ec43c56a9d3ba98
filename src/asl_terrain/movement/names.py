"""Parse once, at the edge: names and queries.md objects made into the typed values the movement engine
takes (a :class:`Unit`, a checked :class:`Location`, a :class:`Step`, an allowance as a Fraction).

The engine's own functions (:func:`.api.context`, :func:`.api.rule_move`, :func:`.api.rule_path`,
:func:`.api.rule_reach`) take typed values only, as python-chess's ``push`` takes a ``Move``; ``ask`` and the
CLI parse with these, and the name-taking :func:`.api.move_cost`, :func:`.api.path` and :func:`.api.reach`
(the ``push_san`` of this engine) do it for a Python caller. Errors name the key and what was expected.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..errors import QueryError, refuse_unknown_keys
from ..model import Location, Map
from ..units import Unit
from .rulings import Step
from .terrain import checked_location


def as_unit(unit: Unit | str | Mapping[str, Any] | None) -> Unit:
    """A :class:`Unit` from a Unit or queries.md's string/object forms (infantry when left out)."""
    if isinstance(unit, Unit):
        return unit
    return Unit.from_json(unit if unit is not None else "infantry")


def as_allowance(allowance: Any) -> Fraction | None:
    """An allowance (MF/MP) from a number >= 0 (a float by its decimal text, so 2.5 is exactly 5/2), or None."""
    if allowance is None:
        return None
    if isinstance(allowance, bool) or not isinstance(allowance, (int, float, Fraction)):
        raise QueryError(f"allowance: expected a number, got {allowance!r}")
    allow = Fraction(allowance) if not isinstance(allowance, float) else Fraction(str(allowance))
    if allow < 0:
        raise QueryError(f"allowance: expected a number >= 0, got {allowance!r}")
    return allow


def parse_location(m: Map, x: Location | str, key: str) -> Location:
    """The Location (or Bypass position) named (or given) by query key ``key``, checked against the map and
    in its canonical form (P5.11; :func:`.terrain.checked_location`)."""
    if isinstance(x, Location):
        return checked_location(m, x, key)
    try:
        if isinstance(x, str) and "/" not in x and "@" not in x:
            return Location(m.parse_hex(x))  # a hex names its ground Location
        loc = m.parse_location(x)
    except QueryError as e:
        raise type(e)(f"{key}: {e}") from None
    return checked_location(m, loc, key, parsed=True)


def parse_start(m: Map, x: Any) -> Location:
    """The start Location of a path (``hexes[0]``): a Location's name, never a step object."""
    if isinstance(x, (Mapping, Step)):
        raise QueryError("hexes[0]: expected the start Location's name")
    return parse_location(m, x, "hexes[0]")


def parse_step(m: Map, x: Any, i: int) -> Step:
    """Step ``i`` of a path from a Location name, a Location, a :class:`Step` or a queries.md step object;
    errors name ``hexes[i]`` and the key."""
    key = f"hexes[{i}]"
    if isinstance(x, Step):
        return x
    if isinstance(x, (str, Location)):
        return Step(to=parse_location(m, x, key))
    if not isinstance(x, Mapping):
        raise QueryError(f"{key}: expected a Location name or a step object such as {{\"to\": \"J10\"}}, got {x!r}")
    known = {"to", "bypass", "in", "to_vertex", "road_rate", "protection", "declared_vertex"}
    refuse_unknown_keys(x, known, f"{key}.")

    def flag(k: str) -> bool | None:
        v = x.get(k)
        if v is not None and not isinstance(v, bool):
            raise QueryError(f"{key}.{k}: expected true or false, got {v!r}")
        return v

    def wrap(k: str, fn: Any) -> Any:
        v = x.get(k)
        if v is None:
            return None
        if not isinstance(v, str):
            raise QueryError(f"{key}.{k}: expected a string, got {v!r}")
        try:
            return fn(v)
        except QueryError as e:
            raise type(e)(f"{key}.{k}: {e}") from None

    to = parse_location(m, x["to"], f"{key}.to") if x.get("to") is not None else None
    hs = wrap("bypass", m.parse_hexside)
    if to is None and hs is None:
        raise QueryError(f"{key}: a step needs \"to\" (a Location) or \"bypass\" (a hexside)")
    return Step(to=to, bypass=hs, in_hex=wrap("in", m.parse_hex), to_vertex=wrap("to_vertex", m.parse_vertex),
                road_rate=flag("road_rate"), protection=bool(flag("protection")),
                declared_vertex=wrap("declared_vertex", m.parse_vertex))
