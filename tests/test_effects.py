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

import clirun
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from asl_terrain import effects as fx
from asl_terrain import setup as su
from asl_terrain.ask import CONTRACT_KINDS, HANDLERS, answer_one
from asl_terrain.cli import app
from asl_terrain.effects import ATTACKS, tem
from asl_terrain.errors import MapError, QueryError, UnknownLocation, UserError
from asl_terrain.grid import Hex, Hexside
from asl_terrain.model import Location, Map
from asl_terrain.units import Unit

MAPS = Path(__file__).parent / "maps"
VILLAGE = MAPS / "st_village.toml"
P2 = MAPS / "p2_slopes.toml"

#: the kinds this engine answers (queries.md), each with a query that must be answered
EFFECTS_QUERIES: dict[str, tuple[Path, dict[str, Any]]] = {
    "tem": (P2, {"kind": "tem", "target": "K14", "firer": "I14", "attack": "small-arms", "moved_by": None}),
    "setup": (VILLAGE, {"kind": "setup", "item": "entrenchment", "at": "N17"}),
    "stacking": (VILLAGE, {"kind": "stacking", "at": "J19/2"}),
    "bypass-effects": (MAPS / "st_village_mines.toml", {"kind": "bypass-effects", "hexside": "N17-O17",
                                                        "in": "N17"}),
    "tca-change": (VILLAGE, {"kind": "tca-change", "unit": {"type": "vehicle", "caliber": 75, "barrel": "L",
                                                            "buttoned_up": True}}),
    "place-rubble": (MAPS / "st_village_mines.toml", {"kind": "place-rubble", "at": "O17"}),
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


# ============================================================================================ random maps

_COLS = (1, 6)   # B..G, so every vertex of a map hex names on-grid hexes (A and row 1 lie just outside)
_ROWS = (2, 7)
_GRID = [Hex(c, r) for c in range(_COLS[0], _COLS[1] + 1) for r in range(_ROWS[0], _ROWS[1] + 1)]
_ON = set(_GRID)
_HEXSIDES = sorted({Hexside.of(h, n) for h in _GRID for n in h.neighbours() if n in _ON}, key=lambda x: x.name)
_TERRAIN = ["open", "woods", "pine-woods", "brush", "orchard", "grain", "building", "rubble", "graveyard", "marsh",
            "shellholes"]


@st.composite
def village_maps(draw: st.DrawFn) -> dict[str, Any]:
    """Random small maps in the asl-terrain/1 format: every terrain, levels 0-2, streams and culverts,
    buildings with upper levels and steeples, roads, Narrow Streets, slopes, walls and hedges, and every
    counter type (roadblocks straddling any hexside, vehicles and wrecks in Bypass)."""
    hexes: list[dict[str, Any]] = []
    for h in draw(st.lists(st.sampled_from(_GRID), max_size=20, unique=True)):
        t = draw(st.sampled_from(_TERRAIN))
        b: dict[str, Any] = {"at": [h.name], "terrain": t, "level": draw(st.integers(0, 2))}
        if t == "building":
            bt = draw(st.sampled_from(["single-story-house", "two-story-house", "single-hex-two-story-house",
                                       "multi-level"]))
            b.update(building=draw(st.sampled_from(["stone", "wooden"])), building_type=bt,
                     steeple=draw(st.booleans()))
            if bt == "multi-level":
                b["upper_levels"] = draw(st.integers(0, 2))
        elif t in ("open", "woods", "pine-woods", "brush", "orchard") and draw(st.booleans()):
            b["stream"] = draw(st.sampled_from(["dry", "shallow", "deep", "flooded"]))
            b["culvert"] = draw(st.booleans())
        hexes.append(b)
    hexsides: list[dict[str, Any]] = []
    for hs in draw(st.lists(st.sampled_from(_HEXSIDES), max_size=25, unique=True)):
        kind = draw(st.sampled_from(["road", "narrow_street", "slope", "wall", "hedge", "fence"]))
        d: dict[str, Any] = {"at": [hs.name]}
        if kind == "road":
            d["road"] = draw(st.sampled_from(["paved", "dirt"]))
        elif kind == "narrow_street":
            d["narrow_street"] = draw(st.sampled_from(["paved", "unpaved"]))
        elif kind == "slope":
            d["slope"] = draw(st.sampled_from(hs.hexes)).name
        else:
            d[kind] = True
        hexsides.append(d)
    counters: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 8))):
        k = draw(st.sampled_from(["smoke", "residual-fp", "mines", "roadblock", "wreck", "vehicle", "rubble", "blaze",
                                  "entrenchment"]))
        if k == "roadblock":
            hs = draw(st.sampled_from(_HEXSIDES))
            v = draw(st.sampled_from(hs.vertices()))
            counters.append({"type": k, "hexside": hs.name, "arrow": "-".join(x.name for x in v.hexes)})
            continue
        at = draw(st.sampled_from(_GRID))
        c: dict[str, Any] = {"type": k, "at": at.name}
        if k == "smoke":
            c["strength"] = draw(st.integers(1, 4))
        elif k == "residual-fp":
            c["fp"] = draw(st.sampled_from([1, 2, 4, 6, 8]))
        elif k == "mines":
            c.update(kind=draw(st.sampled_from(["A-P", "A-T"])), strength=draw(st.sampled_from([6, 8, 12])),
                     hidden=draw(st.booleans()))
        elif k in ("wreck", "vehicle") and draw(st.booleans()):
            c["bypass"] = Hexside.of(at, draw(st.sampled_from(at.neighbours()))).name
        counters.append(c)
    return {"format": "asl-terrain/1", "columns": ["B", "G"], "rows": [2, 7], "hex": hexes, "hexside": hexsides,
            "counter": counters, "conditions": {"weather": draw(st.sampled_from(["clear", "mud", "deep-snow"])),
                                                "month": draw(st.integers(1, 12)), "frigid": draw(st.booleans())}}


def _load(data: dict[str, Any]) -> Map:
    try:
        return Map.from_data(data)
    except MapError:
        assume(False)
        raise


def _positions(m: Map) -> list[str]:
    """Every Location of the map, and every Bypass position (hexside and vertex forms)."""
    out = [loc.text() for h in m.hexes() for loc in m.locations(h)]
    out += [f"{h.name}@{hs.name}" for h in m.hexes() for hs in h.hexsides() if hs in _HEXSIDES]
    out += [f"{h.name}@" + "-".join(x.name for x in v.hexes) for h in m.hexes() for v in h.vertices()]
    return out


def _answer(m: Map, q: dict[str, Any]) -> dict[str, Any]:
    """answer_one that lets a bug escape (debug) instead of turning it into an error answer."""
    return answer_one(m, {k: v for k, v in q.items() if v is not None}, debug=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(village_maps(), st.data())
def test_random_maps_every_effects_kind_answers_or_errors_cleanly(data: dict[str, Any], draw: st.DataObject) -> None:
    """Property: on random maps every effects and set-up kind gets a ruling with its queries.md keys or a user
    error naming what is wrong, never an internal error; a tem ruling's items add up to total_drm = tem +
    hindrance_drm + drm - ffmo - ffnam; a ruling that cannot affect has a reason and no items."""
    m = _load(data)
    pos = _positions(m)
    pick = st.sampled_from(pos)
    hexsides = st.sampled_from([hs.name for hs in _HEXSIDES])
    qs: list[dict[str, Any]] = []
    for _ in range(6):
        q: dict[str, Any] = {"kind": "tem", "target": draw.draw(pick), "attack": draw.draw(st.sampled_from(ATTACKS)),
                             "moved_by": draw.draw(st.sampled_from([None, "road-rate", "non-road"])),
                             "assault_move": draw.draw(st.booleans()), "entrenched": draw.draw(st.booleans()),
                             "wall_advantage": draw.draw(st.booleans()),
                             "unit": draw.draw(st.sampled_from(["infantry", "cavalry", "vehicle"])),
                             "entered_across": draw.draw(st.one_of(st.none(), hexsides))}
        if draw.draw(st.booleans()):
            q["firers"] = draw.draw(st.lists(pick, min_size=1, max_size=3))
        else:
            q["firer"] = draw.draw(pick)
        if draw.draw(st.integers(0, 4)) == 0:
            hs = draw.draw(st.sampled_from(_HEXSIDES))
            q["snap_shot"] = hs.name
            q["declared_vertex"] = "-".join(x.name for x in draw.draw(st.sampled_from(hs.vertices())).hexes)
        qs.append(q)
    for item in su.SETUP_ITEMS:
        qs.append({"kind": "setup", "item": item, "at": draw.draw(pick), "mine_kind": "A-P",
                   "hidden": draw.draw(st.booleans()), "hexside": draw.draw(hexsides)})
    streets = [hs.name for hs in _HEXSIDES if m.hexside(hs).narrow_street is not None]
    buildings = [loc.text() for h in m.hexes() if m.terrain(h).is_building for loc in m.locations(h)]
    qs += [
        {"kind": "stacking", "at": draw.draw(pick), "units": ["squad", "half-squad"]},
        {"kind": "bypass-effects", "hexside": draw.draw(st.sampled_from(streets) if streets else hexsides)},
        {"kind": "rubble-drm", "at": draw.draw(st.sampled_from(buildings) if buildings else pick)},
        {"kind": "place-rubble", "at": draw.draw(pick)},
        {"kind": "remove", "what": "roadblock", "hexside": draw.draw(hexsides),
         "method": draw.draw(st.sampled_from(["clearance", "direct-fire", "indirect-he"])), "from": draw.draw(pick),
         "firer": draw.draw(pick), "vs": draw.draw(pick)},
        {"kind": "remove", "what": "mines", "at": draw.draw(pick), "method": "b28.53"},
        {"kind": "remove", "what": "wreck", "at": draw.draw(pick), "method": "d10.4"},
        {"kind": "street-fighting", "vehicle": draw.draw(pick), "attacker": draw.draw(pick)},
        {"kind": "unload", "vehicle": draw.draw(pick), "to": draw.draw(pick)},
        {"kind": "unhook", "vehicle": draw.draw(pick), "what": draw.draw(st.sampled_from(["gun", "trailer"]))},
        {"kind": "sniper-target", "at": draw.draw(pick)},
        {"kind": "end-of-player-turn", "units": [{"type": "infantry", "at": draw.draw(pick)}]},
        {"kind": "rubble-drm", "at": draw.draw(pick)},
    ]
    for q in qs:
        ans = _answer(m, q)
        event(f"{q['kind']}: {'error' if 'error' in ans else 'ruling'}")
        if "error" in ans:
            assert set(ans) == {"kind", "error"} and ans["error"], ans
            continue
        assert REQUIRED_KEYS[q["kind"]] <= set(ans), (q, REQUIRED_KEYS[q["kind"]] - set(ans))
        assert ans["rules"] and ans["explain"]
        json.dumps(ans)
        if q["kind"] == "tem":
            total_ = sum(Fraction(str(i["amount"])) for i in ans["items"])
            assert total_ == ans["total_drm"], q
            assert ans["total_drm"] == (ans["tem"] + ans["hindrance_drm"] + ans["drm"] - int(ans["ffmo"])
                                        - int(ans["ffnam"])), q
            assert ans["affected"] or (ans["reason"] and not ans["items"]), q
            if q.get("assault_move"):
                assert not ans["ffnam"]


@settings(max_examples=40, deadline=None)
@given(village_maps(), st.data())
def test_random_maps_ask_answers_equal_the_api_rulings(data: dict[str, Any], draw: st.DataObject) -> None:
    """Property: for each kind, ask returns exactly the API's ruling serialised (the CLI prints the same
    answer), and a question the API cannot answer is an error answer carrying the API's message."""
    m = _load(data)
    pos = _positions(m)
    target, firer, at = (draw.draw(st.sampled_from(pos)) for _ in range(3))
    hs = draw.draw(st.sampled_from(_HEXSIDES))
    attack = draw.draw(st.sampled_from(ATTACKS))
    cases: list[tuple[dict[str, Any], Any]] = [
        ({"kind": "tem", "target": target, "firer": firer, "attack": attack, "moved_by": "non-road"},
         lambda: fx.tem(m, m.parse_location(target), [m.parse_location(firer)], attack, moved_by="non-road")),
        ({"kind": "setup", "item": "mines", "at": at, "mine_kind": "A-T", "hidden": True},
         lambda: su.can_set_up(m, "mines", m.parse_location(at), mine_kind="A-T", hidden=True)),
        ({"kind": "setup", "item": "entrenchment", "at": at},
         lambda: su.can_set_up(m, "entrenchment", m.parse_location(at))),
        ({"kind": "stacking", "at": at}, lambda: su.stacking_limit(m, m.parse_location(at))),
        ({"kind": "bypass-effects", "hexside": hs.name}, lambda: fx.bypass_effects(m, hs)),
        ({"kind": "place-rubble", "at": at}, lambda: fx.place_rubble(m, m.parse_location(at).hex)),
        ({"kind": "remove", "what": "mines", "at": at, "method": "b28.53"},
         lambda: fx.can_remove(m, "mines", "b28.53", at=m.parse_location(at))),
        ({"kind": "sniper-target", "at": at}, lambda: fx.sniper_target(m, m.parse_location(at))),
        ({"kind": "rubble-drm", "at": at}, lambda: fx.rubble_drm(m, m.parse_location(at))),
        ({"kind": "street-fighting", "vehicle": target, "attacker": at},
         lambda: fx.street_fighting(m, m.parse_location(target), m.parse_location(at))),
        ({"kind": "unload", "vehicle": target, "to": at, "what": "mortar"},
         lambda: fx.can_unload(m, m.parse_location(target), m.parse_location(at), "mortar")),
        ({"kind": "load", "vehicle": target, "from": at},
         lambda: fx.can_load(m, m.parse_location(target), m.parse_location(at))),
        ({"kind": "unhook", "vehicle": target, "what": "trailer", "by": "crew"},
         lambda: fx.can_unhook(m, m.parse_location(target), "trailer", "crew")),
        ({"kind": "remove", "what": "roadblock", "hexside": hs.name, "method": "clearance", "from": at},
         lambda: fx.can_remove(m, "roadblock", "clearance", hexside=hs, from_=m.parse_location(at))),
        ({"kind": "end-of-player-turn", "units": [{"type": "infantry", "at": at}]},
         lambda: fx.end_of_player_turn(m, [("infantry", m.parse_location(at))])),
        ({"kind": "tca-change", "unit": {"type": "vehicle", "barrel": "LL", "buttoned_up": True}, "attempt": 2,
          "tca_offset": 1},
         lambda: fx.tca_change(Unit.from_json({"type": "vehicle", "barrel": "LL", "buttoned_up": True}), 2,
                               "MPh", 1)),
    ]
    for q, api in cases:
        try:
            want = api().to_json()
        except UserError as e:
            ans = _answer(m, q)
            assert "error" in ans and str(e) in ans["error"], (q, ans)
            continue
        assert _answer(m, q) == want, q


@settings(max_examples=60, deadline=None)
@given(village_maps())
def test_random_maps_b28_53_removal_follows_the_forced_revealing(data: dict[str, Any]) -> None:
    """Property (P5.142): B28.53 removal of mines is NA exactly where set-up forced them revealed."""
    m = _load(data)
    for h in m.hexes():
        r = fx.can_remove(m, "mines", "b28.53", at=m.parse_location(h.name))
        assert r.allowed == (not su.mines_must_be_revealed(m, h)), h.name


# ============================================================================================ review additions


def _open_map(**extra: Any) -> Map:
    data: dict[str, Any] = {"format": "asl-terrain/1", "columns": ["A", "H"], "rows": [1, 8]}
    data.update(extra)
    return Map.from_data(data)


def test_b27_1_entrenchment_tem_is_two_vs_direct_and_four_vs_indirect_fire() -> None:
    """B27.1 (chart Foxhole row: +2 Direct / +4 Indirect Fire, param.entrenchment_tem and
    entrenchment_indirect_tem): an entrenched unit in open D4 gets +2 vs Small Arms, +4 vs Indirect Fire, and no
    FFMO (it is not in Open Ground)."""
    m = _open_map()
    d4 = m.parse_location("D4")
    r = tem(m, d4, [m.parse_location("D7")], entrenched=True, moved_by="non-road")
    assert r.tem == 2 and [i.rule for i in r.items if i.amount > 0] == ["B27.1"] and not r.ffmo
    r = tem(m, d4, (), "indirect", entrenched=True)
    assert r.tem == 4 and r.items[0].rule == "B27.1"


def test_b27_1_entrenchment_is_not_added_to_a_better_tem() -> None:
    """An entrenched unit in woods vs Indirect Fire takes no Air Burst (B13.3) and the better of the woods TEM and
    the entrenchment's +4: +4, once."""
    m = _open_map(hex=[{"at": ["D4"], "terrain": "woods"}])
    r = tem(m, m.parse_location("D4"), (), "indirect", entrenched=True)
    assert r.tem == 4 and len(r.tem_items) == 1


@pytest.mark.parametrize("wall_advantage,want", [(True, 2), (False, 0)])
def test_b9_32_wall_tem_goes_with_wall_advantage(wall_advantage: bool, want: int) -> None:
    """B9.3 / B9.32: a unit in open D4 behind a wall on D4-D5, fired on across it from D7, gets the wall's +2
    when it holds Wall Advantage and nothing (and FFMO, being in Open Ground) when it does not; ask takes the
    same 'wall_advantage' key."""
    m = _open_map(hexside=[{"at": ["D4-D5"], "wall": True}])
    r = tem(m, m.parse_location("D4"), [m.parse_location("D7")], wall_advantage=wall_advantage, moved_by="non-road")
    assert r.tem == want and r.ffmo is (not wall_advantage)
    ans = answer_one(m, {"kind": "tem", "target": "D4", "firer": "D7", "wall_advantage": wall_advantage,
                         "moved_by": "non-road"})
    assert ans == r.to_json()


def test_every_answer_names_a_rule_even_with_no_tem() -> None:
    """queries.md: every answer carries the rules that decided it; an attack on plain Open Ground cites B1."""
    m = _open_map()
    for q in ({"kind": "tem", "target": "D4", "firer": "D6"}, {"kind": "tem", "target": "D4", "attack": "indirect"}):
        ans = answer_one(m, q)
        assert ans["tem"] == 0 and ans["rules"] == ["B1"]


_CLI_ERRORS = [
    (["tem", str(P2), "--target", "K14", "--firer", "I14", "--attack", "bazooka"], "attack"),
    (["setup", str(VILLAGE), "trench", "N17"], "item"),
    (["setup", str(VILLAGE), "gun", "N17/3"], "does not exist"),
    (["tem", str(VILLAGE), "--target", "Z99", "--firer", "P17"], "target"),
    (["bypass-effects", str(VILLAGE), "P17-P18"], "not a Narrow Street"),
    (["stacking", str(VILLAGE), "N17/culvert"], "does not exist"),
    (["tem", str(VILLAGE), "--target", "N17", "--firer", "P17", "--unit", "{bad"], "--unit"),
    (["remove", str(VILLAGE), "roadblock", "--method", "dc", "--hexside", "O17-O18"], "vertex"),
]


@pytest.mark.parametrize("args,needle", _CLI_ERRORS, ids=[a[0] + "-" + n for a, n in _CLI_ERRORS])
def test_cli_bad_requests_print_one_line_and_exit_2(args: list[str], needle: str) -> None:
    """An attack type, a set-up item or a Location the engine does not know, a hexside that is not a Narrow
    Street, malformed JSON: one line on stderr naming what is wrong, exit status 2, no traceback."""
    res = clirun.run(*args)
    assert res.returncode == 2, res.stderr
    err = " ".join(res.stderr.split())
    assert needle in err and "Traceback" not in res.stderr and res.stderr.strip().startswith("error:")
    assert res.stdout == ""


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


#: queries.md's type of each answer key of the effects kinds
_TYPES: dict[str, dict[str, Any]] = {
    "tem": {"tem": _is_int, "hindrance_drm": _is_int, "drm": _is_int, "total_drm": _is_int,
            "ffmo": lambda x: isinstance(x, bool), "ffnam": lambda x: isinstance(x, bool),
            "open_ground": lambda x: isinstance(x, bool), "affected": lambda x: isinstance(x, bool),
            "items": lambda x: isinstance(x, list) and all(set(i) == {"amount", "why", "rule"} and _is_num(i["amount"])
                                                          for i in x)},
    "setup": {"allowed": lambda x: isinstance(x, bool), "must_be_revealed": lambda x: isinstance(x, bool),
              "reason": lambda x: x is None or isinstance(x, str)},
    "stacking": {"squad_equivalents": _is_num, "limit": lambda x: isinstance(x, str) and x,
                 "guns_allowed": lambda x: isinstance(x, bool)},
    "bypass-effects": {"smoke": _is_int, "residual_fp": _is_int, "bypass_allowed": lambda x: isinstance(x, bool),
                       "mines": lambda x: isinstance(x, list) and all(
                           set(i) == {"kind", "strength", "hex"} and i["kind"] in ("A-P", "A-T")
                           and _is_int(i["strength"]) for i in x)},
    "tca-change": {"required": lambda x: isinstance(x, bool), "allowed": lambda x: isinstance(x, bool),
                   "drm": _is_int, "success_probability": lambda x: _is_num(x) and 0 <= x <= 1,
                   "failure_cost_mp": _is_num},
    "place-rubble": {"removed": lambda x: isinstance(x, list) and all({"what", "at"} <= set(i)
                                                                      and i["what"] in ("roadblock", "mines")
                                                                      for i in x),
                     "falling_rubble": lambda x: isinstance(x, list) and all(isinstance(i, str) for i in x)},
    "remove": {"allowed": lambda x: isinstance(x, bool)},
    "street-fighting": {"applies": lambda x: isinstance(x, bool), "vehicle_cc_drm": _is_int},
    "load": {"allowed": lambda x: isinstance(x, bool)},
    "unload": {"allowed": lambda x: isinstance(x, bool)},
    "unhook": {"allowed": lambda x: isinstance(x, bool)},
    "sniper-target": {"eligible": lambda x: isinstance(x, bool)},
    "end-of-player-turn": {"checks": lambda x: isinstance(x, list) and all(set(i) == {"type", "at", "rule"}
                                                                         for i in x)},
    "rubble-drm": {"drm": _is_int},
}


@pytest.mark.parametrize("kind", list(EFFECTS_QUERIES))
def test_answer_keys_have_the_queries_md_types(kind: str) -> None:
    """queries.md fixes each key's type: ints for TEM/DRM sums, booleans for flags, the shapes of the mine,
    removal and check lists, a probability in 0..1."""
    path, query = EFFECTS_QUERIES[kind]
    ans = answer_one(Map.load(path), query)
    for key, ok in _TYPES[kind].items():
        assert ok(ans[key]), (kind, key, ans[key])
    lists = {"bypass-effects": "mines", "place-rubble": "removed", "end-of-player-turn": "checks", "tem": "items"}
    if kind in lists:
        assert ans[lists[kind]], "the example must exercise the list's shape"


def _rubbled(hexes: list[dict[str, Any]], counters: list[dict[str, Any]],
             hexsides: list[dict[str, Any]] = []) -> Map:  # noqa: B006
    return Map.from_data({"format": "asl-terrain/1", "columns": ["A", "E"], "rows": [1, 6], "hex": hexes,
                          "hexside": hexsides, "counter": counters})


def test_a_rubble_counter_gives_the_rubble_tem_of_its_material() -> None:
    """B24.1/B24.3: a Rubble counter makes its hex rubble, so a unit there has rubble's TEM (+3 stone, +2
    wooden), is not in Open Ground, and no building level above it adds to the TEM vs Indirect Fire; as a
    move into it pays rubble's cost and a LOS meets it (one rule, Map.is_rubble, for every engine)."""
    from asl_terrain.movement import move_cost

    street = _rubbled([], [{"type": "rubble", "at": "B2"}], [{"at": ["B1-B2", "B2-B3"], "road": "paved"}])
    r = tem(street, street.parse_location("B2"), [street.parse_location("B5")], "small-arms")
    assert (r.tem, r.open_ground, [i.rule for i in r.tem_items]) == (3, False, ["B24.3"])
    assert move_cost(street, "infantry", "B1", "B2").cost == 3  # B24.4 (and B3.43: the road is negated)
    house = _rubbled([{"at": ["B2"], "terrain": "building", "building": "wooden", "upper_levels": 1}],
                     [{"type": "rubble", "at": "B2"}])
    ind = tem(house, house.parse_location("B2"), [], "indirect")
    assert (ind.tem, [i.rule for i in ind.tem_items]) == (2, ["B24.3"])
    intact = _rubbled([{"at": ["B2"], "terrain": "building", "building": "wooden", "upper_levels": 1}], [])
    assert tem(intact, intact.parse_location("B2"), [], "indirect").tem == 3  # +1 for the level above (chart)
