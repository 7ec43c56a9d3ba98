"""The HTTP API under ``asl-terrain serve`` (asl_terrain.web): ``POST /api/ask`` answers exactly as ``ask``
does, ``GET /api/map`` describes the map, bad requests get a 4xx with ask's own error text, and no request
reaches the file system. The flood test sends a bounded number of requests to 127.0.0.1 only.

The tests on an imported board read ``../shared/vasl`` and skip, saying so, when it is absent.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx", reason="the API tests need httpx (the test extras: pip install -e '.[test]')")
import warnings  # noqa: E402

import httpx  # noqa: E402

with warnings.catch_warnings():  # newer Starlette would rather have httpx2 under its TestClient
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from asl_terrain import vasl  # noqa: E402
from asl_terrain.ask import answer_all, read_queries  # noqa: E402
from asl_terrain.grid import Hex  # noqa: E402
from asl_terrain.model import Map, demo_map_path, load_demo  # noqa: E402
from asl_terrain.web import MAX_BODY, create_app, start_background  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "demo-queries.json"
DATA = vasl.vasl_data_dir()
needs_vasl = pytest.mark.skipif(
    DATA is None or not (DATA / "boards" / "bd01").is_file(),
    reason="the VASL data (boards/, SharedBoardMetadata.xml) is not found: set ASL_TERRAIN_VASL or put it in "
           "../shared/vasl beside the repository",
)


@pytest.fixture(scope="module")
def demo() -> Map:
    return load_demo()


@pytest.fixture(scope="module")
def client(demo: Map) -> Any:
    with TestClient(create_app(demo)) as c:
        yield c


def _roundtrip(x: Any) -> Any:
    return json.loads(json.dumps(x))


def test_ask_answers_the_demo_examples_exactly_as_ask(client: Any, demo: Map) -> None:
    queries = read_queries(str(EXAMPLES))
    r = client.post("/api/ask", json=queries)
    assert r.status_code == 200
    want, status = answer_all(demo, queries)
    assert status == 0
    assert r.json() == _roundtrip(want)
    assert len(r.json()) == len(queries) and all("rules" in a and "explain" in a for a in r.json())


def test_ask_answers_as_the_ask_command_prints() -> None:
    """The CLI's ``ask`` (a separate process) prints the same list the API returns. A fresh map on both
    sides: the movement engine breaks ties between equally cheap paths by what its caches hold, so a
    warm map may give another cheapest path (reported on issue 14)."""
    qs = [{"kind": "los", "from": "W2", "to": "W6"}, {"kind": "reach", "from": "M13", "allowance": 3},
          {"kind": "tem", "target": "K11", "firer": "M11"}]
    out = subprocess.run([sys.executable, "-m", "asl_terrain", "ask", "-", "--indent", "0"], input=json.dumps(qs),
                         capture_output=True, text=True, check=True, cwd=ROOT)
    with TestClient(create_app(load_demo())) as client:
        assert client.post("/api/ask", json=qs).json() == json.loads(out.stdout)


@pytest.mark.parametrize("unit, start, allowance", [("infantry", "M13", 4), ("vehicle", "M15", None)])
def test_the_path_the_page_itemises_costs_what_reach_shades(client: Any, unit: str, start: str,
                                                            allowance: int | None) -> None:
    """The page shades each hex with reach's cost and, under the mouse, itemises reach's cheapest path with a
    ``path`` query: for every Location reached, the two agree."""
    q: dict[str, Any] = {"kind": "reach", "unit": unit, "from": start}
    if allowance is not None:
        q["allowance"] = allowance
    reach = client.post("/api/ask", json=[q]).json()[0]
    locs = [loc for loc, p in reach["paths"].items() if len(p) > 1][:400]
    assert len(locs) > 20
    paths = [{"kind": "path", "unit": unit, "hexes": reach["paths"][loc],
              **({"allowance": allowance} if allowance is not None else {})} for loc in locs]
    r = client.post("/api/ask", json=paths)
    assert r.status_code == 200
    for loc, a in zip(locs, r.json()):
        assert a["allowed"] and a["cost"] == pytest.approx(reach["costs"][loc]), loc
        assert sum(i["cost"] for s in a["steps"] for i in s["items"]) == pytest.approx(a["cost"]), loc


def test_ask_a_single_object_is_a_batch_of_one(client: Any) -> None:
    r = client.post("/api/ask", json={"kind": "los", "from": "I14", "to": "K11"})
    assert r.status_code == 200
    [a] = r.json()
    assert a["clear"] is False and a["blocked_by"]["hex"] == "HrJ12"


def test_a_query_that_cannot_be_answered_is_422_with_asks_error_text(client: Any, demo: Map) -> None:
    qs = [{"kind": "los", "from": "I14", "to": "Q99"}, {"kind": "move", "from": "S7", "to": "T6"}]
    r = client.post("/api/ask", json=qs)
    assert r.status_code == 422
    want, status = answer_all(demo, qs)
    assert status == 1
    assert r.json() == _roundtrip(want)
    assert "Q99" in r.json()[0]["error"] and r.json()[1]["allowed"] is True


@pytest.mark.parametrize("body, words", [
    (b"[{", "not valid JSON"),
    (b'"los"', "expected a JSON list of query objects, got str"),
    (b"\xff\xfe", "not UTF-8"),
])
def test_a_body_that_is_not_a_query_list_is_400(client: Any, body: bytes, words: str) -> None:
    r = client.post("/api/ask", content=body)
    assert r.status_code == 400
    assert words in r.json()["error"] and r.json()["error"].startswith("the request body:")


def test_an_oversized_body_is_413_and_the_server_answers_after(client: Any) -> None:
    big = json.dumps([{"kind": "los", "from": "I14", "to": "K11"}] * (MAX_BODY // 30))
    assert len(big) > MAX_BODY
    r = client.post("/api/ask", content=big)
    assert r.status_code == 413 and "more than" in r.json()["error"]

    def chunks() -> Any:  # no Content-Length: the limit holds while reading
        for _ in range(40):
            yield b" " * 65536

    r = client.post("/api/ask", content=chunks())
    assert r.status_code == 413
    assert client.post("/api/ask", json=[{"kind": "los", "from": "I14", "to": "K11"}]).status_code == 200


def test_too_many_queries_in_one_request_is_413(client: Any) -> None:
    r = client.post("/api/ask", json=[{"kind": "stacking", "at": "K10"}] * 501)
    assert r.status_code == 413 and "501 queries" in r.json()["error"]


@pytest.mark.parametrize("path", [
    "/static/../__init__.py", "/static/..%2F__init__.py", "/static/%2e%2e%2f%2e%2e%2fmodel.py",
    "/static/..%5c__init__.py", "/../../etc/passwd", "/static//etc/passwd", "/api/../web/__init__.py",
    "/static/__init__.py", "/static/%2Fetc%2Fpasswd", "/api/map.svg/../../demo.toml",
])
def test_no_request_path_reaches_the_file_system(client: Any, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404
    assert "import" not in r.text and "root:" not in r.text and "[[hex]]" not in r.text
    assert "error" in r.json()


def test_the_page_and_its_own_files_are_served(client: Any) -> None:
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    scripts = re.findall(r'src="/static/([\w.-]+)"', r.text) + re.findall(r'href="/static/([\w.-]+)"', r.text)
    assert scripts, "the page names its script and style sheet"
    for name in scripts:
        assert client.get(f"/static/{name}").status_code == 200
    links = re.findall(r'(?:src|href)="([^"]+)"', r.text)  # no CDN: everything ships in the package
    assert links and all(x.startswith("/static/") for x in links)
    assert "https://" not in r.text and "//cdn" not in r.text


def test_a_foreign_host_name_is_refused_when_hosts_are_named(demo: Map) -> None:
    """serve names the hosts a request may carry: a page of another site that reaches 127.0.0.1 through a
    name of its own (DNS rebinding) gets 400, not the map."""
    with TestClient(create_app(demo, allowed_hosts=["127.0.0.1", "localhost"]), base_url="http://127.0.0.1") as c:
        assert c.get("/api/map").status_code == 200
        assert c.get("/api/map", headers={"host": "evil.example"}).status_code == 400
        assert c.post("/api/ask", json=[], headers={"host": "evil.example:8765"}).status_code == 400


def test_wrong_methods_are_405(client: Any) -> None:
    assert client.get("/api/ask").status_code == 405
    assert client.post("/api/map").status_code == 405


def test_map_names_every_hex_canonically_with_its_centre(client: Any, demo: Map) -> None:
    d = client.get("/api/map").json()
    assert d["name"] == demo.name and d["prefix"] == "Hr"
    assert len(d["hexes"]) == len(demo)
    names = {h["name"] for h in d["hexes"]}
    assert names == {demo.name_of(h) for h in demo.hexes()}
    k10 = next(h for h in d["hexes"] if h["name"] == "HrK10")
    assert "HrK10/2" in k10["locations"]  # the steeple: a level to choose for a LOS end
    s = d["size"]  # the centre follows grid.to_pixel: column K is index 10, an even column
    assert k10["x"] == pytest.approx(3 * 10 * s / 2, abs=0.01)
    assert k10["y"] == pytest.approx(2 * 10 * s * 3 ** 0.5 / 2, abs=0.01)
    assert {c["type"] for c in d["counters"]} >= {"smoke"}
    assert set(d["choices"]["kinds"]) >= {"los", "reach", "viewshed", "tem", "move", "path", "setup", "stacking"}


def test_the_picture_is_the_map_without_its_counters(client: Any) -> None:
    r = client.get("/api/map.svg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert '<g id="layer-terrain"' in r.text
    assert re.search(r'<g id="layer-counters"[^>]*/>', r.text), "an empty counters layer: the page draws them"


def test_what_if_counters_recompute_the_answer_and_leave_the_map_alone(client: Any, demo: Map) -> None:
    before = demo_map_path().read_bytes()
    q = {"kind": "los", "from": "W2", "to": "W6"}
    plain = client.post("/api/ask", json=[q]).json()[0]
    assert plain["clear"] and plain["hindrance_drm"] == 0
    counters = client.get("/api/map").json()["counters"] + [{"type": "smoke", "at": "HrW4", "strength": 3}]
    smoked = client.post("/api/ask", json=[{**q, "counters": counters}]).json()[0]
    assert smoked["hindrance_drm"] == 3 and any(h["hex"] == "HrW4" for h in smoked["hindrances"])
    assert client.post("/api/ask", json=[q]).json()[0] == plain
    assert demo_map_path().read_bytes() == before
    assert client.get("/api/map").json()["counters"] == client.get("/api/map").json()["counters"]


def test_a_flood_of_requests_to_127_0_0_1_leaves_the_server_answering(demo: Map) -> None:
    """200 requests, 24 at a time, from a real server on 127.0.0.1: each is answered (200) or turned away
    at once (503 busy), never dropped; the server answers afterwards."""
    srv = start_background(create_app(demo, max_pending=4), "127.0.0.1")
    assert srv.url.startswith("http://127.0.0.1:")
    q = [{"kind": "los", "from": "I14", "to": "K11"}]
    try:
        with httpx.Client(base_url=srv.url, timeout=30) as http:
            def one(i: int) -> int:
                return http.post("/api/ask", json=q if i % 5 else {"kind": "viewshed", "from": "K10/2"}).status_code

            with ThreadPoolExecutor(24) as pool:
                codes = list(pool.map(one, range(200)))
            assert set(codes) <= {200, 503} and codes.count(200) >= 4
            r = http.post("/api/ask", json=q)
            assert r.status_code == 200 and r.json()[0]["blocked_by"]["hex"] == "HrJ12"
    finally:
        srv.stop()


def test_serve_prints_its_address_answers_and_stops_cleanly_on_ctrl_c() -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    p = subprocess.Popen([sys.executable, "-m", "asl_terrain", "serve", "--port", "0"], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None
        line = p.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        url = m.group(0)
        deadline = time.monotonic() + 20
        while True:
            try:
                r = httpx.post(url + "api/ask", json=[{"kind": "los", "from": "W2", "to": "W6"}], timeout=10)
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        assert r.status_code == 200 and r.json()[0]["clear"] is True
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=20)
        assert p.returncode == 0, err
        assert "stopped" in out and "Traceback" not in err
    finally:
        if p.poll() is None:
            p.kill()


def test_serve_refuses_a_port_in_use_with_one_line() -> None:
    srv = start_background(create_app(load_demo()))
    try:
        port = srv.url.rsplit(":", 1)[1]
        p = subprocess.run([sys.executable, "-m", "asl_terrain", "serve", "--port", port], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 2
        assert f"--port {port}: cannot listen" in p.stderr and "Traceback" not in p.stderr
    finally:
        srv.stop()


@pytest.mark.parametrize("args, words", [
    (["serve", "--boards", "bd01,,bd02"], "layout"),
    (["serve", "x.toml", "--boards", "bd01"], "--boards: give either a map file or --boards"),
    (["serve", "no-such-game.vsav"], "no-such-game.vsav: no such saved game"),
    (["serve", "no-such-map.toml"], "no-such-map.toml"),
])
def test_serve_refuses_bad_arguments_with_one_line(args: list[str], words: str) -> None:
    p = subprocess.run([sys.executable, "-m", "asl_terrain", *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2, p.stderr
    assert words in p.stderr and "Traceback" not in p.stderr and p.stderr.startswith("error:")


@needs_vasl
def test_an_imported_board_answers_as_ask_and_names_its_hexes() -> None:
    r = vasl.import_boards(["bd01"])
    m = Map.from_data(r.map)
    with TestClient(create_app(m)) as c:
        d = c.get("/api/map").json()
        assert d["depiction"] == "artwork" and [b["archive"] for b in d["boards"]] == ["bd01"]
        assert any(h["name"] == "1Y10" for h in d["hexes"])
        qs = [{"kind": "los", "from": "1Y10", "to": "1R5"}, {"kind": "viewshed", "from": "1Y10"},
              {"kind": "reach", "from": "1Y10", "allowance": 4}]
        got = c.post("/api/ask", json=qs)
        assert got.status_code == 200 and got.json() == _roundtrip(answer_all(m, qs)[0])
        svg = c.get("/api/map.svg").text
        assert "data:image/png;base64," in svg  # drawn on the board's artwork


GAME = (DATA / "games" / "Hill 621 (Scenario E).vsav") if DATA is not None else None


@pytest.mark.skipif(GAME is None or not GAME.is_file(), reason="the VASL saved game 'Hill 621 (Scenario E).vsav' "
                    "is not found in ../shared/vasl/games")
def test_a_saved_game_is_served_with_its_units_and_counters() -> None:
    from asl_terrain import vsav
    from asl_terrain.ask.whatif import counters_from_json

    assert GAME is not None
    m = Map.from_data(vsav.import_save(GAME).map, source=str(GAME))
    with TestClient(create_app(m)) as c:
        d = c.get("/api/map").json()
        assert d["units"] and len(d["units"]) == len(m.units)  # this game's units all wait off the map
        assert [(u["name"], u["side"]) for u in d["units"]] == [(u.name, u.side) for u in m.units]
        assert all(m.parse_location(u["at"]) == u0.at for u, u0 in zip(d["units"], m.units) if u["at"])
        assert counters_from_json(m, d["counters"]) == m.counters
        at = d["hexes"][len(d["hexes"]) // 2]["name"]
        got = c.post("/api/ask", json=[{"kind": "stacking", "at": at}]).json()
        assert got == _roundtrip([answer_all(m, [{"kind": "stacking", "at": at}])[0][0]])


@needs_vasl
def test_a_layout_gives_board_prefixed_names_beside_the_maps() -> None:
    r = vasl.import_boards(["bd01", "bd02"], layout="bd01,bd02")
    m = Map.from_data(r.map)
    with TestClient(create_app(m)) as c:
        d = c.get("/api/map").json()
        assert [b["prefix"] for b in d["boards"]] == ["1", "2"]
        by_name = {h["name"]: h for h in d["hexes"]}
        # every hex by the name the answers use: board-prefixed on a layout (board 2's C3 is map column II)
        assert set(by_name) == {m.name_of(h) for h in m.hexes()}
        assert "2C3" in by_name and m.parse_hex("2C3") == Hex.parse("II3")
        assert (by_name["2C3"]["col"], by_name["2C3"]["row"]) == (Hex.parse("II3").col, 3)
        ans = c.post("/api/ask", json=[{"kind": "los", "from": "2C3", "to": "1Y5"}]).json()[0]
        assert ans["from"] == "2C3" and all(h["hex"] in by_name for h in ans["hindrances"])
