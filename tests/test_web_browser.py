"""The page of ``asl-terrain serve`` in a real browser: headless Chromium (Debian's, by path) driven by
Playwright's Python package, through each mode on the demo map and on an imported VASL board. Each test
asserts the ruling the page shows against the engine's own answer (``ask.answer_one``) and saves a
screenshot under ``out/web/``.

One server and one browser per module. Skipped, saying why, when Playwright or Chromium cannot be had
(``scripts/_browser.sh`` installs Chromium where it may); the VASL board tests also need ``../shared/vasl``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from asl_terrain import vasl
from asl_terrain.ask import answer_one
from asl_terrain.model import Map, load_demo
from asl_terrain.web import BackgroundServer, create_app, start_background

CHROMIUM = os.environ.get("ASL_TERRAIN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
SHOTS = Path(__file__).resolve().parents[1] / "out" / "web"
DATA = vasl.vasl_data_dir()

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed "
                               "(the test extras: pip install -e '.[test]')")
if not Path(CHROMIUM).is_file():
    pytest.skip(f"no Chromium at {CHROMIUM} (scripts/_browser.sh installs Debian's chromium when run as root)",
                allow_module_level=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        pw = sync_api.sync_playwright().start()
    except Exception as e:  # pragma: no cover - depends on the machine
        pytest.skip(f"Playwright cannot start: {e}")
    try:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    except Exception as e:  # pragma: no cover
        pw.stop()
        pytest.skip(f"Chromium at {CHROMIUM} cannot be launched headless: {str(e).splitlines()[0]}")
    yield b
    b.close()
    pw.stop()


class Page:
    """One browser page on the served map, with the steps a player takes."""

    def __init__(self, page: Any, m: Map) -> None:
        self.page = page
        self.m = m

    def mode(self, name: str) -> None:
        self.page.click(f'[data-mode="{name}"]')

    def centre(self, hex_name: str) -> tuple[float, float]:
        box = self.page.locator(f'#layer-hexes [data-hex="{hex_name}"]').bounding_box()
        assert box is not None, f"no hex element for {hex_name}"
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def click(self, hex_name: str, button: str = "left") -> None:
        x, y = self.centre(hex_name)
        self.page.mouse.click(x, y, button=button)

    def drag(self, a: str, b: str, through: list[str] = ()) -> None:  # type: ignore[assignment]
        x, y = self.centre(a)
        self.page.mouse.move(x, y)
        self.page.mouse.down()
        for h in [*through, b]:
            tx, ty = self.centre(h)
            self.page.mouse.move(tx, ty, steps=6)
        self.page.mouse.up()

    def answer(self, ok: Callable[[Any], bool], timeout: float = 20.0) -> Any:
        """The latest answer on the page (the ``data-answer`` element's JSON) once ``ok`` holds for it."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            text = self.page.get_attribute("[data-answer]", "data-answer")
            if text:
                last = json.loads(text)
                if ok(last) and not self.page.evaluate("document.body.dataset.busy === '1'"):
                    return last
            self.page.wait_for_timeout(50)
        raise AssertionError(f"the page's answer never became the one expected; last: {json.dumps(last)[:400]}")

    def shot(self, name: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        p = SHOTS / f"{name}.png"
        self.page.screenshot(path=str(p))
        return p


def _open(browser: Any, srv: BackgroundServer, m: Map) -> Iterator[Page]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 860})
    page = ctx.new_page()
    wrapped = Page(page, m)
    # count the page's /api/ask requests in flight, in the page itself (the order of Playwright's events
    # on this side is the order they are read, not the order they happened)
    page.add_init_script("""(() => { const f = window.fetch; window.__asks = 0; window.__inflight = 0;
      window.__maxInflight = 0; window.fetch = async (...a) => { const ask = String(a[0]).endsWith('/api/ask');
      if (ask) { window.__asks++; window.__inflight++; window.__maxInflight = Math.max(window.__maxInflight,
      window.__inflight); } try { return await f(...a); } finally { if (ask) window.__inflight--; } }; })();""")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(srv.url + "/")
    page.wait_for_function("document.body.dataset.ready === '1' && document.body.dataset.picture === '1'",
                           timeout=60000)
    yield wrapped
    ctx.close()
    assert not errors, f"the page's script failed: {errors}"


# ------------------------------------------------------------------------------------------ the demo map


@pytest.fixture(scope="module")
def demo() -> Map:
    return load_demo()


@pytest.fixture(scope="module")
def demo_server(demo: Map) -> Iterator[BackgroundServer]:
    srv = start_background(create_app(demo))
    yield srv
    srv.stop()


@pytest.fixture
def page(browser: Any, demo_server: BackgroundServer, demo: Map) -> Iterator[Page]:
    yield from _open(browser, demo_server, demo)


def test_every_hex_is_an_element_with_its_canonical_name(page: Page, demo: Map) -> None:
    names = page.page.eval_on_selector_all("#layer-hexes [data-hex]", "els => els.map(e => e.dataset.hex)")
    assert sorted(names) == sorted(demo.name_of(h) for h in demo.hexes())
    modes = page.page.eval_on_selector_all("[data-mode]", "els => els.map(e => e.dataset.mode)")
    assert {"los", "reach", "viewshed", "tem"} <= set(modes)
    page.shot("demo-page")


def test_los_drag_a_thread_blocked_by_the_house_in_j12(page: Page, demo: Map) -> None:
    """I14 to K11, dragged as in VASL: blocked by the single-story house at J12 (A6.2), past the orchard
    Hindrance in I13 (+1, B14.2); the thread is drawn red past the block, the Hindrance hex ringed."""
    page.mode("los")
    page.drag("HrI14", "HrK11", through=["HrJ13", "HrJ12"])
    a = page.answer(lambda a: a.get("to") == "HrK11")
    assert a == answer_one(demo, {"kind": "los", "from": "HrI14", "to": "HrK11"})
    assert a["blocked_by"]["hex"] == "HrJ12"
    assert page.page.text_content("[data-verdict]").startswith("blocked by single-story house at HrJ12")
    assert page.page.locator('[data-thread="blocked"]').count() == 1
    assert page.page.locator('[data-hindrance="HrI13"]').count() == 1
    assert "A6.2" in page.page.text_content("#result")
    page.shot("demo-los-blocked")


def test_los_dragging_keeps_one_request_in_flight_and_the_latest_wins(page: Page, demo: Map) -> None:
    page.mode("los")
    page.drag("HrB2", "HrW6", through=["HrE4", "HrH6", "HrL3", "HrO8", "HrR2", "HrT9"])
    a = page.answer(lambda a: a.get("to") == "HrW6")
    assert a == answer_one(demo, {"kind": "los", "from": "HrB2", "to": "HrW6"})
    asks, most = page.page.evaluate("[window.__asks, window.__maxInflight]")
    assert asks >= 2, "the thread was traced as it was dragged"
    assert most == 1, f"{most} LOS requests were in flight at once"


def test_los_click_one_then_the_other_and_choose_the_steeple_level(page: Page, demo: Map) -> None:
    """W2 then W6 by two clicks: clear, W2 Up-Slope (P2.3). Then from the church steeple K10/2 (a level
    chosen for the end) to W6."""
    page.mode("los")
    page.click("HrW2")
    page.click("HrW6")
    a = page.answer(lambda a: a.get("from") == "HrW2" and a.get("to") == "HrW6")
    assert a["clear"] and a["up_slope"]["from"] and a == answer_one(demo, {"kind": "los", "from": "HrW2",
                                                                             "to": "HrW6"})
    assert page.page.text_content("[data-verdict]") == "clear"
    page.click("HrK10")
    page.click("HrM16")
    page.answer(lambda a: a.get("from") == "HrK10" and a.get("to") == "HrM16")
    page.page.select_option("#a-loc", "HrK10/2")
    a = page.answer(lambda a: a.get("from") == "HrK10/2")
    assert a == answer_one(demo, {"kind": "los", "from": "HrK10/2", "to": "HrM16"})
    page.shot("demo-los-steeple")


def test_reach_shades_every_hex_and_shows_the_path_to_the_hovered_one(page: Page, demo: Map) -> None:
    page.mode("reach")
    page.page.fill("#allowance", "4")
    page.page.select_option("#unit", "infantry")
    page.click("HrM13")
    a = page.answer(lambda a: a.get("kind") == "reach" and a.get("from") == "HrM13")
    want = answer_one(load_demo(), {"kind": "reach", "unit": "infantry", "from": "HrM13", "allowance": 4})
    assert a["costs"] == want["costs"]
    shaded = page.page.eval_on_selector_all("#layer-hexes [data-cost]", "els => els.map(e => e.dataset.hex)")
    assert set(shaded) == {k.split("@")[0].split("/")[0] for k in want["costs"]}
    assert page.page.get_attribute('[data-hex="HrM12"]', "data-cost") == "1"
    x, y = page.centre("HrM10")
    page.page.mouse.move(x, y)
    page.page.wait_for_selector('[data-path-to="HrM10"]', timeout=20000)
    # the path's itemised cost (a path query) is the cost reach gave the hex
    assert float(page.page.get_attribute('[data-path-to="HrM10"]', "data-path-cost")) == want["costs"]["HrM10"]
    text = page.page.text_content("#hover-result")
    assert "B3.4" in text and "paved road" in text  # the road along M13-M10: itemised, with its rule
    assert page.page.locator('[data-path="HrM10"]').count() == 1
    page.shot("demo-reach")


def test_reach_of_a_vehicle_with_its_mp(page: Page, demo: Map) -> None:
    page.mode("reach")
    page.page.select_option("#unit", "vehicle")
    page.page.fill("#allowance", "6")
    page.click("HrM15")
    a = page.answer(lambda a: a.get("kind") == "reach" and a.get("from") == "HrM15" and a.get("units") == "MP")
    assert a == answer_one(load_demo(), {"kind": "reach", "unit": "vehicle", "from": "HrM15", "allowance": 6})
    page.page.select_option("#unit", "half-track")  # a vehicle class: the unit object of queries.md
    page.page.fill("#allowance", "")
    page.page.dispatch_event("#allowance", "change")
    a = page.answer(lambda a: a.get("kind") == "reach" and a.get("allowance") == 16)
    want = answer_one(load_demo(), {"kind": "reach", "unit": {"type": "vehicle", "class": "half-track"},
                                    "from": "HrM15"})
    assert a["costs"] == want["costs"]
    assert a["costs"] != answer_one(load_demo(), {"kind": "reach", "unit": "vehicle", "from": "HrM15"})["costs"]


def test_viewshed_of_the_church_steeple(page: Page, demo: Map) -> None:
    page.mode("viewshed")
    page.click("HrK10")
    page.answer(lambda a: a.get("kind") == "viewshed" and a.get("from") == "HrK10")
    page.page.select_option("#a-loc", "HrK10/2")
    a = page.answer(lambda a: a.get("kind") == "viewshed" and a.get("from") == "HrK10/2")
    assert a == answer_one(demo, {"kind": "viewshed", "from": "HrK10/2"})
    seen = set(page.page.eval_on_selector_all("#layer-hexes .seen, #layer-hexes .seen-hindered",
                                              "els => els.map(e => e.dataset.hex)"))
    assert seen == {k.split("/")[0].split("@")[0] for k in a["visible"]}
    hindered = set(page.page.eval_on_selector_all("#layer-hexes .seen-hindered", "els => els.map(e => e.dataset.hex)"))
    assert hindered == {k.split("/")[0] for k, d in a["visible"].items() if d}
    page.shot("demo-viewshed")


def test_tem_firer_then_target_with_the_smoke_on_the_map(page: Page, demo: Map) -> None:
    """M11 fires at K11: the stone house's +3 and the map's SMOKE +3, item by item."""
    page.mode("tem")
    page.click("HrM11")
    page.click("HrK11")
    a = page.answer(lambda a: a.get("kind") == "tem")
    assert a == answer_one(demo, {"kind": "tem", "target": "HrK11", "firer": "HrM11", "attack": "small-arms",
                                  "unit": "infantry"})
    text = page.page.text_content("#result")
    assert "SMOKE" in text and "+3" in text
    page.shot("demo-tem")


def test_what_if_smoke_placed_and_removed_recomputes_the_los(page: Page, demo: Map) -> None:
    page.mode("los")
    page.click("HrW2")
    page.click("HrW6")
    assert page.answer(lambda a: a.get("to") == "HrW6")["hindrance_drm"] == 0
    page.page.select_option("#tool", "smoke")
    page.page.fill("#smoke-strength", "3")
    page.click("HrW4")
    a = page.answer(lambda a: a.get("to") == "HrW6" and a.get("hindrance_drm") == 3)
    assert a == answer_one(demo, {"kind": "los", "from": "HrW2", "to": "HrW6", "counters": [
        *json.loads(json.dumps(page.page.evaluate("JSON.parse(state.ownCounters)"))),
        {"type": "smoke", "at": "HrW4", "strength": 3}]})
    assert page.page.locator('#layer-counters .what-if[data-at="HrW4"]').count() == 1
    page.shot("demo-what-if-smoke")
    page.page.select_option("#tool", "remove")
    page.click("HrW4")
    assert page.answer(lambda a: a.get("hindrance_drm") == 0)["clear"]
    assert demo.counters == load_demo().counters


def test_saved_counters_load_into_a_copy_of_the_map(page: Page, demo: Map) -> None:
    """"save" downloads the page's counters as [[counter]] tables; pasted into a copy of the map file they
    give the same situation (the served map file is never written)."""
    import tomllib

    from asl_terrain.ask.whatif import what_if_map
    from asl_terrain.model import demo_map_path

    page.page.select_option("#tool", "wreck")
    page.click("HrN17")
    page.page.select_option("#tool", "smoke")
    page.click("HrW4")
    with page.page.expect_download() as d:
        page.page.click("#save-counters")
    saved = tomllib.loads(Path(d.value.path()).read_text())
    on_page = page.page.evaluate("state.counters")
    assert len(saved["counter"]) == len(on_page) == len(demo.counters) + 2
    data = tomllib.loads(demo_map_path().read_text())
    data["counter"] = saved["counter"]
    copy = Map.from_data(data)
    assert copy.counters == what_if_map(demo, on_page).counters


def test_conditions_switched_recompute_the_answer(page: Page, demo: Map) -> None:
    page.mode("move")
    page.click("HrM13")
    page.click("HrM12")
    a = page.answer(lambda a: a.get("kind") == "move" and a.get("to") == "HrM12")
    assert a == answer_one(demo, {"kind": "move", "unit": "infantry", "from": "HrM13", "to": "HrM12"})
    page.page.select_option("#weather", "mud")
    page.page.select_option("#month", "10")
    q = {"kind": "move", "unit": "infantry", "from": "HrM13", "to": "HrM12",
         "conditions": {"month": 10, "weather": "mud"}}
    want = answer_one(demo, q)
    got = page.answer(lambda x: x == want)
    assert got == want
    page.page.click("#ssr-menu summary")  # an SSR switch the engine knows: no roads (B3.1)
    page.page.check('#ssr-list input[data-ssr="no-roads"]')
    q["conditions"] = {"month": 10, "weather": "mud", "ssr": ["no-roads"]}
    want = answer_one(demo, q)
    assert want != got and "error" not in want
    assert page.answer(lambda x: x == want) == want


def test_move_cost_and_the_hex_panel_by_right_click(page: Page, demo: Map) -> None:
    page.mode("move")
    page.click("HrS7")
    page.click("HrT6")
    a = page.answer(lambda a: a.get("kind") == "move" and a.get("to") == "HrT6")
    assert a["cost"] == 1.5 and a == answer_one(demo, {"kind": "move", "unit": "infantry", "from": "HrS7",
                                                       "to": "HrT6"})
    page.click("HrK10", button="right")
    answers = page.answer(lambda a: isinstance(a, list) and a[-1].get("kind") == "setup")
    steeple = next(x for x in answers if x.get("kind") == "stacking" and "K10/2" in x["explain"] + str(x))
    assert steeple["squad_equivalents"] == 0.5  # a steeple holds one half-squad (P5.21)
    assert page.page.get_attribute('[data-mode="hex"]', "aria-selected") == "true"
    page.shot("demo-hex-panel")


def test_keyboard_zoom_and_pan_move_the_view(page: Page) -> None:
    before = page.page.get_attribute("#map", "viewBox")
    page.page.focus("#map")
    page.page.keyboard.press("+")
    zoomed = page.page.get_attribute("#map", "viewBox")
    page.page.keyboard.press("ArrowRight")
    panned = page.page.get_attribute("#map", "viewBox")
    assert before != zoomed != panned
    w0, w1 = float(before.split()[2]), float(zoomed.split()[2])
    assert w1 < w0
    page.page.keyboard.press("2")
    assert page.page.get_attribute('[data-mode="reach"]', "aria-selected") == "true"


# ------------------------------------------------------------------------------------------ an imported board


@pytest.fixture(scope="module")
def board() -> Map:
    if DATA is None or not (DATA / "boards" / "bd01").is_file():
        pytest.skip("the VASL data (boards/) is not found: set ASL_TERRAIN_VASL or put it in ../shared/vasl")
    return Map.from_data(vasl.import_boards(["bd01"]).map)


@pytest.fixture(scope="module")
def board_server(board: Map) -> Iterator[BackgroundServer]:
    srv = start_background(create_app(board))
    yield srv
    srv.stop()


@pytest.fixture
def board_page(browser: Any, board_server: BackgroundServer, board: Map) -> Iterator[Page]:
    yield from _open(browser, board_server, board)


def test_board_is_drawn_on_its_artwork_with_every_hex(board_page: Page, board: Map) -> None:
    names = board_page.page.eval_on_selector_all("#layer-hexes [data-hex]", "els => els.map(e => e.dataset.hex)")
    assert sorted(names) == sorted(board.name_of(h) for h in board.hexes())
    assert "1Y10" in names
    board_page.shot("bd01-page")


def test_board_los_reach_viewshed_and_tem(board_page: Page, board: Map) -> None:
    p = board_page
    p.mode("los")
    p.drag("1E3", "1Q7", through=["1J5"])
    a = p.answer(lambda a: a.get("kind") == "los" and a.get("to") == "1Q7")
    assert a == answer_one(board, {"kind": "los", "from": "1E3", "to": "1Q7"})
    p.shot("bd01-los")
    p.mode("reach")
    p.page.fill("#allowance", "4")
    p.click("1Y5")
    a = p.answer(lambda a: a.get("kind") == "reach" and a.get("from") == "1Y5")
    assert a["costs"] == answer_one(board, {"kind": "reach", "unit": "infantry", "from": "1Y5",
                                            "allowance": 4})["costs"]
    x, y = p.centre("1Y3")
    p.page.mouse.move(x, y)
    p.page.wait_for_selector('#hover-result [data-path-to]', timeout=20000)
    p.shot("bd01-reach")
    p.mode("viewshed")
    p.click("1Y5")
    a = p.answer(lambda a: a.get("kind") == "viewshed" and a.get("from") == "1Y5")
    assert a == answer_one(board, {"kind": "viewshed", "from": "1Y5"})
    assert p.page.locator("#layer-hexes .seen, #layer-hexes .seen-hindered").count() == len(
        {k.split("/")[0].split("@")[0] for k in a["visible"]})
    p.shot("bd01-viewshed")
    p.mode("tem")
    p.click("1Y5")
    p.click("1W6")
    a = p.answer(lambda a: a.get("kind") == "tem")
    assert a == answer_one(board, {"kind": "tem", "target": "1W6", "firer": "1Y5", "attack": "small-arms",
                                   "unit": "infantry"})
    p.shot("bd01-tem")


def test_a_layout_names_its_boards_and_board_prefixed_hexes(browser: Any) -> None:
    """Two boards side by side: every hex element carries the name answers use (board-prefixed), each board
    is labelled, and a thread dragged from one board to the other is the engine's LOS."""
    if DATA is None or not all((DATA / "boards" / b).is_file() for b in ("bd01", "bd02")):
        pytest.skip("the VASL data (boards/bd01, bd02) is not found: set ASL_TERRAIN_VASL or put it in ../shared/vasl")
    m = Map.from_data(vasl.import_boards(["bd01", "bd02"], layout="bd01,bd02").map)
    srv = start_background(create_app(m))
    try:
        for p in _open(browser, srv, m):
            names = p.page.eval_on_selector_all("#layer-hexes [data-hex]", "els => els.map(e => e.dataset.hex)")
            assert sorted(names) == sorted(m.name_of(h) for h in m.hexes())
            assert {"1Y5", "2C3"} <= set(names)
            labels = p.page.eval_on_selector_all(".board-label", "els => els.map(e => e.textContent)")
            assert labels == ["bd01 (1)", "bd02 (2)"]
            p.mode("los")
            p.drag("1Y5", "2E5")
            a = p.answer(lambda a: a.get("kind") == "los" and a.get("to") == "2E5")
            assert a == answer_one(m, {"kind": "los", "from": "1Y5", "to": "2E5"})
            p.shot("layout-los")
    finally:
        srv.stop()


def test_units_of_the_map_are_shown_in_their_hexes(browser: Any) -> None:
    """A map's [[unit]]s (as a saved game gives them) are drawn in their hexes, named in a tooltip."""
    import tomllib

    from asl_terrain.model import demo_map_path

    data = tomllib.loads(demo_map_path().read_text())
    data["unit"] = [{"name": "4-6-7 squad", "kind": "squad", "side": "German", "at": "K10"},
                    {"name": "8-1 leader", "kind": "leader", "side": "German", "at": "K10"},
                    {"name": "4-4-7 squad", "kind": "squad", "side": "Russian", "at": "M13"},
                    {"name": "reserve", "kind": "squad", "side": "Russian"}]
    m = Map.from_data(data)
    srv = start_background(create_app(m))
    try:
        for p in _open(browser, srv, m):
            shown = p.page.eval_on_selector_all("#layer-counters [data-unit]",
                                                "els => els.map(e => [e.dataset.unit, e.dataset.at])")
            assert sorted(shown) == [["leader", "HrK10"], ["squad", "HrK10"], ["squad", "HrM13"]]
            tips = p.page.eval_on_selector_all("#layer-counters [data-unit] title", "els => els.map(e => e.textContent)")
            assert "4-6-7 squad (squad, German) in HrK10" in tips
    finally:
        srv.stop()


def test_a_refused_request_shows_the_servers_words(browser: Any, demo: Map) -> None:
    """A server that turns every request away (503 busy) leaves the page working and saying why."""
    srv = start_background(create_app(demo, max_pending=0))
    try:
        for p in _open(browser, srv, demo):
            p.mode("los")
            p.click("HrW2")
            p.click("HrW6")
            p.page.wait_for_selector("#result [data-error]", timeout=20000)
            assert "busy" in p.page.text_content("#result [data-error]")
            assert p.answer(lambda a: "error" in a)["kind"] == "los"
    finally:
        srv.stop()
