"""Set-up legality and stacking: what may be set up (or placed) in a Location, and how much may stack there.

Decides B3.5 (no hidden mines or entrenchments in a paved road hex), P4.21 (nothing set up IN a Stream
Culvert), P5.14 (Fortifications beside a paved Narrow Street), P5.142 (mines in a hex with a paved
Narrow Street hexside are set up revealed, and its Crest-Line exemption), P5.2 (a Steeple Location
cannot be Fortified), P5.21 (no Gun in a Steeple), the roadblock set-up of B29.1 / P5.141, and the
stacking limits of A5.1, P4.2 and P5.21. The numbers come from the terrain chart; a set-up the rules
forbid is a ruling (``allowed=False`` with its reason and rule), never an exception. Locations come from
:meth:`~asl_terrain.model.Map.parse_location` (which checks that they exist) and are not checked again.

Imports: chart, errors, model, rulings, units. Never effects, movement, los, ask, cli or render.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from .chart import Chart, default_chart
from .errors import QueryError
from .grid import Hex, Hexside, Vertex
from .model import Location, Map
from .rulings import Explained, Ruling, fmt, num

__all__ = [
    "MINE_KINDS",
    "SETUP_ITEMS",
    "STACKING_UNITS",
    "SetupRuling",
    "MineKind",
    "SetupItem",
    "StackingRuling",
    "can_set_up",
    "is_paved_road_hex",
    "is_steeple",
    "mines_must_be_revealed",
    "paved_narrow_street_hexsides",
    "squad_equivalents",
    "stacking_limit",
]

#: a set-up item of queries.md (the engine's typed choice; ``ask`` parses the name)
SetupItem = Literal["unit", "gun", "squad", "half-squad", "entrenchment", "mines", "roadblock", "fortification",
                    "fortified-building"]
#: the set-up items queries.md knows
SETUP_ITEMS: tuple[SetupItem, ...] = ("unit", "gun", "squad", "half-squad", "entrenchment", "mines", "roadblock",
                                      "fortification", "fortified-building")
#: a minefield's kind (B28.1)
MineKind = Literal["A-P", "A-T"]
MINE_KINDS: tuple[MineKind, ...] = ("A-P", "A-T")
#: what a stacking check counts, and its squad-equivalents (A5.1); SMC count against the SMC allowance
STACKING_UNITS = ("squad", "half-squad", "crew", "leader", "smc", "gun")
_FORTIFICATIONS = ("entrenchment", "mines", "roadblock", "fortification", "fortified-building")


# ---------------------------------------------------------------------------------------------- rulings


@dataclass(frozen=True, slots=True)
class SetupRuling(Explained):
    """May ``item`` be set up at ``at``, exactly as asked (queries.md ``setup``)."""

    item: str
    at: str
    allowed: bool
    must_be_revealed: bool
    reason: str | None
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return Ruling("setup", {"item": self.item, "at": self.at, "allowed": self.allowed,
                                "must_be_revealed": self.must_be_revealed, "reason": self.reason},
                      extra_rules=self.rules(), sentences=self.sentences).to_json()


@dataclass(frozen=True, slots=True)
class StackingRuling(Explained):
    """The stacking limit of a Location (A5.1, P4.2, P5.21); with ``units``, whether they overstack it."""

    at: str
    squad_equivalents: Fraction
    guns_allowed: bool
    smc_allowed: int
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]
    counted: Fraction | None = None
    overstacked: bool | None = None

    @property
    def limit(self) -> str:
        """The limit in words."""
        n = self.squad_equivalents
        if n == Fraction(1, 2):
            return "one half-squad equivalent"
        if n == 1:
            return "one squad equivalent"
        return f"{fmt(n)} squad equivalents"

    def to_json(self) -> dict[str, Any]:
        values: dict[str, Any] = {"at": self.at, "squad_equivalents": num(self.squad_equivalents),
                                  "limit": self.limit, "guns_allowed": self.guns_allowed,
                                  "smc_allowed": self.smc_allowed}
        if self.counted is not None:
            values["counted"] = num(self.counted)
            values["overstacked"] = self.overstacked
        return Ruling("stacking", values, extra_rules=self.rules(), sentences=self.sentences).to_json()


# ---------------------------------------------------------------------------------------------- terrain facts


def is_paved_road_hex(m: Map, h: Hex) -> bool:
    """A paved road hex: a road depiction of paved type crosses one of its hexsides (B3.1: a hex with both
    paved and dirt roads is paved). A Narrow Street hexside alone does not make it one (P5.14, digest §7.36).
    """
    return any(hs.road == "paved" for hs in m.hexsides_of(h))


def _road_hexsides(m: Map, h: Hex) -> list[Hexside]:
    """The hexsides of ``h`` a paved road crosses that are not also Narrow Streets (P5.1)."""
    return [hs.hexside for hs in m.hexsides_of(h) if hs.road == "paved" and hs.narrow_street is None]


def _road_names(m: Map, h: Hex) -> str:
    """The real paved road hexsides of ``h``, named for an explanation."""
    return "hexside " + _names(m, _road_hexsides(m, h))


def paved_narrow_street_hexsides(m: Map, h: Hex) -> tuple[Hexside, ...]:
    """The hexsides of ``h`` a paved Narrow Street overprints (P5.1)."""
    return tuple(hs.hexside for hs in m.hexsides_of(h) if hs.narrow_street == "paved")


def _narrow_street_hexsides(m: Map, h: Hex) -> tuple[Hexside, ...]:
    """The hexsides of ``h`` a Narrow Street (paved or unpaved) overprints (P5.1)."""
    return tuple(hs.hexside for hs in m.hexsides_of(h) if hs.narrow_street is not None)


def mines_must_be_revealed(m: Map, h: Hex, chart: Chart | None = None) -> bool:
    """Mines set up in ``h`` must be placed on-map revealed: ``h`` has a paved Narrow Street hexside and is
    not exempt because its Narrow Street hexsides are all Crest Lines toward lower hexes (P5.142).

    Notes
    -----
    The exemption reads ``judgment.mines_revealed_exemption`` (digest §7.30, [U]): with
    ``"paved-crest-lower"`` only the paved Narrow Street hexsides must be such Crest Lines, with
    ``"all-crest-lower"`` every Narrow Street hexside of the hex.
    """
    chart = chart or default_chart()
    paved = paved_narrow_street_hexsides(m, h)
    if not paved:
        return False
    mode = chart.judgment("mines_revealed_exemption").value
    considered = _narrow_street_hexsides(m, h) if mode == "all-crest-lower" else paved
    # exempt: a unit Bypassing along each is in the other, lower hex of a Crest Line (P5.11)
    return not all(m.crest_narrow_street_lower_hex(hs) == hs.other(h) for hs in considered)


def is_steeple(m: Map, loc: Location) -> bool:
    """``loc`` is the Steeple Location of its hex (P5.2)."""
    t = m.terrain(loc.hex)
    return loc.place == "" and t.steeple_level is not None and loc.level == t.steeple_level


def _is_interior_building_hex(m: Map, h: Hex) -> bool:
    """``h`` is an interior building hex, where no minefield may be set up (B28.1): a building hex all of whose
    neighbours are hexes of the same building (``building_id``)."""
    t = m.terrain(h)
    if not t.is_building or t.building_id is None:
        return False
    ns = h.neighbours()
    return all(n in m and m.terrain(n).is_building and m.terrain(n).building_id == t.building_id for n in ns)


def _terrain_key(m: Map, loc: Location) -> str:
    """The key the chart's forbidden-terrain lists (B27.1, B28.1) use for ``loc``'s hex: IN a deep or flooded
    stream is a Water Obstacle (B20.43, B20.44)."""
    t = m.terrain(loc.hex)
    if t.is_stream and t.stream in ("deep", "flooded") and (t.is_in_stream(loc.place) or loc.place == "culvert"):
        return "water-obstacle"
    return t.terrain


# ---------------------------------------------------------------------------------------------- stacking


def squad_equivalents(unit: str, chart: Chart | None = None) -> Fraction:
    """The squad equivalents a unit counts for stacking (A5.1): a squad one, a half-squad or crew
    ``param.half_squad_equivalents``; SMC, Guns and other units none (they have allowances of their own)."""
    if unit == "squad":
        return Fraction(1)
    if unit in ("half-squad", "crew"):
        return Fraction((chart or default_chart()).param("half_squad_equivalents").value)
    return Fraction(0)


def stacking_limit(m: Map, at: Location, units: Sequence[str] | None = None,
                   chart: Chart | None = None) -> StackingRuling:
    """The stacking limit of Location ``at``: one squad equivalent IN a Stream Culvert (P4.2), one
    half-squad equivalent in a Steeple Location (P5.21), the normal limit elsewhere (A5.1).

    Parameters
    ----------
    m : Map
    at : Location
        The Location (a Bypass position counts as its hex's Location).
    units : sequence of str, optional
        Units to stack there, names of :data:`STACKING_UNITS` (``"squad"``, ``"half-squad"``, ``"crew"``,
        ``"leader"``/``"smc"``, ``"gun"``); the ruling then says whether they overstack it.

    Notes
    -----
    SMC keep the normal SMC allowance in a Steeple and a Culvert (``judgment.smc_in_small_locations``,
    digest §7.27, [U]). No Gun may be set up in a Steeple (P5.21) nor enter a Culvert (P4.21).

    Examples
    --------
    >>> from asl_terrain.model import Map
    >>> m = Map.from_data({"format": "asl-terrain/1", "columns": ["A", "C"], "rows": [1, 3]})
    >>> stacking_limit(m, m.parse_location("B2")).limit
    '3 squad equivalents'
    """
    chart = chart or default_chart()
    name = m.name_of(at.base())
    smc = int(chart.param("stacking_smc").value)
    if at.place == "culvert":
        p = chart.param("culvert_stacking_squads")
        limit, guns, rules = p.value, False, [p.rule, "P4.21"]
        sentences = [f"{name} is a Stream Culvert Location: its stacking limit is one squad equivalent "
                     f"({p.rule}), and no Gun may enter it (P4.21)."]
    elif is_steeple(m, at):
        p = chart.param("steeple_stacking_squads")
        limit, guns, rules = p.value, False, [p.rule]
        sentences = [f"{name} is a Steeple Location: its stacking limit is one half-squad equivalent and no "
                     f"Gun may be set up in it ({p.rule})."]
    else:
        p = chart.param("stacking_squads")
        limit, guns, rules = p.value, True, [p.rule]
        sentences = [f"{name} has the normal stacking limit of {fmt(p.value)} squad equivalents ({p.rule})."]
    if limit < 1 or at.place == "culvert":
        if chart.judgment("smc_in_small_locations").value:
            sentences.append(f"SMC keep the normal allowance of {smc} ({chart.param('stacking_smc').rule}; "
                             f"judgment smc_in_small_locations [{chart.judgment('smc_in_small_locations').tag}]).")
        else:
            smc = 0
    counted: Fraction | None = None
    over: bool | None = None
    if units is None:
        # the units the map places there ([[unit]], e.g. from a VASL save) count against the limit
        placed = m.units_at(at)
        if placed:
            units = [u.kind for u in placed if u.kind in STACKING_UNITS]
            left = [u for u in placed if u.kind not in STACKING_UNITS]
            sentences.append(f"On the map in {name}: {', '.join(f'{u.name} ({u.kind})' for u in placed)}"
                             + (f"; {', '.join(u.name for u in left)} not counted (SW, vehicles)" if left else "")
                             + ".")
    if units is not None:
        counted = Fraction(0)
        n_smc = 0
        n_guns = 0
        for u in units:  # names of STACKING_UNITS (ask checks them)
            if u in ("squad", "half-squad", "crew"):
                counted += squad_equivalents(u, chart)
            elif u == "gun":
                n_guns += 1
            else:
                n_smc += 1
        over = counted > limit or n_smc > smc or (n_guns > 0 and not guns)
        sentences.append(f"{', '.join(units) or 'nothing'}: {fmt(counted)} squad equivalent(s)"
                         f"{f', {n_smc} SMC' if n_smc else ''}{f', {n_guns} Gun(s)' if n_guns else ''}: "
                         f"{'overstacked' if over else 'within the limit'}.")
    return StackingRuling(name, limit, guns, smc, tuple(rules), tuple(sentences), counted, over)


# ---------------------------------------------------------------------------------------------- set-up


def can_set_up(m: Map, item: SetupItem, at: Location | None, *, mine_kind: MineKind | None = None,
               hidden: bool = False, hexside: Hexside | None = None, arrow: Vertex | None = None,
               chart: Chart | None = None) -> SetupRuling:
    """Whether ``item`` may be set up at ``at`` exactly as asked (B3.5, P4.21, P5.14, P5.142, P5.2, P5.21,
    B28.1, B29.1, P5.141).

    Parameters
    ----------
    m : Map
    item : str
        One of :data:`SETUP_ITEMS`.
    at : Location or None
        Where (may be left out for a roadblock, which names its ``hexside``).
    mine_kind : ``"A-P"`` or ``"A-T"``
        For mines.
    hidden : bool
        Mines (or an entrenchment) set up hidden (HIP).
    hexside : Hexside
        A roadblock's hexside. ``arrow``: the vertex its arrow points to (P5.141), optional.

    Returns
    -------
    SetupRuling
        ``allowed`` for this set-up as asked (hidden mines where they must be revealed are not allowed),
        ``must_be_revealed`` for mines that P5.142 forces on-map revealed.

    Raises
    ------
    QueryError
        For an item the engine does not know, a missing ``at``/``hexside``/``mine_kind``.

    Notes
    -----
    A hex whose only road is a paved Narrow Street hexside is not a paved road hex for B3.5, and P5.14
    lets Fortifications not normally allowed in a paved road hex be placed in a hex with a paved Narrow
    Street hexside unless other terrain forbids them (digest §7.36, [U]). Terrain that forbids
    entrenchments and minefields is listed in the chart (``param.entrenchment_forbidden_terrain``,
    ``param.mines_forbidden_terrain``).

    Examples
    --------
    >>> from asl_terrain.model import Map
    >>> m = Map.from_data({"format": "asl-terrain/1", "columns": ["A", "C"], "rows": [1, 3],
    ...                    "hexside": [{"at": ["B2-B3"], "road": "paved"}]})
    >>> can_set_up(m, "entrenchment", m.parse_location("B2")).allowed
    False
    """
    chart = chart or default_chart()
    if item not in SETUP_ITEMS:
        raise QueryError(f"item: unknown set-up item {item!r}; expected one of {', '.join(SETUP_ITEMS)}")
    if item == "roadblock":
        return _roadblock(m, at, hexside, arrow)
    if at is None:
        raise QueryError("missing key 'at': the Location to set up in")
    if at.is_bypass:
        raise QueryError(f"at: {m.name_of(at)} is a Bypass position; set-up is in a Location such as "
                         f"{m.name_of(at.base())}")
    if item == "mines" and mine_kind not in ("A-P", "A-T"):
        raise QueryError(f"mine_kind: expected \"A-P\" or \"A-T\", got {mine_kind!r}")
    ctx = _SetUp.of(m, chart, item, at, mine_kind, hidden)
    for rule in (*_ANY_ITEM, *_RULES_BY_ITEM.get(item, _FORTIFICATION)):
        ruling = rule(ctx)
        if ruling is not None:
            return ruling
    raise AssertionError(f"no set-up rule decided {item!r}")  # each tuple ends with a rule that always decides


# ------------------------------------------------------------------------------- set-up as a rulebook
#
# Each rule below decides one restriction (or permission) and cites it; ``can_set_up`` asks them in order and
# the first that answers decides. A new restriction is one function, put in its place in the tuples at the end.


@dataclass(frozen=True, slots=True)
class _SetUp:
    """What the set-up rules read: the question, and the facts of its hex they share."""

    m: Map
    chart: Chart
    item: str
    at: Location
    mine_kind: str | None
    hidden: bool
    name: str
    what: str
    steeple: bool
    paved_ns: tuple[Hexside, ...]
    paved_road: bool  # a real paved road hexside (not also a Narrow Street): P5.14 does not lift B3.5 there
    terrain: str

    @classmethod
    def of(cls, m: Map, chart: Chart, item: str, at: Location, mine_kind: str | None, hidden: bool) -> _SetUp:
        h = at.hex
        return cls(m, chart, item, at, mine_kind, hidden, m.name_of(at), _item_words(item, mine_kind, hidden),
                   is_steeple(m, at), paved_narrow_street_hexsides(m, h), bool(_road_hexsides(m, h)),
                   _terrain_key(m, at))

    def no(self, reason: str, *rules: str, revealed: bool = False) -> SetupRuling:
        return SetupRuling(self.item, self.name, False, revealed, reason, rules,
                           (f"{self.what} may not be set up in {self.name}: {reason}.",))

    def yes(self, sentence: str, *rules: str, revealed: bool = False) -> SetupRuling:
        return SetupRuling(self.item, self.name, True, revealed, None, rules,
                           (f"{self.what} may be set up in {self.name}: {sentence}.",))

    @property
    def hex_name(self) -> str:
        return self.m.name_of(self.at.hex)

    def road(self) -> str:
        return f"a paved road crosses {_road_names(self.m, self.at.hex)}"

    def ns_does_not_lift(self) -> str:
        """The clause saying a paved Narrow Street beside a real paved road does not lift B3.5 (P5.14)."""
        return (f"; its paved Narrow Street hexside ({_names(self.m, self.paved_ns)}) does not lift that (P5.14)"
                if self.paved_ns else "")


_Rule = Callable[[_SetUp], "SetupRuling | None"]


def nothing_in_a_culvert(c: _SetUp) -> SetupRuling | None:
    """P4.21: nothing at all is set up IN a Stream Culvert."""
    if c.at.place == "culvert":
        return c.no("no unit, Equipment or Fortification may be set up IN a Stream Culvert (P4.21)", "P4.21")
    return None


def no_gun_in_a_steeple(c: _SetUp) -> SetupRuling | None:
    """P5.21: no Gun in a Steeple Location."""
    if c.steeple:
        return c.no("no Gun may be set up in a Steeple Location (P5.21)", "P5.21")
    return None


def gun_otherwise_allowed(c: _SetUp) -> SetupRuling:
    """No rule of the seeds forbids a Gun elsewhere (P5.21 and P4.21 checked before)."""
    return c.yes("no rule of the seeds forbids it (P5.21 and P4.21 do not apply)", "P5.21")


def steeple_cannot_be_fortified(c: _SetUp) -> SetupRuling | None:
    """P5.2: a Steeple Location cannot be Fortified."""
    if c.steeple:
        return c.no("a Steeple Location cannot be Fortified (P5.2)", "P5.2")
    return None


def only_building_locations_fortified(c: _SetUp) -> SetupRuling:
    """B23.9: only a building Location can be Fortified."""
    if not c.m.terrain(c.at.hex).is_building or c.at.place:
        return c.no("only a building Location can be Fortified (B23.9)", "B23.9")
    return c.yes("it is a building Location (B23.9)", "B23.9")


def units_within_stacking_limit(c: _SetUp) -> SetupRuling:
    """A5.1, P4.2, P5.21: a unit is set up only where it does not exceed the Location's stacking limit."""
    limit = stacking_limit(c.m, c.at, chart=c.chart)
    rules = limit.rules()
    if squad_equivalents(c.item, c.chart) > limit.squad_equivalents:
        return c.no(f"a {c.item} exceeds its stacking limit of {limit.limit} ({', '.join(rules)})", *rules)
    return c.yes(f"its stacking limit is {limit.limit} ({', '.join(rules)})", *rules)


def entrenchment_at_ground_level(c: _SetUp) -> SetupRuling | None:
    """B27.1: an entrenchment is dug at ground level."""
    if c.at.level or c.at.place in ("rooftop",) or c.steeple:
        return c.no("an entrenchment is dug at ground level (B27.1)", "B27.1")
    return None


def entrenchment_terrain(c: _SetUp) -> SetupRuling | None:
    """B27.1: terrain where no entrenchment may be dug (``param.entrenchment_forbidden_terrain``)."""
    forbidden = c.chart.param("entrenchment_forbidden_terrain")
    if c.terrain in forbidden.value:
        return c.no(f"an entrenchment may not be dug in {c.terrain} ({forbidden.rule})", forbidden.rule)
    return None


def entrenchment_not_in_paved_road_hex(c: _SetUp) -> SetupRuling | None:
    """B3.5: no entrenchment in a paved road hex; a paved Narrow Street beside it does not lift that (P5.14)."""
    if c.paved_road:
        return c.no(f"{c.hex_name} is a paved road hex: {c.road()} (B3.5){c.ns_does_not_lift()}",
                    "B3.5", *(("P5.14",) if c.paved_ns else ()))
    return None


def entrenchment_beside_paved_narrow_street(c: _SetUp) -> SetupRuling:
    """P5.14: a paved Narrow Street hexside does not forbid what a paved road hex would (B3.5)."""
    if c.paved_ns:
        return c.yes(f"hex {c.hex_name} has a paved Narrow Street hexside ({_names(c.m, c.paved_ns)}), so a "
                     "Fortification not normally allowed in a paved road hex may be placed (P5.14)", "P5.14", "B3.5")
    return c.yes("nothing in the hex forbids it (B3.5, P5.14 do not apply)", "B3.5")


def minefield_at_ground_level(c: _SetUp) -> SetupRuling | None:
    """B28.1: a minefield lies in a hex's ground-level Location."""
    if c.at.level or c.at.place in ("rooftop",):
        return c.no("a minefield lies in a hex's ground-level Location (B28.1)", "B28.1")
    return None


def minefield_terrain(c: _SetUp) -> SetupRuling | None:
    """B28.1: terrain where no minefield may be set up (``param.mines_forbidden_terrain``)."""
    forbidden = c.chart.param("mines_forbidden_terrain")
    if c.terrain in forbidden.value:
        return c.no(f"no minefield may be set up in {c.terrain} ({forbidden.rule})", forbidden.rule)
    return None


def minefield_not_in_interior_building_hex(c: _SetUp) -> SetupRuling | None:
    """B28.1: no minefield in an interior building hex."""
    if _is_interior_building_hex(c.m, c.at.hex):
        return c.no("no minefield may be set up in an interior building hex (B28.1)", "B28.1")
    return None


def mines_in_paved_road_hex(c: _SetUp) -> SetupRuling | None:
    """B3.5, B28.1, B28.53: in a real paved road hex only non-hidden A-T mines, a paved Narrow Street beside
    it or not (P5.14 does not lift that); hidden ones beside a paved Narrow Street must be revealed (P5.142)."""
    if not c.paved_road:
        return None
    road, also = c.road(), c.ns_does_not_lift()
    extra = ("P5.14",) if c.paved_ns else ()
    if c.hidden:
        reveal = bool(c.paved_ns) and mines_must_be_revealed(c.m, c.at.hex, c.chart)
        return c.no(f"hidden mines may not be placed in a paved road hex ({c.hex_name}: {road}) (B3.5)"
                    + also + ("; and beside its paved Narrow Street they must be placed on-map revealed "
                              "(P5.142)" if reveal else ""), "B3.5", *extra, *(("P5.142",) if reveal else ()))
    if c.mine_kind == "A-T":
        return c.yes(f"non-hidden A-T mines may be set up in a paved road hex ({road}) (B28.53)", "B28.53", "B3.5")
    return c.no(f"only non-hidden A-T mines may be set up in a paved road hex ({road}) (B28.1, B28.53)" + also,
                "B28.1", "B28.53", "B3.5", *extra)


def mines_beside_paved_narrow_street(c: _SetUp) -> SetupRuling | None:
    """P5.142 (and P5.14): mines in a hex with a paved Narrow Street hexside are placed on-map revealed, unless
    its Narrow Street hexsides are Crest Lines toward lower hexes."""
    if not c.paved_ns:
        return None
    ns = _names(c.m, c.paved_ns)
    if not mines_must_be_revealed(c.m, c.at.hex, c.chart):
        return c.yes(f"every Narrow Street hexside of {c.hex_name} is a Crest Line toward a lower hex, so "
                     "they need not be revealed (P5.142 exception); P5.14 allows them", "P5.142", "P5.14")
    if c.hidden:
        return c.no(f"mines in a hex with a paved Narrow Street hexside ({ns}) must be placed on-map revealed "
                    "(P5.142)", "P5.142", revealed=True)
    return c.yes(f"revealed, as P5.142 requires in a hex with a paved Narrow Street hexside ({ns}); P5.14 "
                 "allows them beside a paved Narrow Street", "P5.142", "P5.14", revealed=True)


def mines_otherwise_allowed(c: _SetUp) -> SetupRuling:
    """P5.142: beside unpaved Narrow Streets mines may be hidden; elsewhere nothing of the seeds forbids them."""
    ns = _narrow_street_hexsides(c.m, c.at.hex)
    if ns:
        return c.yes(f"its Narrow Street hexsides ({_names(c.m, ns)}) are unpaved, so the mines may be hidden "
                     "(P5.142)", "P5.142")
    return c.yes("nothing in the hex forbids it (B3.5, P5.142 do not apply)", "B3.5")


def fortification_otherwise_allowed(c: _SetUp) -> SetupRuling:
    """A Fortification the seeds do not restrict further (P4.21 and P5.2 checked before)."""
    return c.yes("no rule of the seeds forbids it (P4.21, P5.14 checked)", "P5.14")


#: the rules every set-up meets first
_ANY_ITEM: tuple[_Rule, ...] = (nothing_in_a_culvert,)
#: then the rules of its item, in order; the last one of each always decides
_UNITS: tuple[_Rule, ...] = (units_within_stacking_limit,)
_FORTIFICATION: tuple[_Rule, ...] = (steeple_cannot_be_fortified, fortification_otherwise_allowed)
_RULES_BY_ITEM: dict[str, tuple[_Rule, ...]] = {
    "gun": (no_gun_in_a_steeple, gun_otherwise_allowed),
    "fortified-building": (steeple_cannot_be_fortified, only_building_locations_fortified),
    "squad": _UNITS,
    "half-squad": _UNITS,
    "unit": _UNITS,
    "entrenchment": (entrenchment_at_ground_level, entrenchment_terrain, entrenchment_not_in_paved_road_hex,
                     entrenchment_beside_paved_narrow_street),
    "mines": (minefield_at_ground_level, minefield_terrain, minefield_not_in_interior_building_hex,
              mines_in_paved_road_hex, mines_beside_paved_narrow_street, mines_otherwise_allowed),
}


def _roadblock(m: Map, at: Location | None, hexside: Hexside | None, arrow: Vertex | None) -> SetupRuling:
    """A roadblock: on a road hexside (B29.1) or straddling a Narrow Street hexside with its arrow to one of
    that hexside's vertices (P5.141)."""
    if hexside is None:
        raise QueryError("missing key 'hexside': a roadblock names the hexside it blocks, e.g. \"O17-O18\"")
    name = m.name_of(hexside)
    where = m.name_of(at) if at is not None else name
    if at is not None and at.hex not in hexside.hexes:
        raise QueryError(f"at: {m.name_of(at)} is not a hex of hexside {name}")
    t = m.hexside(hexside)
    if arrow is not None and arrow not in hexside.vertices():
        return SetupRuling("roadblock", where, False, False,
                           f"its arrow must point to a vertex of {name} (P5.141)", ("P5.141",),
                           (f"A roadblock may not be set up on {name} with its arrow to {m.name_of(arrow)}: the "
                            f"arrow must point to a vertex of {name} (P5.141).",))
    if t.narrow_street is not None:
        return SetupRuling("roadblock", where, True, False, None, ("P5.141",),
                           (f"A roadblock may be set up straddling Narrow Street hexside {name}, its arrow to one "
                            "of that hexside's vertices; it extends from centre dot to centre dot (P5.141).",))
    if t.road is not None:
        return SetupRuling("roadblock", where, True, False, None, ("B29.1",),
                           (f"A roadblock may be set up on road hexside {name} (B29.1).",))
    return SetupRuling("roadblock", where, False, False, f"{name} is not a road or Narrow Street hexside (B29.1)",
                       ("B29.1", "P5.141"),
                       (f"A roadblock may not be set up on {name}: it is neither a road hexside (B29.1) nor a "
                        "Narrow Street hexside (P5.141).",))


def _item_words(item: str, mine_kind: str | None, hidden: bool) -> str:
    if item == "mines":
        return f"{'Hidden' if hidden else 'Revealed'} {mine_kind} mines"
    return {"unit": "A unit", "gun": "A Gun", "squad": "A squad", "half-squad": "A half-squad",
            "entrenchment": "An entrenchment", "fortification": "A Fortification",
            "fortified-building": "A Fortified building Location"}[item]


def _names(m: Map, hexsides: Iterable[Hexside]) -> str:
    return ", ".join(m.name_of(hs) for hs in hexsides)
