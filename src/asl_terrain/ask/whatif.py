"""What-if counters: a query's optional ``"counters"`` list replaces the map's counters for that query alone
(docs/map-format-extensions.md, "Additions to the ask batch"), as ``"conditions"`` overrides its conditions.

Each item is a counter object exactly as a map file's ``[[counter]]`` table writes it (map-format.md), in JSON:
``{"type": "smoke", "at": "O18", "strength": 2}``. The map file itself is never changed: the query is answered
on :meth:`Map.with_counters`, kept with the map (a small :class:`SharedCache` in :meth:`Map.derived`) so that
repeated questions about one situation stay warm.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..errors import AslTerrainError, QueryError
from ..grid import Hexside, Vertex
from ..mapfile import Counter as CounterModel
from ..model import Counter, Map, SharedCache

_ADAPTER: TypeAdapter[list[Any]] = TypeAdapter(list[CounterModel])


def counters_from_json(m: Map, data: Any) -> tuple[Counter, ...]:
    """The counters a query's ``"counters"`` list names, checked like a map file's and placed on ``m``.

    :raises QueryError: naming the item and key that is wrong (``counters[0].strength: ...``).
    """
    if not isinstance(data, list):
        raise QueryError("counters: expected a list of counter objects such as "
                         "[{\"type\": \"smoke\", \"at\": \"O18\", \"strength\": 2}]")
    try:
        models = _ADAPTER.validate_python(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = [str(x) for x in err["loc"]]  # (item, counter type, key): the type tag is left out
        where = f"counters[{loc[0]}]" + "".join(f".{x}" for x in loc[2:])
        raise QueryError(f"{where}: {err['msg']}; expected a counter as a map file's [[counter]] writes it "
                         "(map-format.md)") from None
    out: list[Counter] = []
    for i, c in enumerate(models):
        try:
            out.append(_counter(m, c))
        except AslTerrainError as e:
            raise QueryError(f"counters[{i}]: {e}") from None
    return tuple(out)


def _counter(m: Map, c: Any) -> Counter:
    if c.type == "roadblock":
        hs = m.parse_hexside(c.hexside)
        arrow = m.parse_vertex(c.arrow) if c.arrow is not None else None
        return Counter("roadblock", hexside=hs, arrow=arrow)
    at = m.parse_hex(c.at)
    bypass: Hexside | None = None
    if c.type in ("wreck", "vehicle") and c.bypass is not None:
        bypass = m.parse_hexside(c.bypass)
        if at not in bypass.hexes:
            raise QueryError(f"bypass {c.bypass!r} is not a hexside of {c.at}")
    if c.type == "smoke":
        return Counter("smoke", at=at, strength=c.strength, smoke_kind=c.kind)
    if c.type == "residual-fp":
        return Counter("residual-fp", at=at, fp=c.fp)
    if c.type == "mines":
        return Counter("mines", at=at, kind=c.kind, strength=c.strength, hidden=c.hidden)
    if c.type == "wreck":
        return Counter("wreck", at=at, bypass=bypass, burning=c.burning, name=c.name, facing=c.facing)
    if c.type == "vehicle":
        return Counter("vehicle", at=at, bypass=bypass, immobile=c.immobile, name=c.name, facing=c.facing)
    return Counter(c.type, at=at)


def counter_to_json(m: Map, c: Counter) -> dict[str, Any]:
    """A counter as a map file's ``[[counter]]`` writes it (the inverse of :func:`counters_from_json`)."""
    out: dict[str, Any] = {"type": c.type}
    if c.type == "roadblock":
        assert c.hexside is not None
        out["hexside"] = m.name_of(c.hexside)
        if c.arrow is not None:
            out["arrow"] = m.name_of(c.arrow) if isinstance(c.arrow, Vertex) else str(c.arrow)
        return out
    assert c.at is not None
    out["at"] = m.name_of(c.at)
    if c.type == "smoke":
        out["strength"] = c.strength
        if c.smoke_kind is not None:
            out["kind"] = c.smoke_kind
    elif c.type == "residual-fp":
        out["fp"] = c.fp
    elif c.type == "mines":
        out.update(kind=c.kind, strength=c.strength, hidden=c.hidden)
    elif c.type in ("wreck", "vehicle"):
        if c.bypass is not None:
            out["bypass"] = m.name_of(c.bypass)
        if c.type == "wreck":
            out["burning"] = c.burning
        else:
            out["immobile"] = c.immobile
        if c.name is not None:
            out["name"] = c.name
        if c.facing is not None:
            out["facing"] = c.facing
    return out


def what_if_map(m: Map, data: Any) -> Map:
    """``m`` with the counters of a query's ``"counters"`` list instead of its own (``m`` itself when they are
    the same counters, so its warm caches serve)."""
    counters = counters_from_json(m, data)
    if counters == m.counters:
        return m
    maps: SharedCache[tuple[Counter, ...], Map] = m.derived(("what-if",), partial(SharedCache, 16))
    return maps.get(counters, lambda: m.with_counters(counters))
