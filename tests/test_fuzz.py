"""Issue 9's fuzz suite, kept small enough to run in seconds and derandomized under CI (conftest.py): random
maps with random queries of every kind, random broken charts, and random broken map and query files, all
through the real entry point (in-process). Whatever the input, the exit status is 0, 1 or 2, nothing says
"internal error", and each example finishes within the deadline."""

from __future__ import annotations

import json
import os
import math
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

from clirun import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asl_terrain.ask import CONTRACT_KINDS
from asl_terrain.chart import _bundled_document
from asl_terrain.grid import Hex, column_label
from asl_terrain.model import demo_map_path

# ASL_FUZZ_EXAMPLES=N runs a long hunt (the suite's default keeps it to seconds)
FUZZ = settings(max_examples=int(os.environ.get("ASL_FUZZ_EXAMPLES", "25")), deadline=timedelta(seconds=20), suppress_health_check=[HealthCheck.too_slow],
                database=None)

_TERRAIN = ["open", "woods", "pine-woods", "brush", "orchard", "grain", "building", "rubble", "graveyard", "marsh",
            "shellholes", "jungle", 3]
_JUNK: list[Any] = [None, 0, -1, 1.5, float("nan"), float("inf"), 10**40, True, "", "x" * 300, [], {}, [1, "a"],
                    {"a": 1}, "A1", "ZZ99", "A1-B1", "A1@A1-B1"]


def _ok(r: Any) -> None:
    text = r.stdout + r.stderr
    assert r.returncode in (0, 1, 2), (r.returncode, text[-2000:])
    assert "internal error" not in text and "Traceback" not in text, text[-2000:]


@st.composite
def maps(draw: st.DrawFn) -> tuple[dict[str, Any], list[str], list[str]]:
    """A small map document, valid more often than not: blocks of hexes and hexsides named inside its grid,
    with now and then a wrong value."""
    cols, rows = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    r0 = draw(st.integers(0, 2))
    grid = [Hex(c, r) for c in range(cols) for r in range(r0, r0 + rows)]
    names = [h.name for h in grid]
    pairs = [f"{a.name}-{b.name}" for a in grid for b in a.neighbours()
             if b in grid and (a.col, a.row) < (b.col, b.row)]
    value = st.one_of(st.sampled_from(_JUNK), st.integers(-2, 4))

    def block(keys: dict[str, st.SearchStrategy[Any]], at: list[str]) -> st.SearchStrategy[dict[str, Any]]:
        return st.fixed_dictionaries({"at": st.lists(st.sampled_from(at), min_size=1, max_size=3)},
                                     optional={k: st.one_of(v, value) if draw(st.integers(0, 9)) == 0 else v
                                               for k, v in keys.items()})

    hexes = draw(st.lists(block({
        "level": st.integers(-1, 3), "terrain": st.sampled_from(_TERRAIN[:11]),
        "building": st.sampled_from(["stone", "wooden"]),
        "building_type": st.sampled_from(["single-story-house", "two-story-house", "single-hex-two-story-house",
                                          "multi-level"]),
        "upper_levels": st.integers(0, 3), "steeple": st.booleans(), "stairwell": st.booleans(),
        "stream": st.sampled_from(["dry", "shallow", "deep", "flooded"]), "culvert": st.booleans(),
        "ford": st.booleans()}, names), max_size=5))
    sides = draw(st.lists(block({
        "road": st.sampled_from(["paved", "dirt"]), "narrow_street": st.sampled_from(["paved", "unpaved"]),
        "fence": st.booleans(), "wall": st.booleans(), "hedge": st.booleans(), "stream": st.booleans(),
        "crest": st.booleans()}, pairs), max_size=4)) if pairs else []
    counters = draw(st.lists(st.one_of(
        st.fixed_dictionaries({"type": st.just("smoke"), "at": st.sampled_from(names), "strength": st.integers(1, 6)}),
        st.fixed_dictionaries({"type": st.sampled_from(["rubble", "blaze", "entrenchment"]),
                               "at": st.sampled_from(names)}),
        st.fixed_dictionaries({"type": st.just("wreck"), "at": st.sampled_from(names), "burning": st.booleans()}),
        st.fixed_dictionaries({"type": st.just("mines"), "at": st.sampled_from(names), "kind": st.just("A-P"),
                               "strength": st.integers(1, 12)})), max_size=3))
    doc: dict[str, Any] = {"format": "asl-terrain/1", "columns": [column_label(0), column_label(cols - 1)],
                           "rows": [r0, r0 + rows - 1], "hex": hexes, "hexside": sides, "counter": counters}
    if draw(st.integers(0, 7)) == 0:
        doc[draw(st.sampled_from(["rows", "columns", "name", "prefix", "conditions"]))] = draw(value)
    return doc, names, pairs or names


@st.composite
def queries(draw: st.DrawFn, names: list[str], pairs: list[str]) -> dict[str, Any]:
    """A query of any kind of the contract, its keys filled with names of the map (Locations, Bypass
    positions, hexsides, vertices) or, now and then, junk."""
    kind = draw(st.sampled_from(CONTRACT_KINDS))
    loc = st.one_of(st.sampled_from(names), st.sampled_from(names).map(lambda n: n + "/1"),
                    st.sampled_from([f"{p.split('-')[0]}@{p}" for p in pairs] or names))
    anything = st.one_of(loc, st.sampled_from(pairs or names), st.sampled_from(_JUNK), st.integers(-3, 20))
    keys = ["from", "to", "at", "target", "firer", "vehicle", "attacker", "hexside", "in", "bypass", "to_vertex",
            "unit", "allowance", "item", "level", "hexspines", "what", "method", "units", "hexes", "building",
            "attempt", "phase", "entrenched", "mine_kind", "hidden", "arrow", "moved_by", "attack"]
    q: dict[str, Any] = {"kind": kind}
    for k in draw(st.lists(st.sampled_from(keys), min_size=1, max_size=4, unique=True)):
        if k == "hexes":
            q[k] = draw(st.lists(loc, min_size=1, max_size=4))
        elif k in ("hexside", "bypass"):
            q[k] = draw(st.one_of(st.sampled_from(pairs or names), anything))
        elif k == "unit":
            q[k] = draw(st.sampled_from(["infantry", "cavalry", "wagon", "vehicle", "motorcycle", "tank", 3,
                                         {"type": "vehicle", "mp": 12}, {"type": "infantry", "mf": float("nan")}]))
        elif k == "allowance":
            q[k] = draw(st.one_of(st.integers(0, 6), st.floats(allow_nan=True, allow_infinity=True)))
        elif k in ("from", "to", "at", "target", "firer", "vehicle", "attacker"):
            q[k] = draw(st.one_of(loc, loc, anything))
        else:
            q[k] = draw(anything)
    if draw(st.integers(0, 5)) == 0:
        q["conditions"] = draw(st.sampled_from([{"month": 10}, {"weather": "mud"}, {"month": 13}, "rain",
                                                {"frigid": 1}]))
    return q


@FUZZ
@given(st.data())
def test_random_maps_and_queries_of_every_kind(data: st.DataObject) -> None:
    doc, names, pairs = data.draw(maps())
    qs = data.draw(st.lists(queries(names, pairs), min_size=1, max_size=6))
    with tempfile.TemporaryDirectory() as d:
        m, q = Path(d) / "m.json", Path(d) / "q.json"
        m.write_text(json.dumps(doc))
        q.write_text(json.dumps(qs))
        r = run("ask", str(m), str(q))
        _ok(r)
        if r.returncode in (0, 1):
            answers = json.loads(r.stdout)
            assert len(answers) == len(qs)
            assert not any(str(a.get("error", "")).startswith("internal") for a in answers)
        _ok(run("check", str(m)))


def _toml(v: Any) -> str:
    """A TOML value (enough of TOML for the charts drawn here)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if v != v else ("inf" if v > 0 else "-inf")
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return "{ " + ", ".join(f"{json.dumps(str(k))} = {_toml(x)}" for k, x in v.items()) + " }"


_BASE = _bundled_document()
_PATHS = ([("param", k, "value") for k in _BASE["param"]] + [("judgment", k, "value") for k in _BASE["judgment"]]
          + [("building_height", k, "value") for k in _BASE["building_height"]]
          + [(t, e, g, k) for t in ("terrain", "hexside") for e, ent in _BASE[t].items()
             for g, grp in ent.items() if isinstance(grp, dict) for k in grp])


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(_PATHS), st.one_of(st.sampled_from(_JUNK[1:14]), st.integers(-2, 6),
                                                             st.sampled_from(["ALL", "NA", "obstacle", "none"]))),
                min_size=1, max_size=4))
def test_random_broken_charts_are_refused_or_work(changes: list[tuple[tuple[str, ...], Any]]) -> None:
    """A chart the validation lets through must not make any engine fail: each accepted chart answers a
    batch of queries of several kinds with exit status 0 or 1."""
    lines = []
    for path, v in changes:
        lines.append(f"[{'.'.join(json.dumps(p) for p in path[:-1])}]\n{json.dumps(path[-1])} = {_toml(v)}\n")
    batch = [{"kind": "move", "from": "M13", "to": "M12"}, {"kind": "los", "from": "I14", "to": "K11"},
             {"kind": "tem", "target": "K10", "firer": "M13"}, {"kind": "path", "hexes": ["L11", "K11", "K12"]},
             {"kind": "setup", "item": "entrenchment", "at": "N11"}, {"kind": "stacking", "at": "K10/2"}]
    with tempfile.TemporaryDirectory() as d:
        c, q = Path(d) / "c.toml", Path(d) / "q.json"
        c.write_text("".join(lines))
        q.write_text(json.dumps(batch))
        r = run("--chart", str(c), "ask", str(q))
        _ok(r)
        assert r.returncode != 2 or str(c) in r.stderr


_DEMO_TEXT = demo_map_path().read_text(encoding="utf-8")


@FUZZ
@given(st.integers(0, len(_DEMO_TEXT) - 1), st.integers(0, 40),
       st.sampled_from(["", "=", "[", "]", "\"", "\x00", "\ufeff", "9" * 40, "[[hex]]\n", "level = \"2\"\n", "\n"]),
       st.sampled_from([".toml", ".json"]))
def test_random_broken_map_files_exit_0_or_2(at: int, cut: int, insert: str, suffix: str) -> None:
    text = _DEMO_TEXT[:at] + insert + _DEMO_TEXT[at + cut:]
    if suffix == ".json":
        text = text[: at % 200]
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / f"m{suffix}"
        p.write_text(text, encoding="utf-8")
        r = run("check", str(p))
        _ok(r)
        assert r.returncode in (0, 2)


@FUZZ
@given(st.one_of(st.binary(max_size=60), st.text(max_size=60).map(str.encode),
                 st.sampled_from([b"[" * 100 + b"]" * 100, b"[" + b"9" * 50 + b"]", b"\xff\xfe[\x00]\x00", b"{}",
                                  b'[{"kind": "los", "from": "W2", "to": "W6"}]' * 2, b"NaN"])))
def test_random_broken_query_files_exit_0_1_or_2(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        q = Path(d) / "q.json"
        q.write_bytes(raw)
        _ok(run("ask", str(q)))
