"""What the effects rulings share: the attack types, the answer of a ruling, and the Narrow Street
facts several rules read (ground-level Locations, the hexside a Bypass position is along).

Imports: chart, errors, grid, model, rulings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from ..chart import Chart
from ..errors import QueryError
from ..grid import Hex, Hexside
from ..model import Location, Map
from ..rulings import Item, Ruling


#: an attack type of queries.md (the engines' typed choice; ``ask`` parses the name)
Attack = Literal["small-arms", "ordnance", "ft", "indirect", "air-burst", "fire-lane", "aerial", "residual-fp"]
#: the attack types queries.md knows
ATTACKS: tuple[Attack, ...] = ("small-arms", "ordnance", "ft", "indirect", "air-burst", "fire-lane", "aerial",
                               "residual-fp")
#: attacks that need no firer (queries.md: ``firer`` may be left out)
NO_FIRER: tuple[Attack, ...] = ("indirect", "aerial", "residual-fp")
#: Direct Fire attacks that may claim slope TEM (P2.41: Direct Fire except FT)
SLOPE_TEM_ATTACKS = ("small-arms", "ordnance", "fire-lane", "air-burst")
#: attacks vs which a unit in terrain whose chart TEM has an ``air_burst`` value (woods, pine woods, and
#: stream-woods, P4.13) takes Air Burst instead of the terrain's TEM (B13.3)
AIR_BURST_ATTACKS = ("indirect", "air-burst")
#: Indirect Fire in the rules' sense: neither reaches a unit IN a Stream Culvert (P4.24)
INDIRECT_ATTACKS = ("indirect", "air-burst")
#: how a target entered its hex this phase (B3.3)
MovedBy = Literal["road-rate", "non-road"] | None
#: the ways a target may have entered its hex (queries.md ``moved_by``)
MOVED_BY: tuple[Literal["road-rate", "non-road"], ...] = ("road-rate", "non-road")


def ruling_json(kind: str, values: dict[str, Any], items: Sequence[Item], rules: Iterable[str],
                sentences: Sequence[str], item_key: str = "amount") -> dict[str, Any]:
    """The queries.md answer of a ruling: its values, then ``rules`` and ``explain`` (rulings.Ruling)."""
    return Ruling(kind, values, tuple(items), tuple(rules), tuple(sentences), item_key).to_json()


def is_ground_level(m: Map, loc: Location) -> bool:
    """``loc`` is a ground-level Location: the hex's base Location, not a building level, a Rooftop, a
    culvert or a Bypass position, and not IN a stream (where Crest status is the ground level), as P5
    uses the term ("the two ground-level Locations common to a Narrow Street hexside"; digest §1.5)."""
    if loc.is_bypass or loc.level:
        return False
    if loc.place == "crest":
        return True
    return loc.place == "" and not m.terrain(loc.hex).is_in_stream(loc.place)


def narrow_street_of(m: Map, loc: Location) -> Hexside | None:
    """The Narrow Street hexside a Bypass position ``loc`` is along (P5.11), or None.

    ``N17@N17-O17`` names it; ``N17@N17-O17-O18`` names a vertex, which gives the hexside when exactly one
    Narrow Street hexside of N17 ends at that vertex.
    """
    if loc.bypass is not None:
        return loc.bypass if m.hexside(loc.bypass).narrow_street is not None else None
    if loc.vertex is not None:
        found = [hs for hs in loc.vertex.hexsides()
                 if loc.hex in hs.hexes and m.hexside(hs).narrow_street is not None]
        return found[0] if len(found) == 1 else None
    return None


def check_narrow_street(m: Map, hs: Hexside, key: str = "hexside") -> None:
    """:raises QueryError: naming ``key`` when ``hs`` is not a Narrow Street hexside (P5.1: a road depiction
    overprinting the hexside), as queries.md asks of ``bypass-effects``."""
    if m.hexside(hs).narrow_street is None:
        raise QueryError(f"{key}: {m.name_of(hs)} is not a Narrow Street hexside (P5.1); expected a hexside a "
                         "road depiction overprints")


def tem_column(attack: str, chart: Chart) -> str:
    """The chart TEM column an attack reads: ``indirect`` for Indirect Fire and Air Bursts (B13.3, B23.3) and,
    by ``judgment.aerial_uses_indirect_tem`` (E7.4, [U]), Aerial attacks; ``direct`` otherwise."""
    if attack in ("indirect", "air-burst"):
        return "indirect"
    if attack == "aerial":
        return "indirect" if chart.judgment("aerial_uses_indirect_tem").value else "direct"
    return "direct"


def name_list(m: Map, xs: Iterable[Hex | Hexside]) -> str:
    return ", ".join(m.name_of(x) for x in xs)
