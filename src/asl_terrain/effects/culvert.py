"""Stream Culverts: the units due a Replacement/Disruption check at the end of a Player Turn (P4.23, B20.7)
and Sniper targets (P4.24).

Imports: chart, model, rulings, and effects.common.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..chart import Chart, default_chart
from ..model import Conditions, Location, Map
from ..rulings import Explained, distinct
from .common import ruling_json


@dataclass(frozen=True, slots=True)
class SniperTarget(Explained):
    """Whether units in a Location are eligible Sniper targets (P4.24)."""

    eligible: bool
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return ruling_json("sniper-target", {"eligible": self.eligible}, (), self.rules(), self.sentences)


def sniper_target(m: Map, at: Location) -> SniperTarget:
    """A unit IN a Stream Culvert is an ineligible Sniper target (P4.24, A14.22)."""
    if at.place == "culvert":
        return SniperTarget(False, ("P4.24", "A14.22"),
                            (f"A unit IN the Stream Culvert {m.name_of(at)} is an ineligible Sniper target (P4.24).",))
    return SniperTarget(True, ("P4.24", "A14.22"),
                        (f"{m.name_of(at)} is not a Stream Culvert: P4.24 does not make its units ineligible "
                         "Sniper targets (A14.22 otherwise applies).",))


@dataclass(frozen=True, slots=True)
class Check:
    """A unit due a Replacement/Disruption check (P4.23, B20.7)."""

    type: str
    at: str
    rule: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "at": self.at, "rule": self.rule}


@dataclass(frozen=True, slots=True)
class EndOfPlayerTurn(Explained):
    """The units due a Replacement/Disruption check at the end of a Player Turn (P4.23, B20.7)."""

    checks: tuple[Check, ...]
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def rules(self) -> tuple[str, ...]:
        return distinct([*(c.rule for c in self.checks), *self.rule_refs])

    def to_json(self) -> dict[str, Any]:
        return ruling_json("end-of-player-turn", {"checks": [c.to_json() for c in self.checks]}, (), self.rules(),
                           self.sentences)


def end_of_player_turn(m: Map, units: Sequence[tuple[str, Location]], conditions: Conditions | None = None,
                       chart: Chart | None = None) -> EndOfPlayerTurn:
    """Each Infantry unit IN a Stream Culvert at the end of a Player Turn is due a Replacement/Disruption check
    as if IN a frigid Water Obstacle (P4.23); with frigid conditions, Infantry IN frigid stream water too
    (B20.7).

    Notes
    -----
    ``judgment.culvert_frigid_always`` (digest §7.20, [U]): the culvert check applies whatever the weather.
    """
    chart = chart or default_chart()
    conditions = conditions or m.conditions
    always = chart.judgment("culvert_frigid_always").value
    frigid_depths = chart.param("frigid_water_depths").value
    checks: list[Check] = []
    sentences: list[str] = []
    for typ, loc in units:
        name = m.name_of(loc)
        if typ != "infantry":
            sentences.append(f"{typ} at {name}: not Infantry, no check (P4.23).")
            continue
        t = m.terrain(loc.hex)
        if loc.place == "culvert" and (always or conditions.frigid):
            checks.append(Check(typ, name, "P4.23"))
            sentences.append(f"Infantry IN the Stream Culvert {name}: Replacement/Disruption check as if IN a frigid "
                             "Water Obstacle (P4.23).")
        elif (conditions.frigid and chart.judgment("frigid_in_stream").value
              and not loc.level and t.is_in_stream(loc.place) and t.stream in frigid_depths):
            checks.append(Check(typ, name, "B20.7"))
            sentences.append(f"Infantry IN frigid stream water at {name}: Replacement/Disruption check (B20.7).")
        else:
            sentences.append(f"Infantry at {name}: no check.")
    if not units:
        sentences.append("No units given.")
    return EndOfPlayerTurn(tuple(checks), ("P4.23",), tuple(sentences))
