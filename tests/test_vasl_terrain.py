"""Terrain that VASL's boards carry beyond the first six (issue 11): bocage (B9.5) and marsh as drawn
(B16.2), each from its rule on a small hand-made map and on the boards that have it.

The board tests read ``../shared/vasl`` (or ``$ASL_TERRAIN_VASL``) and are skipped, saying so, when it is
absent; the hand-made ones always run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from asl_terrain import vasl
from asl_terrain.effects import tem
from asl_terrain.los import los
from asl_terrain.model import Map
from asl_terrain.movement import move_cost

MAPS = Path(__file__).parent / "maps"
DATA = vasl.vasl_data_dir()


def needs(board: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(
        DATA is None or not (DATA / "oracle" / f"{board}.los.gz").is_file(),
        reason=f"the VASL data for {board} (boards/, oracle/) is not found: set ASL_TERRAIN_VASL or put it in "
               "../shared/vasl beside the repository")


@pytest.fixture(scope="module")
def bocage() -> Map:
    return Map.load(MAPS / "b9_bocage.toml")


def ruling(m: Map, a: str, b: str):  # type: ignore[no-untyped-def]
    return los(m, m.parse_location(a), m.parse_location(b))


# ------------------------------------------------------------------------------------ bocage (B9.5)


def test_b9_52_bocage_blocks_same_level_los_like_a_hedge(bocage: Map) -> None:
    """Across the field at ground level both bocage (E4-E5) and a hedge (G4-G5) block; the bocage as a
    one-level obstacle (B9.52), the hedge as a Half-Level one (B9.2)."""
    r = ruling(bocage, "E2", "E7")
    assert not r.clear and r.blocked_by is not None
    assert r.blocked_by.rule == "B9.52" and "bocage" in r.blocked_by.terrain
    assert r.blocked_by.hexside is not None and bocage.name_of(r.blocked_by.hexside) == "E4-E5"
    h = ruling(bocage, "G2", "G7")
    assert not h.clear and h.blocked_by is not None and h.blocked_by.rule == "B9.2"


def test_b9_2_bocage_of_the_firers_or_targets_own_hex_never_blocks(bocage: Map) -> None:
    """B9.2 (bocage is treated as a hedge): a hexside of the viewing or target hex does not block."""
    for a, b in (("E4", "E7"), ("E2", "E5"), ("E5", "E1"), ("E7", "E4")):
        assert ruling(bocage, a, b).clear, (a, b)


def test_b9_52_bocage_blocks_a_viewer_one_level_up_where_a_hedge_does_not(bocage: Map) -> None:
    """From level 1 (E1, G1) down to ground level beyond: the level-0 hedge is only Half-Level and is seen
    over; the bocage is one level high, as high as the viewer, and blocks (A6.2 with B9.52)."""
    assert ruling(bocage, "G1", "G7").clear
    r = ruling(bocage, "E1", "E7")
    assert not r.clear and r.blocked_by is not None and r.blocked_by.rule == "B9.52" and not r.blind


def test_b9_52_bocage_casts_blind_hexes_from_higher_still(bocage: Map) -> None:
    """From level 2 (E12, eight hexes beyond the bocage: two Blind Hexes, A6.4) the hexes just behind it,
    on the far side, are blind, except its own hex E4 (B9.2); E2 beyond them is seen, as is everything
    behind the hedge from G12."""
    r = ruling(bocage, "E12", "E3")
    assert not r.clear and r.blind and r.blocked_by is not None and r.blocked_by.rule == "A6.4"
    assert ruling(bocage, "E12", "E4").clear
    assert ruling(bocage, "E12", "E2").clear
    assert all(ruling(bocage, "G12", f"G{n}").clear for n in (2, 3, 4))
    # reciprocal (A6.5)
    assert not ruling(bocage, "E3", "E12").clear


def test_b9_52_locations_level_with_the_bocage_top_see_over_it(bocage: Map) -> None:
    """C1 and C12 are both level 1, the bocage C4-C5 is on level-0 ground with its top at level 1: the
    LOS is not below its top, and it is no higher than both ends (VASL's reading of B9.52)."""
    assert ruling(bocage, "C1", "C12").clear
    assert not ruling(bocage, "C2", "C12").clear  # from ground level: as high as the higher end


def test_b9_5_bocage_tem_is_the_walls(bocage: Map) -> None:
    """The chart's bocage TEM is +2 (as a wall), with Wall Advantage; none without it, and then FFMO."""
    r = tem(bocage, bocage.parse_location("E5"), [bocage.parse_location("E2")], moved_by="non-road")
    assert r.tem == 2 and [i.rule for i in r.tem_items] == ["B9.5"]
    r = tem(bocage, bocage.parse_location("E5"), [bocage.parse_location("E2")], wall_advantage=False,
            moved_by="non-road")
    assert r.tem == 0 and r.ffmo


@pytest.mark.parametrize("unit, want", [("infantry", 3), ("cavalry", 3), ("vehicle", "NA"),
                                        ({"type": "vehicle", "class": "half-track"}, "NA")],
                         ids=["infantry", "cavalry", "fully-tracked", "half-track"])
def test_b9_5_crossing_bocage_costs_two_and_cot(bocage: Map, unit: object, want: object) -> None:
    """The chart: Infantry pay 2 MF & COT to cross bocage (a hedge costs 1 & COT); no vehicle crosses
    (the chart's fully-tracked procedure is not modelled)."""
    r = move_cost(bocage, unit, "E4", "E5")  # type: ignore[arg-type]
    if want == "NA":
        assert not r.allowed and r.forbidden_by == "B9.5"
    else:
        assert r.allowed and r.cost == want and sum(i.amount for i in r.items) == want
    assert move_cost(bocage, "infantry", "G4", "G5").cost == 2


@needs("bdBFPF")
def test_bfpf_bocage_is_carried_and_blocks_as_vasl_does() -> None:
    """bdBFPF's 79 bocage hexsides are imported as `bocage`, nothing about bocage is left out, and on a
    sample of pairs the blocked/clear agreement with VASL is what bocage makes it."""
    from asl_terrain.cli.vasl import cross_check

    res = vasl.import_boards(["bdBFPF"])
    sides = [h for h in res.map["hexside"] if h.get("bocage")]
    assert sum(len(h["at"]) for h in sides) == 79
    assert not any("Bocage" in line for line in res.unsupported)
    m = Map.from_data(res.map, source="<bdBFPF>")
    assert not ruling(m, "A1", "B6").clear  # VASL: Cannot see through/over bocage (B9.52)
    cc = cross_check(m, "bdBFPF", every=13)
    assert cc.agreement >= 0.97, cc.to_json()["per_cause"]


# ------------------------------------------------------------------------------------ marsh (B16.2)


@needs("bd74")
def test_b16_2_marsh_as_drawn_is_a_hindrance() -> None:
    """bd74's marsh: each marsh hex the thread crosses at the same level adds +1 (B16.2), on the artwork as
    on a hand-made map; A1-H10 crosses six such Hindrance hexes and is blocked (B.10), as VASL says."""
    m = Map.from_data(vasl.import_boards(["bd74"]).map, source="<bd74>")
    r = ruling(m, "A1", "H10")
    assert not r.clear and r.blocked_by is not None and r.blocked_by.terrain.startswith("Hindrance total")
    assert any("marsh" in h.what.lower() and h.rule == "B16.2" for h in r.hindrances), r.hindrances
