"""The effects engine as a whole (asl_terrain.effects): its three faces agree (API, ask, CLI), bad requests are
errors and forbidden attacks are rulings, and the items of every TEM ruling add up."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from asl_terrain.ask import CONTRACT_KINDS, HANDLERS, answer_one
from asl_terrain.cli import app
from asl_terrain.effects import ATTACKS, tem
from asl_terrain.errors import QueryError, UnknownLocation
from asl_terrain.model import Location, Map

MAPS = Path(__file__).parent / "maps"
VILLAGE = MAPS / "st_village.toml"
P2 = MAPS / "p2_slopes.toml"

#: the kinds this engine answers (queries.md), each with a query that must be answered
EFFECTS_QUERIES: dict[str, tuple[Path, dict[str, Any]]] = {
    "tem": (P2, {"kind": "tem", "target": "K14", "firer": "I14", "attack": "small-arms", "moved_by": None}),
    "setup": (VILLAGE, {"kind": "setup", "item": "entrenchment", "at": "N17"}),
    "stacking": (VILLAGE, {"kind": "stacking", "at": "J19/2"}),
    "bypass-effects": (VILLAGE, {"kind": "bypass-effects", "hexside": "N17-O17", "in": "N17"}),
    "tca-change": (VILLAGE, {"kind": "tca-change", "unit": {"type": "vehicle", "caliber": 75, "barrel": "L",
                                                            "buttoned_up": True}}),
    "place-rubble": (VILLAGE, {"kind": "place-rubble", "at": "O17"}),
    "remove": (VILLAGE, {"kind": "remove", "what": "roadblock", "hexside": "O17-O18", "method": "clearance",
                         "from": "P17"}),
    "street-fighting": (VILLAGE, {"kind": "street-fighting", "vehicle": "N17@N17-O17", "attacker": "O17"}),
    "load": (VILLAGE, {"kind": "load", "vehicle": "N17@N17-O17", "from": "O17", "what": "squad"}),
    "unload": (VILLAGE, {"kind": "unload", "vehicle": "N17@N17-O17", "to": "O17", "what": "squad"}),
    "unhook": (VILLAGE, {"kind": "unhook", "vehicle": "N17@N17-O17", "what": "gun", "by": "crew"}),
    "sniper-target": (MAPS / "streams.toml", {"kind": "sniper-target", "at": "LL7/culvert"}),
    "end-of-player-turn": (MAPS / "streams.toml", {"kind": "end-of-player-turn",
                                                   "units": [{"type": "infantry", "at": "LL7/culvert"}]}),
    "rubble-drm": (VILLAGE, {"kind": "rubble-drm", "at": "J19/2", "building": "stone"}),
}

#: the keys queries.md requires of each answer (beyond kind, rules, explain)
REQUIRED_KEYS: dict[str, set[str]] = {
    "tem": {"tem", "items", "hindrance_drm", "ffmo", "ffnam", "drm", "total_drm", "open_ground", "affected"},
    "setup": {"allowed", "must_be_revealed", "reason"},
    "stacking": {"squad_equivalents", "limit", "guns_allowed"},
    "bypass-effects": {"smoke", "residual_fp", "mines", "bypass_allowed"},
    "tca-change": {"required", "allowed", "drm", "success_probability", "failure_cost_mp"},
    "place-rubble": {"removed", "falling_rubble"},
    "remove": {"allowed"},
    "street-fighting": {"applies", "vehicle_cc_drm"},
    "load": {"allowed"},
    "unload": {"allowed"},
    "unhook": {"allowed"},
    "sniper-target": {"eligible"},
    "end-of-player-turn": {"checks"},
    "rubble-drm": {"drm"},
}


@pytest.fixture(scope="module")
def village() -> Map:
    return Map.load(VILLAGE)


@pytest.fixture(scope="module")
def p2() -> Map:
    return Map.load(P2)


# ============================================================================================ the contract


def test_every_effects_kind_is_in_the_contract_and_registered() -> None:
    for kind in EFFECTS_QUERIES:
        assert kind in CONTRACT_KINDS and kind in HANDLERS


@pytest.mark.parametrize("kind", list(EFFECTS_QUERIES))
def test_ask_answers_each_kind_with_its_keys(kind: str) -> None:
    path, query = EFFECTS_QUERIES[kind]
    ans = answer_one(Map.load(path), query)
    assert "error" not in ans, ans
    assert ans["kind"] == kind
    assert REQUIRED_KEYS[kind] <= set(ans), REQUIRED_KEYS[kind] - set(ans)
    assert ans["rules"] and all(isinstance(r, str) for r in ans["rules"])
    assert isinstance(ans["explain"], str) and ans["explain"]
    json.dumps(ans)  # JSON numbers at the edge, no Fractions


# ============================================================================================ errors vs rulings


@pytest.mark.parametrize("query,fragment", [
    ({"kind": "tem", "target": "K14", "firer": "I14", "attack": "bazooka"}, "attack"),
    ({"kind": "tem", "target": "Z99", "firer": "I14"}, "target"),
    ({"kind": "tem", "target": "K14"}, "firer"),
    ({"kind": "tem", "target": "K14", "firers": []}, "firers"),
    ({"kind": "tem", "target": "K14", "firers": ["I14", "Q1"]}, "firers[1]"),
    ({"kind": "tem", "target": "K14", "firer": "I14", "moved_by": "sideways"}, "moved_by"),
    ({"kind": "tem", "target": "K14", "firer": "I14", "snap_shot": "I12-J12"}, "snap_shot"),
], ids=["unknown-attack", "unknown-hex", "missing-firer", "empty-fire-group", "bad-member", "bad-moved-by",
        "snap-shot-elsewhere"])
def test_bad_tem_requests_are_errors(p2: Map, query: dict[str, Any], fragment: str) -> None:
    ans = answer_one(p2, query)
    assert set(ans) == {"kind", "error"} and fragment in ans["error"]


def test_bad_tem_requests_raise_query_errors(p2: Map) -> None:
    with pytest.raises(QueryError, match="unknown attack type"):
        tem(p2, p2.parse_location("K14"), [p2.parse_location("I14")], "bazooka")
    with pytest.raises(UnknownLocation):
        p2.parse_location("K14/1")


def test_bypass_target_along_a_hexside_needs_the_vertex_form(village: Map) -> None:
    """queries.md: a LOS to a Bypass position needs the vertex form; the hexside form is an error for a firer."""
    with pytest.raises(QueryError, match="vertex form"):
        tem(village, village.parse_location("N17@N17-O17"), [village.parse_location("M17")])
    # no LOS is traced for Residual FP: the hexside form is fine
    assert tem(village, village.parse_location("N17@N17-O17"), (), "residual-fp").affected


def test_a_firer_with_no_los_is_a_ruling_not_an_error(village: Map) -> None:
    """queries.md: an attack by a firer with no LOS to the target is affected false with its reason."""
    ans = answer_one(village, {"kind": "tem", "target": "N17", "firer": "P17"})
    assert "error" not in ans
    assert ans["affected"] is False and "no LOS" in ans["reason"] and "P5.141" in ans["rules"]
    assert ans["items"] == [] and ans["total_drm"] == 0


def test_a_fire_group_member_without_los_makes_the_attack_fail(p2: Map) -> None:
    """A7.5: every Fire Group member needs a LOS to the target."""
    r = tem(p2, p2.parse_location("H11"), [p2.parse_location("I14"), p2.parse_location("H13")])
    assert not r.affected and "A7.5" in r.rules()


def test_tem_ask_matches_the_api(p2: Map) -> None:
    ans = answer_one(p2, {"kind": "tem", "target": "K14", "firers": ["H13", "I14"], "moved_by": "non-road"})
    api = tem(p2, p2.parse_location("K14"), [p2.parse_location("H13"), p2.parse_location("I14")],
              moved_by="non-road")
    assert ans == api.to_json()
    assert ans["fire_group_los"] == "I14" and len(ans["members"]) == 2


# ============================================================================================ properties

_VILLAGE_HEXES = [h.name for h in Map.load(VILLAGE).hexes() if 14 <= h.row <= 20 and h.col <= 16]


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(st.sampled_from(_VILLAGE_HEXES), st.sampled_from(_VILLAGE_HEXES),
       st.sampled_from([a for a in ATTACKS if a != "fire-lane"] + ["fire-lane"]),
       st.sampled_from([None, "road-rate", "non-road"]), st.booleans())
def test_tem_items_add_up_and_ask_agrees(target: str, firer: str, attack: str, moved_by: str | None,
                                         assault: bool) -> None:
    """Property: on the village map, for any target, firer, attack and movement, the items add up to total_drm
    (= tem + hindrance + drm - ffmo - ffnam), a ruling that cannot affect has a reason and no items, and ask
    returns the API's ruling serialised."""
    m = Map.load(VILLAGE)
    r = tem(m, m.parse_location(target), [m.parse_location(firer)], attack, moved_by=moved_by,  # type: ignore
            assault_move=assault)
    assert r.total_drm == sum((i.amount for i in r.items), Fraction(0))
    assert r.total_drm == r.tem + r.hindrance_drm + r.drm - int(r.ffmo) - int(r.ffnam)
    assert r.affected or (r.reason and not r.items)
    if assault:
        assert not r.ffnam
    q = {"kind": "tem", "target": target, "firer": firer, "attack": attack, "moved_by": moved_by,
         "assault_move": assault}
    assert answer_one(m, q) == r.to_json()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([h.name for h in Map.load(P2).hexes()]))
def test_indirect_fire_needs_no_firer_and_gets_no_hindrance(target: str) -> None:
    m = Map.load(P2)
    r = tem(m, m.parse_location(target), (), "indirect")
    assert r.affected and r.hindrance_drm == 0 and not [i for i in r.items if i.rule == "P2.41"]


# ============================================================================================ CLI


runner = CliRunner()


def test_cli_tem_prints_a_ruling_to_check_line_by_line() -> None:
    """asl-terrain tem MAP --target K14 --firer I14 prints each item with its rule, and the totals."""
    res = runner.invoke(app, ["tem", str(P2), "--target", "K14", "--firer", "I14", "--attack", "small-arms"])
    assert res.exit_code == 0, res.output
    out = res.output
    for needle in ("tem: 1", "total_drm: 1", "slope TEM", "P2.41", "J14-K14", "affected: yes"):
        assert needle in out, needle


def test_cli_tem_fire_group_and_moving_target() -> None:
    res = runner.invoke(app, ["tem", str(P2), "-t", "K14", "-f", "H13", "-f", "I14", "--moved-by", "non-road"])
    assert res.exit_code == 0, res.output
    assert "fire_group_los: I14" in res.output and "FFNAM" in res.output and "A.5" in res.output


@pytest.mark.parametrize("args,needle", [
    (["setup", str(VILLAGE), "mines", "N17", "--mine-kind", "A-P", "--hidden"], "must_be_revealed: yes"),
    (["stacking", str(VILLAGE), "J19/2", "--unit", "squad"], "overstacked: yes"),
    (["bypass-effects", str(VILLAGE), "O17-O18"], "vbm_allowed: no"),
    (["tca-change", "--barrel", "LL", "--bu", "--armor-leader", "-1", "--attempt", "3"], "allowed: no"),
    (["place-rubble", str(VILLAGE), "O17"], "roadblock"),
    (["remove", str(VILLAGE), "roadblock", "--hexside", "O17-O18", "--method", "dc", "--vertex", "O17-O18-P17",
      "--from", "N17"], "allowed: no"),
    (["street-fighting", str(VILLAGE), "N17@N17-O17", "O17"], "applies: yes"),
    (["unload", str(VILLAGE), "N17@N17-O17", "O18"], "allowed: no"),
    (["load", str(VILLAGE), "N17@N17-O17", "N17", "--what", "mortar"], "allowed: yes"),
    (["unhook", str(VILLAGE), "N17@N17-O17", "--what", "trailer"], "eliminated: yes"),
    (["sniper-target", str(MAPS / "streams.toml"), "LL7/culvert"], "eligible: no"),
    (["end-of-player-turn", str(MAPS / "streams.toml"), "LL7/culvert", "LL6"], "P4.23"),
    (["rubble-drm", str(VILLAGE), "J19/2"], "drm: 0"),
], ids=lambda x: x[0] if isinstance(x, list) else None)
def test_cli_commands(args: list[str], needle: str) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert needle in res.output


def test_cli_error_is_one_line_and_status_2() -> None:
    """A query the engine cannot answer (an unknown attack) prints one line on stderr, exit status 2."""
    exe = Path(sys.executable).parent / "asl-terrain"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "asl_terrain"]
    res = subprocess.run([*cmd, "tem", str(P2), "--target", "K14", "--firer", "I14", "--attack", "bazooka"],
                         capture_output=True, text=True, timeout=60, check=False)
    assert res.returncode == 2
    assert "attack" in res.stderr and res.stderr.count("\n") <= 2 and "Traceback" not in res.stderr


def test_locations_are_canonical_in_answers(village: Map) -> None:
    ans = answer_one(village, {"kind": "tem", "target": "StO17@O17-O18-N17", "firer": "P17"})
    assert ans["target"] == "StO17@N17-O17-O18" and ans["firers"] == ["StP17"]
    assert tem(village, Location(village.parse_hex("O18")), [village.parse_location("P17")]).target == "StO18"
