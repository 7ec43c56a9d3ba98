"""One move, however it is asked: into an adjacent hex, to another Location of the unit's hex, in Bypass, or
out of Bypass; and the VCA change a vehicle makes to face the hex it enters (D2.11).

This is where :func:`.api.move_cost` and :func:`.api.path` send every step, so they and :func:`.api.reach`
(whose tables call the same rules) can never disagree.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import NotAdjacent, QueryError
from ..grid import Hex, Hexside, Vertex
from ..model import Location
from ..rulings import Item
from .bypass import bypass_step, bypass_to_interior, cheapest, start_vertices
from .context import Context
from .entry import hex_entry
from .levels import level_change
from .rulings import ZERO, MoveRuling, Prohibition
from .terrain import _hexsides_at, _in_vca_obstacle, _other_end, bypass_ns


def move(c: Context, frm: Location, to: Location | None = None, *, bypass: Hexside | None = None,
         in_hex: Hex | None = None, to_vertex: Vertex | None = None, road_rate: bool | None = None,
         protection: bool = False, declared_vertex: Vertex | None = None) -> MoveRuling:
    """The ruling on one move, however it is asked (see :func:`.api.move_cost`); a query that asks for no
    move the rules know raises QueryError naming the key."""
    if to is not None and to.is_bypass and bypass is None:
        if to.bypass is not None:
            return bypass_step(c, frm, to.bypass, to.hex, to.vertex)
        assert to.vertex is not None
        starts = start_vertices(frm)
        cands = [hs for hs in _hexsides_at(to.hex, to.vertex) if _other_end(hs, to.vertex) in starts]
        if not cands:
            raise NotAdjacent(f"to: Bypass position {c.n(to)} cannot be reached in one move from "
                              f"{c.n(frm)}")
        return cheapest([bypass_step(c, frm, hs, to.hex, to.vertex) for hs in cands])
    if bypass is not None:
        return bypass_step(c, frm, bypass, in_hex, to_vertex)
    if to is None:
        raise QueryError("missing key 'to' (or 'bypass'); expected the Location entered")
    if to.place == "rooftop" or frm.place == "rooftop":
        raise QueryError("Rooftop movement (B23.8) is not modelled by this engine")
    if to.base() == frm.base() and not frm.is_bypass:
        raise QueryError(f"to: {c.n(to)} is the Location the unit is in")
    if frm.is_bypass:
        if to.hex == frm.hex:
            if to.level or to.place:
                return c.na(frm, to, Prohibition("a unit in Bypass enters the ground Location of its hex first",
                                                 "A4.3"))
            return bypass_to_interior(c, frm, to)
        if not any(to.hex in v.hexes for v in start_vertices(frm)):
            raise NotAdjacent(f"to: {c.n(to.hex)} does not touch the Bypass position {c.n(frm)}")
        return hex_entry(c, frm, to, road_rate=road_rate, protection=protection, along_ns=bypass_ns(frm, c.m),
                         declared_vertex=declared_vertex)
    if to.hex == frm.hex:
        return level_change(c, frm, to)
    if not frm.hex.is_adjacent(to.hex):
        raise NotAdjacent(f"to: {c.n(to.hex)} is not adjacent to {c.n(frm.hex)}; a move enters an adjacent "
                          "hex")
    return hex_entry(c, frm, to, road_rate=road_rate, protection=protection, declared_vertex=declared_vertex)


def with_vca(c: Context, r: MoveRuling, vca: int | None) -> tuple[MoveRuling, int | None]:
    """The ruling with the VCA change a vehicle (or Wagon) facing hexspine ``vca`` makes to enter the hex
    it moves into (D2.11: 1 MP a hexspine, 2 in a building, woods or rubble hex), and its VCA after it.
    Only for a move between the ground Locations of adjacent hexes; None where the VCA is not tracked."""
    if vca is None or not r.allowed or r.frm is None or r.to is None:
        return r, None
    frm, to = r.frm, r.to
    if frm.is_bypass or to.is_bypass or frm.hex == to.hex or not frm.hex.is_adjacent(to.hex):
        return r, None
    d = frm.hex.direction_to(to.hex)
    turn = min((d - vca) % 6, (vca - d) % 6)
    if not turn or r.all_mf:
        return r, d
    obstacle = _in_vca_obstacle(c.m, frm.hex, c.parameters.vca_obstacle_terrain.value)
    per = c.parameters.vca_change_in_obstacle_mp.value if obstacle else c.parameters.vca_change_mp.value
    item = Item(per * turn, f"changes VCA {turn} hexspine{'s' if turn > 1 else ''} to face {c.n(to.hex)}"
                            + (f" in {c.m.terrain(frm.hex).terrain} {c.n(frm.hex)}" if obstacle else ""),
                "D2.11")
    total = item.amount + (r.cost if r.cost is not None else ZERO)
    return replace(r, allowed=True, cost=total, items=(item, *r.items), reason=None, forbidden_by=None), d
