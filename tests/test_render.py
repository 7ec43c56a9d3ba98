"""render.map_svg: the structure of the SVG (layers, classes, coordinates), not its pixels."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from asl_terrain.grid import Hex, Hexside, to_pixel
from asl_terrain.model import Map
from asl_terrain.render import DEFAULT_COLORS, Mark, Thread, map_svg, save

NS = {"svg": "http://www.w3.org/2000/svg"}
SIZE = 36.0
LAYERS = ["levels", "terrain", "streams", "roads", "hexsides", "grid", "names", "counters", "fills", "paths",
          "threads", "marks", "caption"]
H = Hex.parse


def small_map(**extra: Any) -> Map:
    data: dict[str, Any] = {"format": "asl-terrain/1", "name": "t", "columns": ["A", "H"], "rows": [1, 8]}
    data.update(extra)
    return Map.from_data(data)


@pytest.fixture(scope="module")
def village() -> Map:
    return small_map(
        name="render village",
        hex=[
            {"at": ["B2", "C2"], "level": 1},
            {"at": ["D3", "E3"], "terrain": "building", "building": "stone", "building_id": "church",
             "building_type": "multi-level", "upper_levels": 1},
            {"at": ["D3"], "steeple": True},
            {"at": ["G2"], "terrain": "building", "building_type": "single-hex-two-story-house"},
            {"at": ["A5"], "terrain": "woods"},
            {"at": ["B5"], "terrain": "grain"},
            {"at": ["C5", "C6"], "stream": "shallow"},
            {"at": ["C6"], "ford": True},
            {"at": ["H8"], "offboard": True},
        ],
        hexside=[
            {"at": ["D4-E4"], "narrow_street": "paved"},
            {"at": ["F4-F5"], "road": "dirt"},
            {"at": ["B2-B3"], "slope": "B3"},
            {"at": ["E6-F6"], "wall": True},
            {"at": ["E7-F7"], "fence": True},
        ],
        counter=[
            {"type": "smoke", "at": "F6", "strength": 2},
            {"type": "mines", "at": "F6", "kind": "A-P", "strength": 6},
            {"type": "residual-fp", "at": "G6", "fp": 4},
            {"type": "roadblock", "hexside": "D4-E4", "arrow": "D4-E4-E5"},
            {"type": "wreck", "at": "A7", "bypass": "A7-A8"},
        ],
    )


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def layer(root: ET.Element, name: str) -> ET.Element:
    g = root.find(f".//svg:g[@id='layer-{name}']", NS)
    assert g is not None, f"no layer-{name}"
    return g


def with_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{{{NS['svg']}}}{tag}") if cls in e.get("class", "").split()]


def px(p: tuple[float, float]) -> tuple[float, float]:
    return to_pixel(p, SIZE)  # type: ignore[arg-type]


def close(a: tuple[float, float], b: tuple[float, float], tol: float = 0.02) -> bool:
    return math.dist(a, b) <= tol


def line_ends(e: ET.Element) -> tuple[tuple[float, float], tuple[float, float]]:
    return (float(e.get("x1", 0)), float(e.get("y1", 0))), (float(e.get("x2", 0)), float(e.get("y2", 0)))


# ------------------------------------------------------------------------------------------- document


class TestDocument:
    def test_every_layer_is_a_group_in_drawing_order(self, village: Map) -> None:
        root = parse(map_svg(village))
        ids = [g.get("id", "")[len("layer-"):] for g in root.findall("svg:g", NS)]
        assert set(LAYERS) <= set(ids)
        # overlays come after the map itself
        assert ids.index("fills") > ids.index("counters") > ids.index("grid") > ids.index("terrain")
        assert ids.index("threads") > ids.index("paths") > ids.index("fills")
        assert ids.index("caption") == len(ids) - 1

    def test_desc_names_the_map(self, village: Map) -> None:
        desc = parse(map_svg(village)).find("svg:desc", NS)
        assert desc is not None and "render village" in (desc.text or "")

    def test_view_box_holds_every_hex_with_a_margin_and_a_white_background(self, village: Map) -> None:
        root = parse(map_svg(village))
        x0, y0, w, h = (float(v) for v in root.get("viewBox", "").split())
        for hexname in ("A1", "H8", "B8", "A8"):
            cx, cy = px(H(hexname).centre())
            assert x0 + SIZE <= cx <= x0 + w - SIZE and y0 + SIZE * 0.866 <= cy <= y0 + h - SIZE * 0.866
        bg = root.find("svg:rect", NS)
        assert bg is not None and bg.get("fill") == "#ffffff" and float(bg.get("width", 0)) == pytest.approx(w)

    def test_hex_names_without_prefix_and_switchable(self) -> None:
        m = small_map(prefix="St")
        names = [t.text for t in with_class(parse(map_svg(m)), "text", "hex-name")]
        assert "C3" in names and "StC3" not in names and len(set(names)) == 64
        assert not with_class(parse(map_svg(m, show_names=False)), "text", "hex-name")

    def test_colours_override_key_by_key(self, village: Map) -> None:
        svg = map_svg(village, threads=[Thread(H("A1").centre(), H("C1").centre(), True)],
                      colors={"thread-clear": "#123456"})
        (line,) = with_class(parse(svg), "line", "thread")
        assert line.get("stroke") == "#123456"
        assert DEFAULT_COLORS["level-0"] in svg  # the other keys keep their defaults


# ------------------------------------------------------------------------------------------- the map


class TestMapLayers:
    def test_levels_shade_by_base_level(self, village: Map) -> None:
        levels = layer(parse(map_svg(village)), "levels")
        fills = {p.get("data-level"): p.get("fill") for p in levels}
        assert fills["0"] == DEFAULT_COLORS["level-0"] and fills["1"] == DEFAULT_COLORS["level-1"]

    def test_negative_and_very_high_levels_have_shades(self) -> None:
        m = small_map(hex=[{"at": ["A1"], "level": -5}, {"at": ["B1"], "level": 9}])
        fills = {p.get("data-level"): p.get("fill") for p in layer(parse(map_svg(m)), "levels")}
        assert fills["-5"] == DEFAULT_COLORS["level-minus-3"] and fills["9"] == DEFAULT_COLORS["level-6"]

    def test_terrain_symbols(self, village: Map) -> None:
        terrain = layer(parse(map_svg(village)), "terrain")
        assert with_class(terrain, "circle", "woods")
        assert with_class(terrain, "path", "grain")
        assert with_class(terrain, "path", "offboard")

    def test_one_building_joined_across_its_shared_hexside(self, village: Map) -> None:
        terrain = layer(parse(map_svg(village)), "terrain")
        # D3 and E3 (one building_id) plus the bridge between them; G2 a house of its own
        assert len(with_class(terrain, "polygon", "building")) == 4
        assert [t.text for t in with_class(terrain, "text", "building-levels") if "halo" not in t.get("class", "")] \
            == ["2", "2", "2"]

    def test_steeple_cross_and_large_white_dot(self, village: Map) -> None:
        grid = layer(parse(map_svg(village)), "grid")
        (cross,) = with_class(grid, "path", "steeple")
        (dot,) = with_class(grid, "circle", "large-white")
        assert close((float(dot.get("cx", 0)), float(dot.get("cy", 0))), px(H("G2").centre()))
        assert cross.get("fill") == "#ffffff"

    def test_stream_band_runs_centre_to_hexside_midpoint_with_a_ford(self, village: Map) -> None:
        streams = layer(parse(map_svg(village)), "streams")
        (band_c5,) = [e for e in with_class(streams, "line", "stream")
                      if close(line_ends(e)[0], px(H("C5").centre()))]
        mx, my = Hexside.of(H("C5"), H("C6")).midpoint_x2()
        assert close(line_ends(band_c5)[1], px((mx / 2, my / 2)))
        assert with_class(streams, "line", "ford")

    def test_road_from_centre_to_road_hexside_midpoint(self, village: Map) -> None:
        roads = with_class(layer(parse(map_svg(village)), "roads"), "line", "road-dirt")
        mx, my = Hexside.of(H("F4"), H("F5")).midpoint_x2()
        ends = {(line_ends(e)[0], line_ends(e)[1]) for e in roads}
        assert len(ends) == 2
        for start, end in ends:
            assert close(end, px((mx / 2, my / 2)))
            assert close(start, px(H("F4").centre())) or close(start, px(H("F5").centre()))

    def test_narrow_street_stripe_lies_along_its_hexside(self, village: Map) -> None:
        (stripe,) = with_class(layer(parse(map_svg(village)), "roads"), "line", "narrow-street")
        p, q = (px(v) for v in Hexside.of(H("D4"), H("E4")).endpoints())
        a, b = line_ends(stripe)
        assert (close(a, p) and close(b, q)) or (close(a, q) and close(b, p))
        assert "narrow-street-paved" in stripe.get("class", "")

    def test_slope_hash_marks_lie_inside_the_down_slope_hex(self, village: Map) -> None:
        ticks = with_class(layer(parse(map_svg(village)), "hexsides"), "line", "slope-tick")
        assert len(ticks) >= 3
        p, q = (px(v) for v in Hexside.of(H("B2"), H("B3")).endpoints())
        down, up = px(H("B3").centre()), px(H("B2").centre())
        for tick in ticks:
            start, end = line_ends(tick)
            # the tick starts on the hexside (between its end vertices) ...
            cross = (q[0] - p[0]) * (start[1] - p[1]) - (q[1] - p[1]) * (start[0] - p[0])
            assert abs(cross) / math.dist(p, q) < 0.05
            assert min(p[0], q[0]) - 0.01 <= start[0] <= max(p[0], q[0]) + 0.01
            # ... runs perpendicular to it ...
            dot = (q[0] - p[0]) * (end[0] - start[0]) + (q[1] - p[1]) * (end[1] - start[1])
            assert abs(dot) < 0.05
            # ... into the Down-Slope hex (B3), not the Up-Slope one (B2)
            assert math.dist(end, down) < math.dist(start, down)
            assert math.dist(end, down) < math.dist(end, up)

    def test_walls_and_fences_on_their_hexsides(self, village: Map) -> None:
        hexsides = layer(parse(map_svg(village)), "hexsides")
        (wall,) = with_class(hexsides, "line", "wall")
        p, q = (px(v) for v in Hexside.of(H("E6"), H("F6")).endpoints())
        assert {line_ends(wall)[0], line_ends(wall)[1]} == {(round(p[0], 2), round(p[1], 2)),
                                                             (round(q[0], 2), round(q[1], 2))}
        assert with_class(hexsides, "line", "fence") and with_class(hexsides, "path", "fence-x")

    def test_crest_lines_between_different_base_levels(self, village: Map) -> None:
        crests = with_class(layer(parse(map_svg(village)), "hexsides"), "line", "crest")
        assert len(crests) == 10  # around B2 and C2 (level 1, adjacent): 6 + 6 less their shared hexside twice
        assert all(c.get("stroke") == DEFAULT_COLORS["crest"] for c in crests)

    def test_counters_show_their_values(self, village: Map) -> None:
        counters = layer(parse(map_svg(village)), "counters")
        texts = {t.text for t in counters.iter(f"{{{NS['svg']}}}text")}
        assert {"S2", "AP6", "FP4", "WRK"} <= texts
        assert with_class(counters, "g", "counter-smoke") and with_class(counters, "g", "counter-mines")

    def test_a_wire_counter_draws_in_its_hex(self) -> None:
        """A ``wire`` counter (B26, docs/map-format-extensions.md) draws as a counter labelled Wire in C3."""
        m = small_map(counter=[{"type": "wire", "at": "C3"}])
        (wire,) = with_class(layer(parse(map_svg(m)), "counters"), "g", "counter-wire")
        assert {t.text for t in wire.iter(f"{{{NS['svg']}}}text")} == {"Wire"}
        rect = wire.find("svg:rect", NS)
        assert rect is not None and rect.get("fill") == DEFAULT_COLORS["wire"]
        x = float(rect.get("x", 0)) + float(rect.get("width", 0)) / 2
        y = float(rect.get("y", 0)) + float(rect.get("height", 0)) / 2
        assert math.dist((x, y), px(H("C3").centre())) < math.dist((x, y), px(H("C4").centre()))

    def test_narrow_street_roadblock_runs_centre_dot_to_centre_dot_with_its_arrow(self, village: Map) -> None:
        counters = layer(parse(map_svg(village)), "counters")
        (bar,) = with_class(counters, "line", "narrow-street-roadblock")
        ends = set(line_ends(bar))
        assert ends == {tuple(round(v, 2) for v in px(H("D4").centre())),
                        tuple(round(v, 2) for v in px(H("E4").centre()))}
        (arrow,) = with_class(counters, "polygon", "roadblock-arrow")
        assert arrow.get("data-vertex") == "D4-E4-E5"

    def test_wreck_in_bypass_sits_toward_its_hexside(self, village: Map) -> None:
        (wreck,) = with_class(layer(parse(map_svg(village)), "counters"), "g", "counter-wreck")
        rect = wreck.find("svg:rect", NS)
        assert rect is not None
        x = float(rect.get("x", 0)) + float(rect.get("width", 0)) / 2
        y = float(rect.get("y", 0)) + float(rect.get("height", 0)) / 2
        mx, my = Hexside.of(H("A7"), H("A8")).midpoint_x2()
        assert math.dist((x, y), px((mx / 2, my / 2))) < math.dist((x, y), px(H("A7").centre()))

    def test_b29_roadblock_on_an_ordinary_hexside(self) -> None:
        m = small_map(counter=[{"type": "roadblock", "hexside": "C3-C4"}])
        counters = layer(parse(map_svg(m)), "counters")
        assert with_class(counters, "line", "roadblock") and not with_class(counters, "polygon", "roadblock-arrow")

    def test_board_image_replaces_the_drawn_terrain(self, village: Map) -> None:
        root = parse(map_svg(village, board_image=b"\x89PNG\r\n\x1a\nfake"))
        (image,) = layer(root, "board").iter(f"{{{NS['svg']}}}image")
        href = image.get("{http://www.w3.org/1999/xlink}href", "")
        assert href.startswith("data:image/png;base64,")
        assert len(layer(root, "terrain")) == 0 and len(layer(root, "grid")) > 0


# ------------------------------------------------------------------------------------------- overlays


class TestOverlays:
    def test_fills_are_applied_per_hex(self, village: Map) -> None:
        fills = with_class(parse(map_svg(village, fills={H("C3"): "#ff0000", H("D4"): "#00ff00"})), "path", "fill")
        assert {(f.get("data-hex"), f.get("fill")) for f in fills} == {("C3", "#ff0000"), ("D4", "#00ff00")}
        assert all(0 < float(f.get("fill-opacity", 1)) < 1 for f in fills)

    def test_labels_at_hex_centres(self, village: Map) -> None:
        labels = [t for t in with_class(parse(map_svg(village, labels={H("C3"): "3½"})), "text", "label")
                  if "halo" not in t.get("class", "")]
        (label,) = labels
        assert label.text == "3½" and float(label.get("x", 0)) == pytest.approx(px(H("C3").centre())[0], abs=0.01)

    def test_clear_thread_is_a_green_line_between_its_ends(self, village: Map) -> None:
        t = Thread(H("A1").centre(), H("E3").centre(), clear=True, label="clear")
        root = parse(map_svg(village, threads=[t]))
        (line,) = with_class(layer(root, "threads"), "line", "thread")
        assert "clear" in line.get("class", "").split()
        assert line.get("stroke") == DEFAULT_COLORS["thread-clear"]
        assert line_ends(line) == (tuple(round(v, 2) for v in px(t.start)), tuple(round(v, 2) for v in px(t.end)))
        assert not with_class(root, "path", "thread-block")

    def test_blocked_thread_is_red_with_an_x_at_the_block_and_hindrances_circled(self, village: Map) -> None:
        t = Thread(H("A1").centre(), H("G4").centre(), clear=False, block=(7.5, 4.25), hindrances=(H("C2"),))
        root = parse(map_svg(village, threads=[t]))
        (line,) = with_class(root, "line", "thread")
        assert "blocked" in line.get("class", "").split() and line.get("stroke") == DEFAULT_COLORS["thread-blocked"]
        (x_mark,) = with_class(root, "path", "thread-block")
        bx, by = px((7.5, 4.25))
        assert (float(x_mark.get("data-x", 0)), float(x_mark.get("data-y", 0))) == (round(bx, 2), round(by, 2))
        (circle,) = with_class(root, "circle", "hindrance")
        assert circle.get("data-hex") == "C2" and circle.get("stroke") == DEFAULT_COLORS["hindrance"]

    def test_paths_marks_and_caption(self, village: Map) -> None:
        root = parse(map_svg(village, paths=[[H("A1").centre(), H("B1").centre(), H("C2").centre()]],
                             marks=[Mark((3.0, 3.0), "look here", "warning")],
                             caption="A long caption that must be wrapped over more than one line because it "
                                     "is far wider than this little map of eight columns. " * 2))
        (line,) = with_class(layer(root, "paths"), "polyline", "path-line")
        assert len(line.get("points", "").split()) == 3
        assert with_class(layer(root, "paths"), "polygon", "path-arrow")
        assert with_class(layer(root, "marks"), "g", "mark-warning")
        lines = with_class(layer(root, "caption"), "text", "caption")
        assert len(lines) > 1 and "".join(t.text or "" for t in lines).startswith("A long caption")

    def test_no_caption_no_box(self, village: Map) -> None:
        assert len(layer(parse(map_svg(village)), "caption")) == 0


# ------------------------------------------------------------------------------------------- save


class TestSave:
    def test_svg_is_written_as_text(self, village: Map, tmp_path: Path) -> None:
        svg = map_svg(village)
        save(svg, tmp_path / "map.svg")
        assert (tmp_path / "map.svg").read_text(encoding="utf-8") == svg

    def test_png_starts_with_the_png_magic(self, village: Map, tmp_path: Path) -> None:
        save(map_svg(village, caption="PNG"), str(tmp_path / "map.png"))
        assert (tmp_path / "map.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    def test_unknown_suffix_is_a_value_error_naming_the_expected_ones(self, village: Map, tmp_path: Path) -> None:
        with pytest.raises(ValueError, match=r"\.svg.*\.png"):
            save(map_svg(village), tmp_path / "map.jpg")
        assert not (tmp_path / "map.jpg").exists()


# ------------------------------------------------------------------------------------------- legend


class TestLegend:
    @staticmethod
    def labels(root: ET.Element) -> list[str]:
        return [t.text or "" for t in with_class(layer(root, "legend"), "text", "legend-label")]

    def test_labels_the_features_on_this_map_only(self, village: Map) -> None:
        root = parse(map_svg(village, caption="below the legend"))
        got = self.labels(root)
        for want in ("level 0", "level 1", "woods", "grain", "stone building", "shallow stream", "ford",
                     "dirt road", "Narrow Street", "wall", "barbed-wire fence",
                     "slope: marks on the Down-Slope side", "Crest Line", "steeple",
                     "single-hex two-story house", "offboard", "smoke", "mines", "residual FP", "roadblock",
                     "wreck"):
            assert want in got, want
        for absent in ("level 2", "pine woods", "brush", "orchard", "wooden building", "rubble", "graveyard",
                       "marsh", "shellholes", "Stream Culvert", "paved road", "hedge", "vehicle", "blaze"):
            assert absent not in got, absent
        ids = [g.get("id", "") for g in root.findall("svg:g", NS)]
        assert ids[-2:] == ["layer-legend", "layer-caption"]

    def test_swatches_do_not_count_as_map_features(self, village: Map) -> None:
        root = parse(map_svg(village))
        assert len(with_class(root, "line", "wall")) == 1
        classes = {e.get("class") for item in layer(root, "legend") for e in item.iter()}
        assert classes == {"legend-item", "legend-label", None}

    def test_legend_sits_under_the_map_and_above_the_caption(self, village: Map) -> None:
        root = parse(map_svg(village, caption="note"))
        _, y0, _, h = (float(v) for v in root.get("viewBox", "").split())
        map_bottom = max(px(H(n).centre())[1] for n in ("A8", "H8")) + SIZE * 0.866
        ys = [float(t.get("y", 0)) for t in with_class(layer(root, "legend"), "text", "legend-label")]
        (box,) = with_class(layer(root, "caption"), "rect", "caption-box")
        assert map_bottom < min(ys) and max(ys) < float(box.get("y", 0)) < y0 + h
        no_legend = parse(map_svg(village, caption="note", legend=False))
        assert float(no_legend.get("viewBox", "").split()[3]) < h

    def test_legend_false_omits_the_group(self, village: Map) -> None:
        root = parse(map_svg(village, legend=False))
        assert root.find(".//svg:g[@id='layer-legend']", NS) is None

    def test_no_legend_over_a_board_image(self, village: Map) -> None:
        root = parse(map_svg(village, board_image=b"\x89PNG\r\n\x1a\nfake"))
        assert root.find(".//svg:g[@id='layer-legend']", NS) is None
